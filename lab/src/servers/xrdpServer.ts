import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { XDisplay, type LabDisplay } from '../display/xDisplay.js';
import { LAB_TAG_VARIABLE, startChild, type SupervisedChild } from '../process/childSupervisor.js';
import { allocateFreePort } from '../process/freePort.js';
import { isAlive, pidsOfUser } from '../process/procTable.js';
import { portListening, xDisplayAnswers } from '../process/readiness.js';
import { planScene } from '../scenes/sceneCatalogue.js';
import { renderSessionScript, SESSION_DISPLAY, type SceneName } from '../scenes/scenePlan.js';
import { generatePassword } from './credentials.js';
import { setIniValues } from './iniFile.js';
import { startOnFreePort } from './portClashRetry.js';
import type { RdpEndpoint } from './rdpEndpoint.js';
import { startRdpServerChild } from './rdpServerChild.js';
import { makeSelfSignedCertificate } from './selfSignedCertificate.js';
import type { ServerContext } from './shadowServer.js';
import { createTestUser, type TestUser } from './testUser.js';
import { pipewireConfig, pipewireSessionLines, soundSessionLines, toneWave, type XrdpSoundOptions } from './xrdpSound.js';

export interface XrdpOptions {
  /** Only xorgxrdp (Xorg with xrdp's modules) is wired up; it runs here. */
  backend?: 'xorgxrdp';
  /** What the user's session shows once a client logs in. Default 'reference'. */
  scene?: SceneName;
  /** Size the scene is drawn for; clients should ask for the same size. Default 1920×1080. */
  width?: number;
  height?: number;
  readyTimeoutMs?: number;
  /**
   * A tone the session plays into xrdp's sound channel (PipeWire with
   * pipewire-module-xrdp, started by the session script); off by default.
   */
  sound?: XrdpSoundOptions;
}

export interface XrdpServer extends RdpEndpoint {
  readonly sesman: SupervisedChild;
  readonly xrdp: SupervisedChild;
  readonly user: TestUser;
  /**
   * The session's sound log, when `sound` is on ("lanterna sound: …" steps,
   * PipeWire's warnings) or the scene plays sound itself (the clapperboard's
   * "lanterna clapper: …" lines, one per flash, and PipeWire's).
   */
  readonly soundLogPath: string | undefined;
  /** ':N' of the session X server once a client has logged in, from sesman's log. */
  sessionDisplayName(): string | undefined;
  /** True once a session's X server answers (a login went all the way through). */
  readonly sessionUp: () => Promise<boolean>;
  /** Live processes of the test user's sessions (X server, session script, chansrv). */
  sessionPids(): number[];
  /** A handle on the session's X display (screenshots, scenes), once a session is up. */
  sessionDisplay(): LabDisplay | undefined;
  stop(): Promise<void>;
}

const SESSION_STARTED = /Session started successfully for user (\S+) on display (\d+)/g;

/**
 * xrdp 0.9.21 + sesman without systemd. Both hard-code paths (xrdp reads the
 * sesman port from /etc/xrdp/sesman.ini; pid files and the X socket dir live
 * in /run/xrdp), so the pair runs in a private mount namespace where the
 * lab's own copies are bind-mounted over /etc/xrdp and /run/xrdp. The network
 * namespace is the host's: xrdp listens on 127.0.0.1 and a free port.
 */
