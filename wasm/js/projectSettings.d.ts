// Types for projectSettings.js.
import type { SessionOptions } from './lanternaRdp.js';

export interface ProjectForSession {
  readonly credentials?: { readonly username: string; readonly password: string; readonly domain?: string };
  /** The `project` message's settings: colorDepth, gfx, codecs, performance, assistance. */
  readonly settings?: Readonly<Record<string, unknown>>;
  readonly target?: { readonly host: string };
}

export declare function sessionOptionsFromProject(project: ProjectForSession, desktop: { width: number; height: number }): SessionOptions;
