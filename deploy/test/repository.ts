// Where the deploy tests find the repository's files and the PyPI tools the
// setup script installs (its venv under the Lanterna cache).
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';

/** The repository root (this file is compiled to deploy/test/dist/). */
export const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));

export function repositoryFile(path: string): string {
  return join(repositoryRoot, path);
}

export function readRepositoryFile(path: string): string {
  return readFileSync(repositoryFile(path), 'utf8');
}

/** A tool from scripts/python-requirements.txt, as scripts/setup.sh installs it (its venv in the Lanterna cache). */
export function venvTool(name: string): string {
  const cache = process.env.LANTERNA_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'lanterna');
  return join(cache, 'venv', 'bin', name);
}
