// Which engine carries the data sockets. `auto` (the default) is the native
// data plane wherever its binary was built, and Node's own engine, with the
// reason said, where it was not: a checkout without Go still runs, and every
// build that has the binary (scripts/build.sh, the Docker image) gets the
// faster engine without a setting. A configured `native` without the binary
// stays an error: the administrator asked for it.
import { accessSync, constants } from 'node:fs';

export type RelayEngineSetting = 'auto' | 'node' | 'native';
export type RelayEngine = 'node' | 'native';

export interface RelayEngineChoice {
  engine: RelayEngine;
  /** auto fell back to Node: why the binary could not be used. */
  fallback?: string;
}

export function chooseRelayEngine(setting: RelayEngineSetting, binary: string): RelayEngineChoice {
  if (setting !== 'auto') return { engine: setting };
  try {
    accessSync(binary, constants.X_OK);
    return { engine: 'native' };
  } catch (error) {
    return { engine: 'node', fallback: `${binary}: ${(error as NodeJS.ErrnoException).code ?? String(error)}` };
  }
}
