#!/usr/bin/env node
// lanterna-kiosk: shows one display's page full screen on this machine's X
// display and keeps it there. Configuration: flags, then environment, then a
// JSON file, then defaults (README.md).
import { Command, Option } from 'commander';
import { pino } from 'pino';
import { configForCommand } from '@lanterna/protocol';
import { readGatewayCertificatePins } from './gatewayCertificatePins.js';
import { KioskConfigError, loadKioskConfig, type KioskConfig, type KioskFlags } from './kioskConfig.js';
import { KioskSupervisor } from './kioskSupervisor.js';

const program = new Command()
  .name('lanterna-kiosk')
  .description('Runs the Lanterna display page full screen in Chromium and keeps it running')
  .option('-c, --config <file>', 'JSON configuration file (also LANTERNA_KIOSK_CONFIG)')
  .option('--gateway <url>', 'gateway base URL, e.g. https://gateway.example:8443 (LANTERNA_KIOSK_GATEWAY)')
  .option('--display-id <id>', 'the display this screen shows (LANTERNA_KIOSK_DISPLAY_ID)')
  .option('--display-token <token>', 'the display token; prefer LANTERNA_KIOSK_DISPLAY_TOKEN, a flag is visible to other local users')
  .option('--display <x-display>', 'X display to show on, e.g. :0 (LANTERNA_KIOSK_X_DISPLAY, else DISPLAY)')
  .option('--gateway-certificate <pem>', "the gateway's certificate, trusted by its key when no CA signed it (LANTERNA_KIOSK_GATEWAY_CERTIFICATE)")
  .option('--chromium <path>', 'Chromium binary (LANTERNA_KIOSK_CHROMIUM; default /usr/bin/chromium)')
  .addOption(new Option('--webgl <mode>', 'WebGL on the GPU or on SwiftShader (LANTERNA_KIOSK_WEBGL)').choices(['auto', 'gpu', 'swiftshader']))
  .option('--no-window-manager', 'never start openbox, even when no window manager runs')
  .addOption(new Option('--log-level <level>', 'LANTERNA_KIOSK_LOG_LEVEL').choices(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']))
  .option('--check', 'validate the configuration and exit')
  .exitOverride((error) => {
    // usage errors exit 2 like configuration errors; --help and --version exit 0
    process.exit(error.exitCode === 0 ? 0 : 2);
  })
  .parse();
const options = program.opts<KioskFlags & { config?: string; check?: boolean }>();

const { config, pins } = configForCommand(process, {
  command: 'lanterna-kiosk', check: options.check,
  load: (): { config: KioskConfig; pins: string[] } => {
    const loaded = loadKioskConfig({ file: options.config, flags: options });
    return { config: loaded, pins: loaded.gatewayCertificate !== undefined ? readGatewayCertificatePins(loaded.gatewayCertificate) : [] };
  },
  isConfigError: (error) => error instanceof KioskConfigError,
});

const logger = pino({ level: config.logLevel, base: { pid: process.pid, displayId: config.displayId } });
const supervisor = new KioskSupervisor({ config, pins, logger });
supervisor.on('event', (event) => {
  if (event.kind === 'relaunch' && event.reason === 'launch-failed' && event.delayMs >= config.watchdog.relaunchMaxMs) {
    logger.error({ chromium: config.chromium }, 'chromium keeps failing to launch; still retrying');
  }
});
logger.info({ gateway: config.gateway, xDisplay: config.xDisplay, pinned: pins.length > 0 }, 'kiosk starting');
supervisor.start();

let stopping = false;
const stop = (signal: NodeJS.Signals): void => {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'stopping');
  const forced = setTimeout(() => {
    logger.error({ phase: 'stop' }, 'stop took too long; exiting');
    process.exit(1);
  }, 20_000);
  forced.unref();
  supervisor.stop().then(() => process.exit(0), (error: unknown) => {
    logger.error({ err: error, phase: 'stop' }, 'stop failed');
    process.exit(1);
  });
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.on('SIGHUP', stop);
