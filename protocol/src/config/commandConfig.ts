// What a command (lanterna-gateway, lanterna-kiosk) does with its
// configuration before it starts anything: a bad one is said on stderr, named
// after the command, and ends it with exit status 2 (what service managers
// and the image's check read as "fix the configuration", apart from a crash's
// 1); `--check` says it is valid and ends with 0.

/** A configuration error: its message lists every bad value. */
export const CONFIG_ERROR_EXIT = 2;

/** The parts of a process a command's start uses: Node's `process` is one. */
export interface CommandHost {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  exit(code: number): never;
}

export interface CommandConfigOptions<T> {
  /** The command's name, the first word of its error line. */
  command: string;
  /** --check: validate, say so and exit. */
  check?: boolean | undefined;
  /** Loads (and validates) the configuration; throws a configuration error when it is bad. */
  load: () => T;
  /** Which errors of `load` are the configuration's (others are thrown on: a bug is no exit 2). */
  isConfigError: (error: unknown) => error is Error;
}

/** The configuration `load` gives, or the command ends here (exit 2 when it is bad, 0 after --check). */
export function configForCommand<T>(host: CommandHost, { command, check, load, isConfigError }: CommandConfigOptions<T>): T {
  let config: T;
  try {
    config = load();
  } catch (error) {
    if (!isConfigError(error)) throw error;
    host.stderr.write(`${command}: ${error.message}\n`);
    return host.exit(CONFIG_ERROR_EXIT);
  }
  if (check === true) {
    host.stdout.write('configuration is valid\n');
    return host.exit(0);
  }
  return config;
}
