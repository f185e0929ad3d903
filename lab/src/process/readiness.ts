import { connect } from 'node:net';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** What a readiness check may look at: the child's log and its extra pipe. */
export interface ReadinessSubject {
  readonly logPath: string;
  extraPipeText(): string;
}

/** One way to tell that a component is ready; polled until it answers true or the deadline passes. */
export interface ReadinessCheck {
  /** Says what is being waited for, for error messages ("tcp 127.0.0.1:3389 accepts"). */
  readonly description: string;
  check(subject: ReadinessSubject): Promise<boolean>;
}

const ATTEMPT_TIMEOUT_MS = 2000;

/** Ready when a TCP connection to host:port succeeds. */
export function portOpen(host: string, port: number): ReadinessCheck {
  return {
    description: `tcp ${host}:${port} accepts connections`,
    check: () =>
      new Promise((resolve) => {
        const socket = connect({ host, port });
        const finish = (ok: boolean): void => {
          socket.destroy();
          resolve(ok);
        };
        socket.setTimeout(ATTEMPT_TIMEOUT_MS, () => finish(false));
        socket.once('connect', () => finish(true));
        socket.once('error', () => finish(false));
      }),
  };
}

/** Ready when a line of the child's log matches `pattern`. */
export function logLineMatches(pattern: RegExp): ReadinessCheck {
  return {
    description: `log matches ${String(pattern)}`,
    check: (subject) => {
      let text: string;
      try {
        text = readFileSync(subject.logPath, 'utf8');
      } catch {
        return Promise.resolve(false);
      }
      return Promise.resolve(text.split('\n').some((line) => pattern.test(line)));
    },
  };
}

/** Ready when an X client can open the display (xdpyinfo succeeds). */
export function xDisplayAnswers(display: string, env: NodeJS.ProcessEnv = process.env): ReadinessCheck {
  return {
    description: `X display ${display} answers`,
    check: () =>
      new Promise((resolve) => {
        execFile('xdpyinfo', ['-display', display], { env, timeout: ATTEMPT_TIMEOUT_MS }, (error) => resolve(error === null));
      }),
  };
}

/** Ready when `probe` resolves true (a thrown error counts as not ready yet). */
export function customProbe(description: string, probe: (subject: ReadinessSubject) => Promise<boolean>): ReadinessCheck {
  return {
    description,
    check: async (subject) => {
      try {
        return await probe(subject);
      } catch {
        return false;
      }
    },
  };
}

/** Parses /proc/net/tcp(6) text: the local ports in LISTEN state (pure). */
export function listeningPorts(procNetTcp: string): Set<number> {
  const ports = new Set<number>();
  for (const line of procNetTcp.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    const local = fields[1];
    if (local === undefined || fields[3] !== '0A') continue;
    ports.add(parseInt(local.slice(local.lastIndexOf(':') + 1), 16));
  }
  return ports;
}

/**
 * Ready when some socket listens on `port` (IPv4 or IPv6), read from
 * /proc/net without connecting: for servers that log an error, or pick an
 * address family of their own, when probed with a bare connection.
 */
export function portListening(port: number): ReadinessCheck {
  return {
    description: `a socket listens on port ${port}`,
    check: () => {
      for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
        try {
          if (listeningPorts(readFileSync(file, 'utf8')).has(port)) return Promise.resolve(true);
        } catch { /* no IPv6 on this machine */ }
      }
      return Promise.resolve(false);
    },
  };
}
