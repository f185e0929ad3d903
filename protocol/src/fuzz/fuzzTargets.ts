// The protocol package's fuzz targets, as the campaign finds them: the module
// exporting each `fuzzTarget`, its corpus folder (protocol/fuzz/corpus/<name>,
// kept in the repository) and the modules to instrument (the package's own,
// never its tests or targets). A new target is one module and one line here.
import { fileURLToPath } from 'node:url';
import type { CampaignTargetSpec } from '@lanterna/fuzzer';

/** protocol/fuzz/corpus/<target>, seen from protocol/dist/fuzz/ (or src/fuzz/). */
export function corpusDir(target: string): string {
  return fileURLToPath(new URL(`../../fuzz/corpus/${target}`, import.meta.url));
}

/** Crashing inputs of a campaign: results/fuzz/ at the repository's root (ignored by git). */
export const CRASH_DIR = fileURLToPath(new URL('../../../results/fuzz', import.meta.url));

const packageModules = new URL('../', import.meta.url).href;
/**
 * The zod modules that validate (type parsers, checks, safeParse): the JSON
 * targets' own code is mostly schemas, whose branches live there. Not all of
 * zod, whose locales and JSON Schema code would only swell the block count.
 */
const zodModules = ['core/schemas.js', 'core/checks.js', 'core/parse.js'].map((file) => new URL(`../v4/${file}`, import.meta.resolve('zod/mini')).href);

function spec(name: string, module: string, alsoInstrument: readonly string[] = []): CampaignTargetSpec {
  return { name, module: new URL(module, import.meta.url).href, corpusDir: corpusDir(name), instrument: [packageModules, ...alsoInstrument] };
}

export const PROTOCOL_FUZZ_TARGETS: readonly CampaignTargetSpec[] = [
  spec('pdu-framer', './framerFuzzTarget.js'),
  spec('x224', './x224FuzzTarget.js'),
  spec('kiosk-messages', './kioskMessagesFuzzTarget.js', zodModules),
  spec('presenter-request', './presenterRequestFuzzTarget.js', zodModules),
];
