// Keeps the display page on screen, unattended, for months: launches
// Chromium full screen, loads the page once the gateway answers (a waiting
// screen of its own until then), and watches. The ladder:
//   renderer crashed, heartbeats stopped, Chromium error page → reload the page;
//   reloads that bring no heartbeat, a page that cannot even be crashed,
//   a browser that died or stopped answering → relaunch the browser, with backoff.
import { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Browser, CDPSession, Page } from 'puppeteer-core';
import type { Logger } from 'pino';
import { Backoff } from './backoff.js';
import { launchKioskChromium, type KioskChromium } from './chromiumProcess.js';
import { resolveWebgl } from './chromiumFlags.js';
import { KIOSK_HEARTBEAT_BINDING, tokenStorageKey, type KioskHeartbeat } from '@lanterna/protocol';
import { readXOutput, withOutput } from './xOutput.js';
import { displayPageUrl, type KioskConfig } from './kioskConfig.js';
import { probeGateway } from './gatewayProbe.js';
import { familyMembersWith } from './processFamily.js';
import { kioskPageScript, type PageNotice } from './pageScript.js';
import { waitingPageUrl, type WaitingPageUpdate } from './waitingPage.js';
import { ensureWindowManager, keepScreenAwake, xDisplayAnswers, type StartedWindowManager } from './xSession.js';

export type ReloadReason = 'renderer-crashed' | 'heartbeat-missed' | 'error-page';
export type RelaunchReason =
  | 'launch-failed'
  | 'browser-disconnected'
  | 'browser-unresponsive'
  | 'page-unresponsive'
  | 'page-keeps-failing'
  | 'page-closed';

/** Why a browser run ended: a reason to relaunch, or the launcher stopping. */
type RunEnd = RelaunchReason | 'stopping';

/** What the supervisor does, as it happens (logged, and for tests and embedders to wait on). */
export type KioskEvent =
  | { readonly kind: 'browser-launched'; readonly pid: number; readonly launch: number }
  | { readonly kind: 'waiting-for-gateway'; readonly problem: string; readonly retryInMs: number }
  | { readonly kind: 'page-loaded'; readonly url: string }
  | { readonly kind: 'heartbeat'; readonly beat: KioskHeartbeat }
  | { readonly kind: 'reload'; readonly reason: ReloadReason }
  | { readonly kind: 'relaunch'; readonly reason: RelaunchReason; readonly delayMs: number }
  | { readonly kind: 'wake-lock'; readonly state: PageNotice['state']; readonly detail?: string };

export interface KioskSupervisorOptions {
  readonly config: KioskConfig;
  /** SPKI pins of the gateway's certificate (from config.gatewayCertificate). */
  readonly pins: readonly string[];
  readonly logger: Logger;
  /** Environment for Chromium and X tools; process.env when absent. */
  readonly env?: NodeJS.ProcessEnv;
}

const NOTICE_BINDING = 'lanternaKioskNotice';
/** How long a page asked to crash (Page.crash) may take to report it. */
const CRASH_REPORT_MS = 3000;
/** How often the watch looks at the heartbeat clock. */
const WATCH_TICK_MS = 250;
/** Failed browser probes in a row that mean the browser hangs. */
const PROBE_FAILURES_TO_RELAUNCH = 2;

class Stopping extends Error {
  constructor() {
    super('kiosk is stopping');
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
    promise.then((value) => { clearTimeout(timer); resolve(value); }, (error: unknown) => { clearTimeout(timer); reject(error instanceof Error ? error : new Error(String(error))); });
  });
}

/** Per browser launch: the signal that ends it and the reason it ended. */
class BrowserRun {
  private readonly controller = new AbortController();
  reason: RunEnd | undefined;
  lastBeatAt = 0;
  beatsSinceLoad = 0;
  /** DevTools session on the page, attached while it was healthy, for Page.crash. */
  crashSession: CDPSession | undefined;
  loadedAt = 0;

  constructor(readonly chromium: KioskChromium, readonly launch: number) {}

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  isEnded(): boolean {
    return this.controller.signal.aborted;
  }

  get browser(): Browser {
    return this.chromium.browser;
  }

