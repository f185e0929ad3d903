import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { LabDisplay } from '../display/xDisplay.js';
import type { SupervisedChild } from '../process/childSupervisor.js';
import { generatePassword } from './credentials.js';
import { startOnFreePort } from './portClashRetry.js';
import type { RdpEndpoint } from './rdpEndpoint.js';
import { startRdpServerChild } from './rdpServerChild.js';
import { writeShadowNlaFiles } from '@lanterna/presenter/shadowNla';

export interface ShadowServerOptions {
  display: LabDisplay;
  /** 'tls': TLS only, no authentication (-auth). 'nla': CredSSP/NTLM against a SAM file. */
  auth: 'tls' | 'nla';
  /** false passes -gfx: the server sends RemoteFX surface bits instead of the GFX pipeline. Default true. */
  gfx?: boolean;
  /** Extra freerdp-shadow-cli3 arguments (tests use a bad one to see a start failure). */
  extraArgs?: readonly string[];
  /** A fixed port instead of a free one (no retry on clash). */
  port?: number;
  readyTimeoutMs?: number;
}

export interface ShadowServer extends RdpEndpoint {
  readonly child: SupervisedChild;
  stop(): Promise<void>;
}

export interface ServerContext {
  /** A fresh directory for this server's files. */
  dir: string;
  logPathFor(component: string): string;
  /** Environment every process of the server gets (the lab's id). */
  env: Record<string, string>;
}

/** FreeRDP's shadow server on 127.0.0.1 and a free port, sharing the given display. */
export async function startShadowServer(options: ShadowServerOptions, context: ServerContext): Promise<ShadowServer> {
  const gfx = options.gfx ?? true;
  mkdirSync(join(context.dir, 'home'), { recursive: true });
  const username = options.auth === 'nla' ? 'lanterna' : 'viewer';
  const password = generatePassword();
  const env: Record<string, string> = {
    ...context.env,
    ...options.display.env,
    // the server writes its generated certificate under the home directory: keep labs apart
    HOME: join(context.dir, 'home'),
    XDG_CONFIG_HOME: join(context.dir, 'home', '.config'),
  };
  const securityArgs: string[] = ['/sec:tls', '-auth'];
  if (options.auth === 'nla') {
    const { samPath, opensslConf } = await writeShadowNlaFiles(context.dir, username, password);
    env.OPENSSL_CONF = opensslConf;
    securityArgs.splice(0, securityArgs.length, '/sec:nla', `/sam-file:${samPath}`);
  }
  const component = `freerdp-shadow-cli3 (${options.auth}${gfx ? '' : ', no gfx'})`;
  const start = async (port: number): Promise<ShadowServer> => {
    const logPath = context.logPathFor(component);
    const { child, certificateDer } = await startRdpServerChild({
      component,
      command: 'freerdp-shadow-cli3',
      args: ['/bind-address:127.0.0.1', `/port:${port}`, ...securityArgs, ...(gfx ? [] : ['-gfx']), ...(options.extraArgs ?? [])],
      env,
      logPath,
      readyTimeoutMs: options.readyTimeoutMs ?? 20_000,
    }, port);
    return {
      host: '127.0.0.1' as const, port, username, password, certificateDer, logPath, child,
      stop: () => child.stop(),
    };
  };
  return options.port === undefined ? startOnFreePort(start) : start(options.port);
}
