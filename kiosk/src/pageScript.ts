// What the launcher adds to every document the kiosk window loads, before the
// document's own scripts run (puppeteer evaluateOnNewDocument):
// - the display token, into the display page's localStorage, only on the
//   gateway's origin. The token so never appears in a URL (Chromium's command
//   line, its history, the gateway's access log) and never reaches another
//   origin; it travels over the launcher's private DevTools pipe.
// - a screen wake lock, taken again whenever the page becomes visible.
// The function is serialised into the page: it may use nothing from outside.

export interface PageScriptArguments {
  readonly gatewayOrigin: string;
  readonly tokenStorageKey: string;
  readonly token: string;
  /** Name of the binding the script reports wake-lock changes through. */
  readonly noticeBinding: string;
}

export interface PageNotice {
  readonly kind: 'wake-lock';
  readonly state: 'held' | 'released' | 'failed' | 'unsupported';
  readonly detail?: string;
}

export function kioskPageScript(args: PageScriptArguments): void {
  const notify = (notice: PageNotice): void => {
    const binding = (globalThis as unknown as Record<string, unknown>)[args.noticeBinding];
    if (typeof binding === 'function') void (binding as (n: PageNotice) => Promise<unknown>)(notice).catch(() => undefined);
  };
  if (location.origin === args.gatewayOrigin) {
    try {
      localStorage.setItem(args.tokenStorageKey, args.token);
    } catch { /* storage disabled: the page says it has no token */ }
  }
  if (!('wakeLock' in navigator)) {
    // not a secure context (plain http to a non-loopback gateway), or an old browser
    if (location.protocol !== 'data:') notify({ kind: 'wake-lock', state: 'unsupported' });
    return;
  }
  let held = false;
  const take = (): void => {
    if (held || document.visibilityState !== 'visible') return;
    navigator.wakeLock.request('screen').then((lock) => {
      held = true;
      notify({ kind: 'wake-lock', state: 'held' });
      lock.addEventListener('release', () => {
        held = false;
        notify({ kind: 'wake-lock', state: 'released' });
      });
    }, (error: unknown) => notify({ kind: 'wake-lock', state: 'failed', detail: String(error) }));
  };
  document.addEventListener('visibilitychange', take);
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', take, { once: true });
  else take();
}