  get page(): Page {
    return this.chromium.page;
  }

  end(reason: RunEnd): void {
    if (this.reason !== undefined) return;
    this.reason = reason;
    this.controller.abort();
  }
}

export class KioskSupervisor extends EventEmitter<{ event: [KioskEvent] }> {
  private readonly config: KioskConfig;
  private readonly logger: Logger;
  private readonly env: NodeJS.ProcessEnv;
  private readonly stopController = new AbortController();
  private readonly displayUrl: URL;
  private readonly waitingUrl: string;
  private windowManager: StartedWindowManager | undefined;
  private run: BrowserRun | undefined;
  private launches = 0;
  private loop: Promise<void> | undefined;
  private lastControl: string | undefined;

  constructor(private readonly options: KioskSupervisorOptions) {
    super();
    this.config = options.config;
    this.logger = options.logger;
    this.env = { ...(options.env ?? process.env), DISPLAY: options.config.xDisplay };
    this.displayUrl = displayPageUrl(options.config);
    this.waitingUrl = waitingPageUrl(options.config.displayId, this.displayUrl.host);
  }

  /** Starts supervising; returns at once (see events). */
  start(): void {
    this.loop ??= this.superviseForever().catch((error: unknown) => {
      if (!(error instanceof Stopping)) this.logger.fatal({ err: error, phase: 'supervise' }, 'kiosk supervisor failed');
    });
  }

  /** Closes the browser and the window manager the launcher started; resolves when they are gone. */
  async stop(): Promise<void> {
    this.stopController.abort();
    this.run?.end('stopping');
    await this.loop;
    await this.windowManager?.stop();
    this.windowManager = undefined;
  }

  /** The Chromium process now running (its pid), if any. */
  get browserPid(): number | undefined {
    return this.run?.chromium.pid;
  }

  /** The kiosk window's page now, if a browser runs (for diagnostics and tests). */
  get page(): Page | undefined {
    return this.run?.page;
  }

  // methods, not getters: the flags change behind awaits, where TypeScript's narrowing cannot see
  private isStopping(): boolean {
    return this.stopController.signal.aborted;
  }

  private emitEvent(event: KioskEvent): void {
    this.emit('event', event);
  }

  private async pause(ms: number, signal: AbortSignal): Promise<void> {
    try {
      await sleep(ms, undefined, { signal: AbortSignal.any([signal, this.stopController.signal]) });
    } catch {
      throw new Stopping();
    }
  }

  private async superviseForever(): Promise<void> {
    const relaunchBackoff = new Backoff(this.config.watchdog.relaunchInitialMs, this.config.watchdog.relaunchMaxMs);
    while (!this.isStopping()) {
      const startedAt = Date.now();
      let reason: RunEnd;
      try {
        await this.prepareDisplay();
        reason = await this.runBrowserOnce();
      } catch (error) {
        if (this.isStopping()) break;
        this.logger.error({ err: error, phase: 'launch' }, 'could not start chromium on the display');
        reason = 'launch-failed';
      }
      if (this.isStopping() || reason === 'stopping') break;
      if (Date.now() - startedAt >= this.config.watchdog.relaunchResetAfterMs) relaunchBackoff.reset();
      const delayMs = relaunchBackoff.next();
      this.logger.warn({ reason, delayMs, attempt: relaunchBackoff.attempts }, 'relaunching chromium');
      this.emitEvent({ kind: 'relaunch', reason, delayMs });
      await this.pause(delayMs, this.stopController.signal);
    }
  }

  /** X answers, a window manager runs, the screen stays on. Re-checked before every launch. */
  private async prepareDisplay(): Promise<void> {
    const xOptions = { display: this.config.xDisplay, env: this.env, logger: this.logger };
    const backoff = new Backoff(1000, 10_000);
    while (!(await xDisplayAnswers(xOptions))) {
      const delayMs = backoff.next();
      if (backoff.attempts === 1 || backoff.attempts % 10 === 0) this.logger.warn({ display: this.config.xDisplay, delayMs }, 'x display does not answer yet');
      await this.pause(delayMs, this.stopController.signal);
    }
    if (this.config.windowManager && (this.windowManager === undefined || this.windowManager.hasExited())) {
      this.windowManager = await ensureWindowManager(xOptions);
    }
    await keepScreenAwake(xOptions);
  }

