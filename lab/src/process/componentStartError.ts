/** Why a component did not become ready: it exited, or its deadline passed. */
export type StartFailure = 'exited' | 'deadline' | 'spawn';

/**
 * A component failed to start. The message names the component, its command
 * line, the reason and the last lines of its log, so a failing test says what
 * to fix without anyone opening files.
 */
export class ComponentStartError extends Error {
  override readonly name = 'ComponentStartError';

  constructor(
    readonly component: string,
    readonly commandLine: string,
    readonly failure: StartFailure,
    readonly detail: string,
    readonly logPath: string,
    readonly logTail: string,
  ) {
    super(
      `${component} failed to start (${detail})\n  command: ${commandLine}\n  log: ${logPath}\n` +
        (logTail === '' ? '  (log is empty)' : logTail.split('\n').map((line) => `  | ${line}`).join('\n')),
    );
  }
}
