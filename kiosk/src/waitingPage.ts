// The launcher's own screen while the gateway does not answer: a page loaded
// from an unreachable gateway would be Chromium's error page, which never
// recovers. It lives in a data: URL (nothing to fetch), looks like the display
// page's reconnect screen, and counts down to the next try by itself.

export interface WaitingStatus {
  /** What the last try found ("connection refused (is the gateway running?)"). */
  readonly problem: string;
  /** Epoch ms of the next try. */
  readonly retryAt: number;
}

/** Called in the page (by evaluate) to show the latest status. */
export type WaitingPageUpdate = (status: WaitingStatus) => void;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function waitingPageHtml(displayId: string, gatewayHost: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Lanterna display — waiting for the gateway</title>
<meta name="color-scheme" content="dark">
<style>
html, body { margin: 0; width: 100%; height: 100%; overflow: hidden; background: #0b1016; cursor: none; }
body { display: flex; flex-direction: column; padding: 5vh 6vw; box-sizing: border-box; color: #f4f6f8;
  font-family: "Cantarell", "DejaVu Sans", "Noto Sans", system-ui, sans-serif;
  background: radial-gradient(ellipse at 50% 35%, #121a24 0%, #0b1016 70%); }
.brand { display: flex; align-items: center; gap: 1.2vh; font-size: 3vh; font-weight: 600; letter-spacing: .04em; color: #a9b4c0; }
.lamp { width: 2.4vh; height: 2.4vh; border-radius: 50%; background: #ffb547; box-shadow: 0 0 2.5vh #ffb547; }
.centre { flex: 1; display: flex; flex-direction: column; justify-content: center; align-items: center; text-align: center; }
.eyebrow { margin: 0 0 1vh; font-size: 3.4vh; color: #a9b4c0; text-transform: uppercase; letter-spacing: .14em; }
h1 { margin: 0; font-size: 13vh; line-height: 1.05; font-weight: 700; max-width: 90vw; overflow-wrap: anywhere; }
.footer { display: flex; flex-direction: column; align-items: center; gap: 1.5vh; }
.status { margin: 0; display: inline-flex; align-items: center; gap: 1.4vh; padding: 1.2vh 2.6vh; border-radius: 99vh; background: rgba(255,255,255,.06); font-size: 3.2vh; }
.dot { width: 1.8vh; height: 1.8vh; border-radius: 50%; background: #fbbf24; }
.problem { margin: 0; padding: 1.6vh 3vh; border-left: .8vh solid #f87171; background: rgba(248,113,113,.12); font-size: 3.2vh; line-height: 1.35; max-width: 80vw; }
</style></head>
<body>
<div class="brand"><span class="lamp"></span>Lanterna</div>
<div class="centre"><p class="eyebrow">This display is</p><h1>${escapeHtml(displayId)}</h1></div>
<div class="footer">
<p class="status" role="status"><span class="dot"></span><span id="status">Waiting for the gateway at ${escapeHtml(gatewayHost)}…</span></p>
<p class="problem" id="problem" hidden></p>
</div>
<script>
(() => {
  const status = document.getElementById('status');
  const problem = document.getElementById('problem');
  let timer = 0;
  window.lanternaWaiting = (update) => {
    clearInterval(timer);
    problem.hidden = false;
    problem.textContent = 'The gateway does not answer: ' + update.problem + '.';
    const tick = () => {
      const seconds = Math.max(0, Math.ceil((update.retryAt - Date.now()) / 1000));
      status.textContent = seconds > 0 ? 'Waiting for the gateway at ${escapeHtml(gatewayHost)} — trying again in ' + seconds + ' s…' : 'Trying the gateway at ${escapeHtml(gatewayHost)}…';
    };
    tick();
    timer = setInterval(tick, 250);
  };
})();
</script>
</body></html>
`;
}

export function waitingPageUrl(displayId: string, gatewayHost: string): string {
  return `data:text/html;base64,${Buffer.from(waitingPageHtml(displayId, gatewayHost), 'utf8').toString('base64')}`;
}
