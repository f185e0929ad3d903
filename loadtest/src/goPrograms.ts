// The Go load-side programs (loadtest/generator-go/cmd and the generator):
// where build.sh puts them (bin/, git-ignored; built from a cache keyed by
// their inputs), and the choice between each and its Node twin.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export type Implementation = 'node' | 'go';

/** The path build.sh gives the Go program `name`. */
export function goProgramPath(name: string): string {
  return fileURLToPath(new URL(`../generator-go/bin/${name}`, import.meta.url));
}

/**
 * `auto` is Go when its program is built, else Node; `go` without the program
 * is an error that says how to build it.
 */
export function resolveImplementation(what: string, binary: string, requested: Implementation | 'auto'): Implementation {
  const built = existsSync(binary);
  if (requested === 'auto') return built ? 'go' : 'node';
  if (requested === 'go' && !built) throw new Error(`the go ${what} is not built (${binary}): run bash loadtest/generator-go/build.sh`);
  return requested;
}
