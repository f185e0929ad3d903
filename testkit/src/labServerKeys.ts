// Where a lab's RDP server keeps its TLS certificate and key, for tests that
// terminate that TLS themselves (the native client bridge, the fuzz seeds'
// capture): FreeRDP's shadow server writes shadow.crt/shadow.key into its own
// config folder and the lab writes xrdp's cert.pem/key.pem into xrdp's etc,
// both somewhere below the lab's folder.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const KEY_FILES = {
  'freerdp-shadow': { cert: 'shadow.crt', key: 'shadow.key' },
  xrdp: { cert: 'cert.pem', key: 'key.pem' },
} as const;

export type LabServerKind = keyof typeof KEY_FILES;

/** The paths of the server's certificate and key below `labDir`, or undefined while either is missing. */
export function findServerKeyFiles(labDir: string, server: LabServerKind): { cert: string; key: string } | undefined {
  const names = KEY_FILES[server];
  const cert = findBelow(labDir, names.cert);
  const key = findBelow(labDir, names.key);
  return cert && key ? { cert, key } : undefined;
}

function findBelow(dir: string, name: string): string | undefined {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) {
      const found = findBelow(path, name);
      if (found) return found;
    } else if (entry === name) {
      return path;
    }
  }
  return undefined;
}
