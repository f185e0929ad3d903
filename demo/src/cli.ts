#!/usr/bin/env node
// The README's first command: the product on its embedded defaults. A demo
// presenter (FreeRDP shadow server on a virtual screen with a live scene, from
// the lab; for the clapperboard an xrdp session with sound), the gateway (its CLI; self-signed TLS made on first start, no
// database), and a display that projects the presenter — in Chromium kiosk
// mode when a screen exists, otherwise as a URL to open in any browser.
import { hostname } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { Lab, type RdpEndpoint, type SceneName } from '@lanterna/lab';
import { DESKTOP_MAX_LONG_SIDE, DESKTOP_MAX_SHORT_SIDE, DESKTOP_MIN_SIDE } from '@lanterna/protocol';
import { DEMO_DISPLAY_ID, demoDisplayToken, demoStateDir, writeDemoGatewayConfig } from './demoState.js';
import { startGatewayProcess } from './gatewayProcess.js';
import { openKioskWindow } from './kioskWindow.js';

const DEMO_SCENES: readonly SceneName[] = ['terminal', 'animation', 'reference', 'clapperboard'];

const options = new Command()
  .name('lanterna-demo')
  .option('--port <n>', 'gateway port', '8443')
  .option('--host <address>', 'gateway listen address', '0.0.0.0')
  .option('--scene <name>', `what the demo presenter shows: ${DEMO_SCENES.join(' | ')} (a white flash and a click at every second, with sound: the presenter is then an xrdp session)`, 'terminal')
  .option('--auth <mode>', 'demo presenter security (the shadow server\'s; the clapperboard\'s xrdp logs in over TLS): nla | tls', 'nla')
  .option('--no-kiosk', 'never open a kiosk window, only print the URL')
  .option('--discovery-interface <name...>', 'announce the display over WS-Discovery on these interfaces only (default: every one but loopback)')
  .option('--no-discovery', 'do not announce the display over WS-Discovery')
  .option('--touch', 'a finger (or the mouse) on the display page controls the demo presenter, as a presenter allows it with the presenter page\'s switch')
  .option('--display-size <WxH>', 'the demo presenter\'s screen, up to 3840x2160 (2160x3840 upright); open the display page on a panel that size (a 4K one: 3840x2160) to see it at its own pixels', '1920x1080')
  .parse()
  .opts<{ port: string; host: string; scene: string; auth: string; kiosk: boolean; discovery: boolean; discoveryInterface?: string[]; displaySize: string; touch?: boolean }>();

const stops: (() => void)[] = [];

async function main(): Promise<void> {
  const scene = DEMO_SCENES.find((name) => name === options.scene);
  if (!scene) throw new Error(`unknown scene "${options.scene}"`);
  const size = parseScreenSize(options.displaySize);
  const lab = await Lab.create({ name: 'demo' });
  const stop = async (): Promise<void> => {
    for (const stopOne of stops) stopOne();
    await lab.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());

  let presenter: RdpEndpoint;
  let presenterSays: string;
  if (scene === 'clapperboard') {
    // sound needs a server that plays it into the session: xrdp with PipeWire's xrdp sink (lab/src/servers/xrdpSound.ts)
    console.log(`starting the demo presenter (xrdp with sound, a ${size.width}×${size.height} session)…`);
    const xrdp = await lab.xrdp({ scene, width: size.width, height: size.height });
    presenter = xrdp;
    presenterSays = `RDP ${xrdp.host}:${xrdp.port} (user ${xrdp.username}), an xrdp session with sound showing the "clapperboard" scene: a white flash and a click at every second`;
  } else {
    console.log(`starting the demo presenter (FreeRDP shadow server on a virtual ${size.width}×${size.height} screen)…`);
    const screen = await lab.display(size);
    await screen.showScene(scene);
    const shadow = await lab.shadowServer({ display: screen, auth: options.auth === 'tls' ? 'tls' : 'nla' });
    presenter = shadow;
    presenterSays = `RDP ${shadow.host}:${shadow.port} (user ${shadow.username}), showing the "${scene}" scene on X display ${screen.name}`;
  }

  const stateDir = demoStateDir();
  const token = demoDisplayToken(stateDir);
  const discovery = options.discovery ? options.discoveryInterface ?? [] : false;
  const touch = options.touch === true;
  const configPath = writeDemoGatewayConfig(stateDir, { host: options.host, port: Number(options.port), token, presenter, discovery, touch });
  console.log('starting the gateway…');
  const gateway = await startGatewayProcess(configPath, { showLogs: process.env.LANTERNA_DEMO_LOGS === '1' });
  stops.push(() => gateway.kill('SIGTERM'));

  const local = `https://127.0.0.1:${options.port}/display/${DEMO_DISPLAY_ID}#token=${token}`;
  console.log(`\nLanterna is running.\n  display page:  ${local}\n  on the LAN:    https://${hostname()}:${options.port}/display/${DEMO_DISPLAY_ID}#token=${token}`);
  console.log(`  presenter:     ${presenterSays}`);
  console.log(touch
    ? '  touch:         a finger or the mouse on the display page controls the presenter'
    : '  touch:         off (the display only shows; --touch lets it control the presenter)');
  if (discovery !== false) {
    console.log(`  discovery:     announced as "Demo display" over WS-Discovery${discovery.length > 0 ? ` on ${discovery.join(', ')}` : ''}; from another computer: lanterna-present list`);
  }
  console.log('  (the gateway certificate is self-signed: accept it once in the browser)\nPress Ctrl-C to stop.');
  if (process.env.DISPLAY && options.kiosk) {
    const kiosk = openKioskWindow({
      gatewayUrl: `https://127.0.0.1:${options.port}`, displayId: DEMO_DISPLAY_ID, token,
      gatewayCertificate: join(stateDir, 'gateway', 'gateway-cert.pem'), xDisplay: process.env.DISPLAY,
    });
    stops.push(() => void kiosk.stop());
    console.log(`  kiosk:         lanterna-kiosk (Chromium full screen) on ${process.env.DISPLAY}`);
  }
}

/**
 * `WxH` within what a session asks for (protocol's panelSize: 200 to 3840 on
 * the long side, 2160 on the short one), even sides (H.264's 4:2:0).
 */
function parseScreenSize(text: string): { width: number; height: number } {
  const match = /^(\d{3,4})x(\d{3,4})$/.exec(text.trim());
  const [width, height] = match ? [Number(match[1]), Number(match[2])] : [0, 0];
  const long = Math.max(width, height);
  const short = Math.min(width, height);
  if (!match || short < DESKTOP_MIN_SIDE || long > DESKTOP_MAX_LONG_SIDE || short > DESKTOP_MAX_SHORT_SIDE || width % 2 !== 0 || height % 2 !== 0) {
    throw new Error(`--display-size "${text}": give WIDTHxHEIGHT in even pixels, from ${DESKTOP_MIN_SIDE} up to ${DESKTOP_MAX_LONG_SIDE}x${DESKTOP_MAX_SHORT_SIDE} (or ${DESKTOP_MAX_SHORT_SIDE}x${DESKTOP_MAX_LONG_SIDE} upright)`);
  }
  return { width, height };
}

main().catch((error: unknown) => {
  console.error(`demo failed: ${error instanceof Error ? error.message : String(error)}`);
  for (const stopOne of stops) stopOne();
  process.exit(1);
});
