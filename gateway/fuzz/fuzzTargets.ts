// The gateway's fuzz targets, as the campaign finds them: each target's
// module, its corpus folder (gateway/fuzz/corpus/<name>, kept in the
// repository) and the modules to instrument (the gateway's XML readers). A
// new target (the WS-Discovery codec, say) is one module and one line here.
import { fileURLToPath } from 'node:url';
import type { CampaignTargetSpec } from '@lanterna/fuzzer';

/** gateway/fuzz/corpus/<target>, seen from gateway/fuzz/dist/. */
export function corpusDir(target: string): string {
  return fileURLToPath(new URL(`../corpus/${target}`, import.meta.url));
}

/** Crashing inputs of a campaign: results/fuzz/ at the repository's root (ignored by git). */
export const CRASH_DIR = fileURLToPath(new URL('../../../results/fuzz', import.meta.url));

/** The compiled gateway modules under test. */
const assistance = new URL('../../dist/assistance/', import.meta.url).href;

function spec(name: string, module: string, instrument: readonly string[]): CampaignTargetSpec {
  return { name, module: new URL(module, import.meta.url).href, corpusDir: corpusDir(name), instrument };
}

export const GATEWAY_FUZZ_TARGETS: readonly CampaignTargetSpec[] = [
  spec('bounded-xml', './boundedXmlFuzzTarget.js', [assistance]),
  spec('ra-invitation', './raInvitationFuzzTarget.js', [assistance]),
];