  private async runBrowserOnce(): Promise<RunEnd> {
    this.launches += 1;
    const chromium = await launchKioskChromium({
      chromium: this.config.chromium,
      appUrl: this.waitingUrl,
      webgl: resolveWebgl(this.config.webgl),
      spkiPins: this.options.pins,
      extraFlags: this.config.chromiumFlags,
      env: this.env,
      launchTimeoutMs: this.config.watchdog.launchTimeoutMs,
      protocolTimeoutMs: Math.max(this.config.watchdog.browserProbeTimeoutMs * 3, 15_000),
    });
    const run = new BrowserRun(chromium, this.launches);
    this.run = run;
    const log = this.logger.child({ launch: run.launch, browserPid: chromium.pid });
    log.info({ webgl: resolveWebgl(this.config.webgl) }, 'chromium launched');
    this.emitEvent({ kind: 'browser-launched', pid: chromium.pid, launch: run.launch });
    const onStop = (): void => run.end('stopping');
    this.stopController.signal.addEventListener('abort', onStop);
    if (this.isStopping()) onStop(); // stop() came while Chromium was starting
    run.browser.once('disconnected', () => run.end('browser-disconnected'));
    let prober: ReturnType<typeof setInterval> | undefined;
    try {
      prober = await this.probeBrowser(run, log);
      await this.instrumentPage(run, log);
      // runs until the browser must go; whatever it awaits then fails, and it stays quiet about that
      void this.keepPageAlive(run, log).then(
        (reason) => run.end(reason),
        (error: unknown) => {
          if (!run.isEnded()) {
            log.error({ err: error, phase: 'page' }, 'page supervision failed');
            run.end('page-unresponsive');
          }
        },
      );
      await new Promise<void>((resolve) => {
        if (run.isEnded()) resolve();
        else run.signal.addEventListener('abort', () => resolve(), { once: true });
      });
    } catch (error) {
      if (!run.isEnded()) {
        log.error({ err: error, phase: 'instrument' }, 'could not set up the kiosk page');
        run.end('page-unresponsive');
      }
    } finally {
      this.stopController.signal.removeEventListener('abort', onStop);
      if (prober !== undefined) clearInterval(prober);
      this.run = undefined;
      // a relaunch does not ask a browser that hangs or died to close: it kills the whole family
      await chromium.close(this.isStopping() && run.reason !== 'browser-disconnected');
    }
    return run.reason ?? 'page-closed';
  }

  /**
   * Asks the browser process (not the page) for its version over its own
   * DevTools session (puppeteer's browser.version() is cached); two unanswered
   * probes in a row mean it hangs.
   */
  private async probeBrowser(run: BrowserRun, log: Logger): Promise<ReturnType<typeof setInterval>> {
    let failures = 0;
    let inFlight = false;
    const { browserProbeIntervalMs, browserProbeTimeoutMs } = this.config.watchdog;
    const session = await withTimeout(run.browser.target().createCDPSession(), browserProbeTimeoutMs, 'attaching to the browser');
    return setInterval(() => {
      if (inFlight || run.isEnded()) return;
      inFlight = true;
      withTimeout(session.send('Browser.getVersion'), browserProbeTimeoutMs, 'Browser.getVersion')
        .then(() => { failures = 0; }, (error: unknown) => {
          failures += 1;
          log.warn({ err: error, failures }, 'browser did not answer a probe');
          if (failures >= PROBE_FAILURES_TO_RELAUNCH) run.end('browser-unresponsive');
        })
        .finally(() => { inFlight = false; });
    }, browserProbeIntervalMs);
  }