export async function startXrdp(options: XrdpOptions, context: ServerContext): Promise<XrdpServer> {
  const width = options.width ?? 1920;
  const height = options.height ?? 1080;
  const readyTimeoutMs = options.readyTimeoutMs ?? 20_000;
  const user = await createTestUser(generatePassword());
  const cleanupUser = async (): Promise<void> => {
    for (const pid of pidsOfUser(user.uid)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch { /* gone */ }
    }
    await user.remove();
  };
  try {
    const etc = join(context.dir, 'etc');
    const run = join(context.dir, 'run');
    const sceneDir = join(context.dir, 'scene');
    cpSync('/etc/xrdp', etc, { recursive: true });
    mkdirSync(join(run, 'sockdir'), { recursive: true });
    chmodSync(run, 0o755);
    chmodSync(join(run, 'sockdir'), 0o1777);
    mkdirSync(sceneDir, { mode: 0o755 });
    await makeSelfSignedCertificate(join(etc, 'cert.pem'), join(etc, 'key.pem'), 'lanterna-lab-xrdp');

    const plan = planScene(options.scene ?? 'reference', { display: SESSION_DISPLAY, width, height, workDir: sceneDir });
    for (const file of plan.files) writeFileSync(file.path, file.content, { mode: 0o644 });
    chownSync(sceneDir, user.uid, user.gid); // chromium's profile is created in there as the user
    const sessionScript = join(etc, 'lanterna-session.sh');
    let prelude: string[] = [];
    let soundLogPath: string | undefined;
    if (options.sound !== undefined) {
      const config = join(sceneDir, 'pipewire.conf');
      const wave = join(sceneDir, 'tone.wav');
      writeFileSync(config, pipewireConfig(), { mode: 0o644 });
      writeFileSync(wave, toneWave(options.sound), { mode: 0o644 });
      // written by the session's user (the script's shell opens it)
      soundLogPath = join(sceneDir, 'sound.log');
      writeFileSync(soundLogPath, '', { mode: 0o644 });
      chownSync(soundLogPath, user.uid, user.gid);
      prelude = soundSessionLines({ config, wave, logPath: soundLogPath });
    } else if (plan.sound !== undefined) {
      // the scene plays its own sound (the clapperboard): PipeWire for it, the scene's log for both
      const config = join(sceneDir, 'pipewire.conf');
      writeFileSync(config, pipewireConfig(), { mode: 0o644 });
      soundLogPath = plan.sound.logPath;
      writeFileSync(soundLogPath, '', { mode: 0o644 });
      chownSync(soundLogPath, user.uid, user.gid);
      prelude = pipewireSessionLines({ config, logPath: soundLogPath });
    }
    writeFileSync(sessionScript, renderSessionScript(plan, prelude), { mode: 0o755 });

    const sesmanPort = await allocateFreePort();
    const sesmanLog = context.logPathFor('xrdp-sesman');
    const sessionVariables: Record<string, string> = { ...context.env };
    const tag = process.env[LAB_TAG_VARIABLE];
    if (tag !== undefined) sessionVariables[LAB_TAG_VARIABLE] = tag;
    let sesmanIni = readFileSync(join(etc, 'sesman.ini'), 'utf8');
    sesmanIni = setIniValues(sesmanIni, 'Globals', {
      ListenAddress: '127.0.0.1', ListenPort: String(sesmanPort),
      EnableUserWindowManager: 'false', DefaultWindowManager: sessionScript,
    });
    sesmanIni = setIniValues(sesmanIni, 'Security', { AllowRootLogin: 'false', AlwaysGroupCheck: 'false' });
    // far from Xvfb's -displayfd numbers (which count up from 0)
    sesmanIni = setIniValues(sesmanIni, 'Sessions', { X11DisplayOffset: String(100 + (sesmanPort % 400)) });
    sesmanIni = setIniValues(sesmanIni, 'Logging', { LogFile: sesmanLog, EnableSyslog: 'false', EnableConsole: 'false' });
    sesmanIni = setIniValues(sesmanIni, 'ChansrvLogging', { EnableSyslog: 'false' });
    sesmanIni = setIniValues(sesmanIni, 'SessionVariables', sessionVariables);
    writeFileSync(join(etc, 'sesman.ini'), sesmanIni);

    const sesman = await startChild({
      component: 'xrdp-sesman',
      command: 'unshare',
      args: ['--mount', '--propagation', 'private', '--', 'sh', '-c',
        `mkdir -p /run/xrdp && mount --bind '${etc}' /etc/xrdp && mount --bind '${run}' /run/xrdp && exec xrdp-sesman --nodaemon`],
      env: context.env,
      logPath: sesmanLog,
      ready: portListening(sesmanPort),
      readyTimeoutMs,
    });

    const startXrdpDaemon = async (port: number): Promise<{ child: SupervisedChild; port: number; certificateDer: Buffer | undefined; logPath: string }> => {
      const logPath = context.logPathFor('xrdp');
      let xrdpIni = readFileSync(join(etc, 'xrdp.ini'), 'utf8');
      xrdpIni = setIniValues(xrdpIni, 'Globals', {
        port: `tcp://127.0.0.1:${port}`, security_layer: 'tls',
        certificate: join(etc, 'cert.pem'), key_file: join(etc, 'key.pem'), fork: 'true',
      });
      xrdpIni = setIniValues(xrdpIni, 'Logging', { LogFile: logPath, EnableSyslog: 'false', EnableConsole: 'false' });
      writeFileSync(join(etc, 'xrdp.ini'), xrdpIni);
      const { child, certificateDer } = await startRdpServerChild({
        component: 'xrdp',
        command: 'nsenter',
        args: ['--target', String(sesman.pid), '--mount', '--', 'xrdp', '--nodaemon'],
        env: context.env,
        logPath,
        readyTimeoutMs,
      }, port);
      return { child, port, certificateDer, logPath };
    };
    let daemon;
    try {
      daemon = await startOnFreePort(startXrdpDaemon);
    } catch (error) {
      await sesman.stop();
      throw error;
    }

    const sessionDisplayName = (): string | undefined => {
      let text: string;
      try {
        text = readFileSync(sesmanLog, 'utf8');
      } catch {
        return undefined;
      }
      const matches = [...text.matchAll(SESSION_STARTED)].filter((match) => match[1] === user.username);
      const last = matches.at(-1);
      return last === undefined ? undefined : `:${last[2] ?? ''}`;
    };
    const sessionEnv = (name: string): Record<string, string> => ({ ...context.env, DISPLAY: name, XAUTHORITY: join(user.home, '.Xauthority') });
    let stopping: Promise<void> | undefined;
    return {
      host: '127.0.0.1',
      port: daemon.port,
      username: user.username,
      password: user.password,
      certificateDer: daemon.certificateDer,
      logPath: daemon.logPath,
      sesman,
      xrdp: daemon.child,
      user,
      soundLogPath,
      sessionDisplayName,
      sessionPids: () => pidsOfUser(user.uid),
      sessionUp: async () => {
        const name = sessionDisplayName();
        return name !== undefined && (await xDisplayAnswers(name, { ...process.env, ...sessionEnv(name) }).check(daemon.child));
      },
      sessionDisplay: () => {
        const name = sessionDisplayName();
        return name === undefined ? undefined : new XDisplay(name, width, height, sessionEnv(name), sceneDir, (component) => context.logPathFor(component));
      },
      stop: () => {
        stopping ??= (async () => {
          const display = sessionDisplayName();
          await daemon.child.stop();
          await sesman.stop();
          await cleanupUser();
          if (display !== undefined) removeStaleXLock(display.slice(1));
        })();
        return stopping;
      },
    };
  } catch (error) {
    await cleanupUser().catch(() => undefined);
    throw error;
  }
}

// An X server killed hard leaves its lock and socket; sesman would then skip that display number forever.
function removeStaleXLock(display: string): void {
  const lock = `/tmp/.X${display}-lock`;
  if (!existsSync(lock)) return;
  const pid = Number(readFileSync(lock, 'utf8').trim());
  if (Number.isFinite(pid) && pid > 0 && isAlive(pid)) return;
  rmSync(lock, { force: true });
  rmSync(`/tmp/.X11-unix/X${display}`, { force: true });
}
