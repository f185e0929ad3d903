// A bench's command line in one place: each flag named once with its default
// (a string, a boolean for a switch, undefined for a string flag with none),
// parsed strictly, so a misspelt flag stops the bench instead of being
// ignored; and the two readings every bench makes of a flag's text.
import { parseArgs } from 'node:util';
import { SCENE_NAMES, type SceneName } from '@lanterna/lab';

export type BenchFlagDefaults = Readonly<Record<string, string | boolean | undefined>>;

/** The parsed flags: a string where a default was given, a boolean for a switch. */
export type BenchFlags<D extends BenchFlagDefaults> = {
  -readonly [K in keyof D]: D[K] extends boolean ? boolean : D[K] extends string ? string : string | undefined;
};

type OptionSpec = { type: 'string'; default?: string } | { type: 'boolean'; default: boolean };

export function benchFlags<const D extends BenchFlagDefaults>(defaults: D, argv: readonly string[] = process.argv.slice(2)): BenchFlags<D> {
  const options: Record<string, OptionSpec> = {};
  for (const [name, value] of Object.entries(defaults)) {
    options[name] = typeof value === 'boolean' ? { type: 'boolean', default: value } : value === undefined ? { type: 'string' } : { type: 'string', default: value };
  }
  const { values } = parseArgs({ args: [...argv], strict: true, options });
  return values as BenchFlags<D>;
}

/** A flag's number, which must be positive. */
export function positiveFlag(text: string, name: string, unit = ''): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number${unit}, got '${text}'`);
  return value;
}

/** A comma-separated flag's items, trimmed, empty ones dropped. */
export function flagList(text: string): string[] {
  return text.split(',').map((item) => item.trim()).filter((item) => item !== '');
}

/** A comma-separated list of the lab's scene names; an unknown name stops the bench. */
export function sceneFlag(text: string): SceneName[] {
  const scenes = flagList(text);
  const unknownScene = scenes.find((scene) => !(SCENE_NAMES as readonly string[]).includes(scene));
  if (unknownScene !== undefined) throw new Error(`unknown scene ${unknownScene} (known: ${SCENE_NAMES.join(', ')})`);
  return scenes as SceneName[];
}
