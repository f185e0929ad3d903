import { parseArgs } from 'node:util';
import { SCENE_NAMES, type SceneName } from './scenes/scenePlan.js';

export type CliCommand =
  | { kind: 'shadow'; auth: 'tls' | 'nla'; gfx: boolean; scene: SceneName; width: number; height: number; timestampStrip: boolean }
  | { kind: 'xrdp'; scene: SceneName; width: number; height: number }
  | { kind: 'display'; scene: SceneName; width: number; height: number; timestampStrip: boolean }
  | { kind: 'help' };

export const CLI_USAGE = `usage: lanterna-lab <command> [options]

commands:
  shadow   Xvfb + scene + freerdp-shadow-cli3      --auth tls|nla  --no-gfx
  xrdp     xrdp + sesman (xorgxrdp), the session shows the scene
  display  Xvfb + scene only

options:
  --scene ${SCENE_NAMES.join('|')}   (default: reference)
  --width N --height N                   (default: 1920x1080)
  --timestamp-strip                      shadow, display: paint the glass-to-glass
                                         timestamp strip over the scene's top-left corner

Prints the connection details as one JSON line once everything is ready,
then runs until SIGINT or SIGTERM and stops everything it started.`;

function sizeOf(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const size = Number(value);
  if (!Number.isInteger(size) || size < 64 || size > 8192) throw new Error(`--${name} must be an integer from 64 to 8192, got '${value}'`);
  return size;
}

/** Parses the command line (without node and the script path); throws with a usable message. */
export function parseCliArguments(argv: readonly string[]): CliCommand {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      auth: { type: 'string' },
      scene: { type: 'string' },
      width: { type: 'string' },
      height: { type: 'string' },
      'no-gfx': { type: 'boolean' },
      'timestamp-strip': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help === true || command === undefined || command === 'help') return { kind: 'help' };
  if (rest.length > 0) throw new Error(`unexpected argument '${rest.join(' ')}'`);
  const scene = values.scene ?? 'reference';
  if (!(SCENE_NAMES as readonly string[]).includes(scene)) throw new Error(`--scene must be one of ${SCENE_NAMES.join(', ')}, got '${scene}'`);
  const common = { scene: scene as SceneName, width: sizeOf(values.width, 'width', 1920), height: sizeOf(values.height, 'height', 1080) };
  const timestampStrip = values['timestamp-strip'] === true;
  switch (command) {
    case 'shadow': {
      const auth = values.auth ?? 'tls';
      if (auth !== 'tls' && auth !== 'nla') throw new Error(`--auth must be tls or nla, got '${auth}'`);
      return { kind: 'shadow', auth, gfx: values['no-gfx'] !== true, ...common, timestampStrip };
    }
    case 'xrdp':
      if (timestampStrip) throw new Error(`--timestamp-strip applies to the shadow and display commands only`);
      if (values.auth !== undefined || values['no-gfx'] === true) throw new Error(`--auth and --no-gfx apply to the shadow command only`);
      return { kind: 'xrdp', ...common };
    case 'display':
      if (values.auth !== undefined || values['no-gfx'] === true) throw new Error(`--auth and --no-gfx apply to the shadow command only`);
      return { kind: 'display', ...common, timestampStrip };
    default:
      throw new Error(`unknown command '${command}'`);
  }
}
