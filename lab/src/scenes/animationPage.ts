// The "PowerPoint animation" workload as one self-contained page: a
// full-screen canvas redrawn every animation frame with a moving gradient
// background, shapes sliding and spinning, and text flying in, so most of
// the screen changes every frame. A frame counter in the title lets tests
// see that it runs.
export const ANIMATION_PAGE_HTML = `<!doctype html>
<html><head><meta charset="utf-8"><title>lanterna animation</title>
<style>html,body{margin:0;padding:0;overflow:hidden;background:#000}canvas{display:block}</style>
</head><body><canvas id="c"></canvas><script>
const canvas = document.getElementById('c');
const ctx = canvas.getContext('2d');
function resize() { canvas.width = innerWidth; canvas.height = innerHeight; }
addEventListener('resize', resize); resize();
const shapes = Array.from({ length: 24 }, (_, i) => ({
  x: (i * 197) % 1920, y: (i * 311) % 1080, vx: 3 + (i % 5) * 2, vy: 2 + (i % 3) * 3,
  size: 60 + (i % 6) * 25, hue: (i * 47) % 360, kind: i % 3,
}));
const bullets = ['Quarterly results', 'Growth in every region', 'Latency under 40 ms', 'Thousands of displays', 'Questions?'];
let frame = 0;
function draw(t) {
  const w = canvas.width, h = canvas.height;
  const g = ctx.createLinearGradient(0, 0, w, h);
  g.addColorStop(0, 'hsl(' + ((t / 40) % 360) + ',70%,25%)');
  g.addColorStop(1, 'hsl(' + ((t / 40 + 180) % 360) + ',70%,45%)');
  ctx.fillStyle = g; ctx.fillRect(0, 0, w, h);
  for (const s of shapes) {
    s.x += s.vx; s.y += s.vy;
    if (s.x < 0 || s.x > w - s.size) s.vx = -s.vx;
    if (s.y < 0 || s.y > h - s.size) s.vy = -s.vy;
    ctx.save(); ctx.translate(s.x + s.size / 2, s.y + s.size / 2); ctx.rotate(t / 700 + s.hue);
    const sg = ctx.createRadialGradient(0, 0, 4, 0, 0, s.size);
    sg.addColorStop(0, 'hsl(' + s.hue + ',100%,75%)'); sg.addColorStop(1, 'hsl(' + ((s.hue + 90) % 360) + ',100%,40%)');
    ctx.fillStyle = sg;
    ctx.beginPath();
    if (s.kind === 0) ctx.arc(0, 0, s.size / 2, 0, Math.PI * 2);
    else if (s.kind === 1) ctx.rect(-s.size / 2, -s.size / 2, s.size, s.size);
    else { ctx.moveTo(0, -s.size / 2); ctx.lineTo(s.size / 2, s.size / 2); ctx.lineTo(-s.size / 2, s.size / 2); ctx.closePath(); }
    ctx.fill(); ctx.restore();
  }
  ctx.fillStyle = '#fff'; ctx.font = 'bold 72px DejaVu Sans, sans-serif';
  ctx.fillText('Lanterna animation', 80 + Math.sin(t / 900) * 60, 140);
  ctx.font = '44px DejaVu Sans, sans-serif';
  bullets.forEach((b, i) => {
    const slide = Math.max(0, 1 - ((t / 1000 - i * 0.6) % 6));
    ctx.fillText('\\u2022 ' + b, 120 - slide * w, 280 + i * 90);
  });
  ctx.font = '28px DejaVu Sans Mono, monospace';
  ctx.fillText('frame ' + frame, w - 320, h - 40);
  frame += 1;
  document.title = 'lanterna animation ' + frame;
  requestAnimationFrame(draw);
}
requestAnimationFrame(draw);
</script></body></html>
`;