  /** Bindings and the document-start script, once per browser (they survive navigations and crashes). */
  private async instrumentPage(run: BrowserRun, log: Logger): Promise<void> {
    const { page } = run;
    await page.exposeFunction(KIOSK_HEARTBEAT_BINDING, (beat: KioskHeartbeat) => {
      run.lastBeatAt = Date.now();
      run.beatsSinceLoad += 1;
      if (beat.control !== this.lastControl) {
        log.info({ control: beat.control, presenting: beat.presenting }, 'page reports its gateway connection');
        this.lastControl = beat.control;
      } else {
        log.debug({ control: beat.control, presenting: beat.presenting }, 'page heartbeat');
      }
      this.emitEvent({ kind: 'heartbeat', beat });
    });
    await page.exposeFunction(NOTICE_BINDING, (notice: PageNotice) => {
      const level = notice.state === 'failed' || notice.state === 'unsupported' ? 'warn' : 'info';
      log[level]({ wakeLock: notice.state, detail: notice.detail }, 'screen wake lock');
      this.emitEvent({ kind: 'wake-lock', state: notice.state, ...(notice.detail !== undefined ? { detail: notice.detail } : {}) });
    });
    await page.evaluateOnNewDocument(kioskPageScript, {
      gatewayOrigin: this.displayUrl.origin,
      tokenStorageKey: tokenStorageKey(this.config.displayId),
      token: this.config.displayToken,
      noticeBinding: NOTICE_BINDING,
    });
    page.once('close', () => run.end('page-closed'));
    run.crashSession = await page.createCDPSession();
  }

  /** Load, watch, reload: returns only when reloading no longer helps. */
  private async keepPageAlive(run: BrowserRun, log: Logger): Promise<RelaunchReason> {
    let reloadsWithoutBeat = 0;
    for (;;) {
      await this.loadDisplayPage(run, log);
      const reason = await this.watchPage(run);
      reloadsWithoutBeat = run.beatsSinceLoad === 0 ? reloadsWithoutBeat + 1 : 0;
      log.warn({ reason, beatsSinceLoad: run.beatsSinceLoad, reloadsWithoutBeat }, 'reloading the display page');
      if (reloadsWithoutBeat >= this.config.watchdog.reloadsBeforeRelaunch) return 'page-keeps-failing';
      this.emitEvent({ kind: 'reload', reason });
      // A page that hangs cannot be navigated (the navigation waits on its main
      // thread); Page.crash is served on the renderer's IO thread, so it works.
      if (reason === 'heartbeat-missed' && !(await this.crashPage(run, log))) return 'page-unresponsive';
    }
  }

  /** Shows the waiting screen until the gateway answers, then navigates to the display page. */
  private async loadDisplayPage(run: BrowserRun, log: Logger): Promise<void> {
    const { watchdog } = this.config;
    const backoff = new Backoff(watchdog.gatewayRetryInitialMs, watchdog.gatewayRetryMaxMs);
    for (;;) {
      if (run.isEnded()) throw new Stopping();
      const probe = await probeGateway({ gateway: this.config.gateway, pins: this.options.pins, timeoutMs: watchdog.gatewayProbeTimeoutMs });
      let problem: string;
      if (probe.ok) {
        run.beatsSinceLoad = 0;
        run.loadedAt = Date.now();
        try {
          // the output as it is now: a panel swapped or rotated since the last load is reported as it is
          const url = withOutput(this.displayUrl, await readXOutput(this.env));
          const response = await run.page.goto(url.href, { waitUntil: 'domcontentloaded', timeout: watchdog.firstHeartbeatTimeoutMs });
          if (response === null || response.ok()) {
            run.loadedAt = Date.now();
            log.info({ url: url.href }, 'display page loaded');
            this.emitEvent({ kind: 'page-loaded', url: url.href });
            return;
          }
          problem = `the gateway answered HTTP ${response.status()} for the display page`;
        } catch (error) {
          if (run.isEnded()) throw new Stopping();
          problem = (error as Error).message.split(' at ')[0]?.trim() ?? 'the display page did not load';
        }
      } else {
        problem = probe.problem;
      }
      const retryInMs = backoff.next();
      if (backoff.attempts === 1 || backoff.attempts % 10 === 0) log.warn({ problem, retryInMs, attempt: backoff.attempts }, 'gateway does not answer; showing the waiting screen');
      await this.showWaitingScreen(run, problem, retryInMs, log);
      this.emitEvent({ kind: 'waiting-for-gateway', problem, retryInMs });
      await this.pause(retryInMs, run.signal);
    }
  }

