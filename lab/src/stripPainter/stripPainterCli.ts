// `node stripPainterCli.js :N [--fps F]`: paints the timestamp strip on display
// :N until SIGTERM/SIGINT. A process of its own, so the stamps keep their
// pace whatever the process that started the lab is busy with.
import { startStripPainter } from './stripPainter.js';

function parse(argv: readonly string[]): { display: string; fps: number } {
  const [display, flag, value] = argv;
  if (display === undefined || !display.startsWith(':')) throw new Error('usage: stripPainterCli :N [--fps F]');
  if (flag === undefined) return { display, fps: 60 };
  const fps = Number(value);
  if (flag !== '--fps' || !Number.isFinite(fps) || fps <= 0 || fps > 240) throw new Error(`bad option ${flag} ${value ?? ''}`);
  return { display, fps };
}

const { display, fps } = parse(process.argv.slice(2));
const painter = await startStripPainter(display, { fps });
console.log(`painting the timestamp strip on ${display} at up to ${fps} fps`);
const stop = (): void => painter.stop();
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
await painter.done;
console.log(`stopped after ${painter.frames} frames`);
