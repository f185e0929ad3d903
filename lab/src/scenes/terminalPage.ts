// The terminal scene as one self-contained page, for a browser tab that is
// shared rather than an X display: the same lines as the xterm scene
// (TERMINAL_LINES), typed one character every 40 ms like its xdotool loop, in
// DejaVu Sans Mono 14 px, light grey on black, scrolling up when the page is
// full. `window.stopTyping()` holds the text where it is (a test compares a
// still picture); `document.body.dataset.typed` counts the characters typed.
import { TERMINAL_LINES } from './terminalScene.js';

export const TERMINAL_PAGE_HTML = `<!doctype html>
<html><head><meta charset="utf-8"><title>lanterna terminal</title>
<style>
html,body{margin:0;padding:0;overflow:hidden;background:#000;height:100%}
pre{margin:0;padding:4px 6px;color:#d0d0d0;font:14px/17px 'DejaVu Sans Mono',monospace;white-space:pre-wrap;word-break:break-all;position:absolute;bottom:0;left:0;right:0}
</style>
</head><body><pre id="t"></pre><script>
const lines = ${JSON.stringify(TERMINAL_LINES)};
const out = document.getElementById('t');
let text = '$ cat\\n';
let line = 0, column = 0, typed = 0, timer = 0;
function key() {
  const current = lines[line % lines.length];
  if (column < current.length) { text += current[column]; column += 1; }
  else { text += '\\n'; line += 1; column = 0; }
  // the last 200 lines are plenty for any screen
  const rows = text.split('\\n');
  if (rows.length > 200) text = rows.slice(-200).join('\\n');
  out.textContent = text + '\\u2588';
  typed += 1;
  document.body.dataset.typed = String(typed);
}
// start with a screenful already typed, as a terminal in use looks
for (let i = 0; i < 1200; i++) key();
timer = setInterval(key, 40);
window.stopTyping = () => { clearInterval(timer); out.textContent = text; };
</script></body></html>
`;