  private async showWaitingScreen(run: BrowserRun, problem: string, retryInMs: number, log: Logger): Promise<void> {
    try {
      if (run.page.url() !== this.waitingUrl) await run.page.goto(this.waitingUrl, { waitUntil: 'load', timeout: 10_000 });
      const retryAt = Date.now() + retryInMs;
      await withTimeout(run.page.evaluate((status) => {
        (window as unknown as { lanternaWaiting?: WaitingPageUpdate }).lanternaWaiting?.(status);
      }, { problem, retryAt }), 5000, 'waiting screen update');
    } catch (error) {
      if (run.isEnded()) throw new Stopping();
      log.warn({ err: error, phase: 'waiting-screen' }, 'could not show the waiting screen');
    }
  }

  /** Resolves with the first reason to reload: a crash, an error page, or heartbeats that stopped. */
  private watchPage(run: BrowserRun): Promise<ReloadReason> {
    const { page } = run;
    const { heartbeatTimeoutMs, firstHeartbeatTimeoutMs } = this.config.watchdog;
    return new Promise((resolve, reject) => {
      const finish = (outcome: ReloadReason | Stopping): void => {
        clearInterval(clock);
        page.off('error', onCrash);
        page.off('framenavigated', onNavigated);
        run.signal.removeEventListener('abort', onAbort);
        if (outcome instanceof Stopping) reject(outcome);
        else resolve(outcome);
      };
      const onCrash = (): void => finish('renderer-crashed');
      const onNavigated = (frame: { url(): string; parentFrame(): unknown }): void => {
        if (frame.parentFrame() === null && frame.url().startsWith('chrome-error://')) finish('error-page');
      };
      const onAbort = (): void => finish(new Stopping());
      const clock = setInterval(() => {
        const now = Date.now();
        const silentFor = run.beatsSinceLoad === 0 ? now - run.loadedAt : now - run.lastBeatAt;
        const allowed = run.beatsSinceLoad === 0 ? firstHeartbeatTimeoutMs : heartbeatTimeoutMs;
        if (silentFor > allowed) finish('heartbeat-missed');
      }, WATCH_TICK_MS);
      page.on('error', onCrash);
      page.on('framenavigated', onNavigated);
      if (run.isEnded()) onAbort();
      else run.signal.addEventListener('abort', onAbort, { once: true });
      if (page.url().startsWith('chrome-error://')) finish('error-page');
    });
  }

  /**
   * Crashes a hung page so that it can be loaded again: Page.crash over the
   * session attached while the page was healthy (a session attached to a hung
   * page never comes up: attaching needs the page's main thread, while
   * Page.crash itself is served on the renderer's IO thread), then, if
   * Chromium reports no crash, SIGKILL to the browser's renderer processes
   * (one window: they are the page's, and spares). False when neither works.
   */
  private async crashPage(run: BrowserRun, log: Logger): Promise<boolean> {
    const crashReported = (): { promise: Promise<boolean>; settle: (crashed: boolean) => void } => {
      let settle: (crashed: boolean) => void = () => undefined;
      const promise = new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => settle(false), CRASH_REPORT_MS);
        const onCrash = (): void => settle(true);
        settle = (value) => {
          clearTimeout(timer);
          run.page.off('error', onCrash);
          resolve(value);
        };
        run.page.once('error', onCrash);
      });
      return { promise, settle };
    };
    const asked = crashReported();
    // A crash never answers; only the target's crash event tells. A renderer
    // that died already (between load and watch) is refused as crashed.
    run.crashSession?.send('Page.crash').catch((error: unknown) => {
      if (/crashed/i.test(String(error))) asked.settle(true);
    });
    if (await asked.promise) return true;
    if (run.isEnded()) return false; // the browser is being replaced anyway
    const renderers = familyMembersWith(run.chromium.pid, '--type=renderer');
    log.warn({ phase: 'crash-page', renderers }, 'the hung page did not crash when asked; killing its renderer');
    const killed = crashReported();
    for (const pid of renderers) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch { /* ended meanwhile */ }
    }
    const result = await killed.promise;
    if (!result && !run.isEnded()) log.error({ phase: 'crash-page' }, 'the hung page did not crash');
    return result;
  }
}
