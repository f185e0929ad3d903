/** Where a native client probe failed. */
export type NativeProbePhase = 'auth' | 'session' | 'deadline' | 'spawn';

/** The native client could not prove a session; carries its whole output for the test log. */
export class NativeProbeError extends Error {
  override readonly name = 'NativeProbeError';

  constructor(
    readonly phase: NativeProbePhase,
    readonly target: string,
    readonly exitCode: number | null,
    readonly output: string,
    detail: string,
  ) {
    const tail = output.trimEnd().split('\n').slice(-15).map((line) => `  | ${line}`).join('\n');
    super(`xfreerdp3 against ${target} failed (${phase}): ${detail}\n${tail}`);
  }
}
