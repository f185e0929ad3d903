// A laser pointer drawn over a picture (issue 30): where a finger touches a
// browser presenter's picture at the display, as a red dot with a short
// fading trail — on the display itself and, relayed by the gateway, over the
// presenter page's preview. Only draws: a canvas over the picture that takes
// no touch, sized to its box in device pixels, animating while a trail lasts.

/** How long a point of the trail stays visible. */
const TRAIL_MS = 700;
/** Most points kept for the trail. */
const MAX_POINTS = 128;

interface TrailPoint { x: number; y: number; down: boolean; at: number }

export class LaserTrail {
  readonly canvas: HTMLCanvasElement;
  private readonly context: CanvasRenderingContext2D;
  private readonly points: TrailPoint[] = [];
  private frame: number | null = null;

  /** `parent` must be positioned (the canvas fills it). */
  constructor(parent: HTMLElement, className: string) {
    this.canvas = document.createElement('canvas');
    this.canvas.className = className;
    this.canvas.style.cssText = 'position:absolute;inset:0;width:100%;height:100%;pointer-events:none';
    parent.append(this.canvas);
    const context = this.canvas.getContext('2d');
    if (!context) throw new Error('no 2d context for the laser pointer');
    this.context = context;
  }

  /** A point in CSS pixels of the canvas's box; down: false once the finger lifted (the dot fades). */
  add(x: number, y: number, down: boolean): void {
    this.points.push({ x, y, down, at: performance.now() });
    if (this.points.length > MAX_POINTS) this.points.splice(0, this.points.length - MAX_POINTS);
    this.frame ??= requestAnimationFrame(() => this.draw());
  }

  clear(): void {
    this.points.length = 0;
    this.context.clearRect(0, 0, this.canvas.width, this.canvas.height);
  }

  private draw(): void {
    this.frame = null;
    const box = this.canvas.getBoundingClientRect();
    const ratio = window.devicePixelRatio || 1;
    const width = Math.max(1, Math.round(box.width * ratio));
    const height = Math.max(1, Math.round(box.height * ratio));
    if (this.canvas.width !== width || this.canvas.height !== height) {
      this.canvas.width = width;
      this.canvas.height = height;
    }
    const context = this.context;
    context.clearRect(0, 0, width, height);
    const now = performance.now();
    // the trail fades; the newest point stays while the finger rests, and fades once it lifted
    while (this.points.length > 1 && now - (this.points[0]?.at ?? now) > TRAIL_MS) this.points.shift();
    const alone = this.points.length === 1 ? this.points[0] : undefined;
    if (alone && !alone.down && now - alone.at > TRAIL_MS) this.points.shift();
    const radius = Math.max(6, Math.min(box.width, box.height) * 0.012) * ratio;
    context.lineCap = 'round';
    context.lineJoin = 'round';
    for (let i = 1; i < this.points.length; i++) {
      const from = this.points[i - 1];
      const to = this.points[i];
      if (!from || !to || !from.down) continue;
      context.strokeStyle = `rgba(229, 38, 43, ${String(Math.max(0, 1 - (now - to.at) / TRAIL_MS) * 0.6)})`;
      context.lineWidth = radius;
      context.beginPath();
      context.moveTo(from.x * ratio, from.y * ratio);
      context.lineTo(to.x * ratio, to.y * ratio);
      context.stroke();
    }
    const last = this.points.at(-1);
    if (last) {
      const fade = last.down ? 1 : Math.max(0, 1 - (now - last.at) / TRAIL_MS);
      context.fillStyle = `rgba(229, 38, 43, ${String(fade)})`;
      context.shadowColor = 'rgba(255, 60, 60, 0.9)';
      context.shadowBlur = radius;
      context.beginPath();
      context.arc(last.x * ratio, last.y * ratio, radius, 0, Math.PI * 2);
      context.fill();
      context.shadowBlur = 0;
    }
    // a finger resting on the panel keeps its dot; a trail or a fading dot is drawn until it is gone
    if (this.points.length > 1 || (last !== undefined && !last.down)) this.frame = requestAnimationFrame(() => this.draw());
  }
}
