// One error type for the CLI: what went wrong in words a presenter can act on,
// and the exit code a script can branch on.

export const EXIT = {
  ok: 0,
  failed: 1,
  usage: 2,
  /** No display answered, or none by that name. */
  notFound: 3,
  /** The display answered and refused (busy, target not allowed, …). */
  refused: 4,
  /** The display or its gateway could not be reached, or its certificate changed. */
  unreachable: 5,
} as const;

export class PresenterError extends Error {
  constructor(readonly exitCode: number, message: string, readonly code?: string) {
    super(message);
    this.name = 'PresenterError';
  }
}
