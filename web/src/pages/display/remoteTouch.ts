// Touch and mouse on the picture, to the presenter's computer (issue 30): one
// finger (or the mouse) on a source whose presenter allowed control becomes
// RDP mouse input of that source's session — a tap is move + left button
// down and up, a drag moves with the button held, the mouse wheel and a
// two-finger swipe scroll — at the desktop pixel under it (touchMapping.ts: slot and letterbox). While
// the presenter's permission is off, nothing is sent from here; the gateway
// drops input anyway (the page is not trusted with that decision: README
// "Ink and touch"). When the ink layer is open its canvas lies over the
// picture and takes the touches: they are ink, never input.
//
// Where the source's server offers RDPEI (the session worker says so: Windows'
// RDP server does; none runnable here but Lanterna's own browser presenter,
// whose shares are not controlled) each finger is its own contact instead,
// sent as it goes down, moves and lifts: real multi-touch, with the panel's
// pressure where it gives one. Mouse and pen stay mouse input.
//
// A browser presenter's computer cannot be controlled (a browser cannot move
// its pointer): there a finger is a laser pointer instead — a red dot and
// trail drawn here, and its place on the picture sent to the gateway, which
// relays it to the presenter's page.
import { LaserTrail } from '../../laser/laserTrail.js';
import type { TouchKind } from '../../session/rdpClientEngine.js';
import { canvasPoint, desktopPoint, inSlot, pictureFraction, type Size, type SlotFraction } from './touchMapping.js';

/** FreeRDP's PTR_FLAGS_* (MS-RDPBCGR 2.2.8.1.1.3.1.1.3, TS_POINTER_EVENT). */
export const PTR_FLAGS = { WHEEL_NEGATIVE: 0x0100, WHEEL: 0x0200, MOVE: 0x0800, BUTTON1: 0x1000, DOWN: 0x8000 } as const;

/** One source as touch sees it. */
export interface TouchTarget {
  readonly slot: number;
  /** Its place on the panel (null: the whole canvas). */
  readonly rect: SlotFraction | null;
  /** The desktop the server sends (null until the first picture). */
  readonly desktop: Size | null;
  /** Its presenter lets the display control the computer. */
  readonly allowed: boolean;
  send(flags: number, x: number, y: number): void;
  /** Its server has RDPEI open: one change of a finger's contact (pointer id, desktop pixel, pressure 0–1024 where known). */
  readonly multiTouch?: ((kind: TouchKind, id: number, x: number, y: number, pressure?: number) => void) | undefined;
  /** A browser presenter's source: a finger is a laser pointer (fractions of the picture), never input. */
  readonly laser?: ((x: number, y: number, down: boolean) => void) | undefined;
}

export interface RemoteTouchDeps {
  targets(): readonly TouchTarget[];
  /** The ink layer is open: touches are ink. */
  inkOpen(): boolean;
}

/** One wheel notch as RDP counts it (120 per detent, as Windows does). */
const WHEEL_STEP = 120;
/** The laser's place goes to the gateway at most this often (it drops faster ones); a lift always goes. */
const LASER_SEND_MS = 20;
/**
 * A finger's press waits this long, or until it moves TOUCH_SLOP_PX, before
 * its button goes down: a second finger within it makes the two a scroll,
 * with no click (the pointer has moved there already: only the button waits).
 */
const PRESS_WAIT_MS = 150;
const TOUCH_SLOP_PX = 8;
/** Two fingers moving this far together (CSS px) scroll one wheel notch. */
const SCROLL_STEP_PX = 40;

/** A touch press not yet sent as a button: it may still become a two-finger scroll. */
interface PendingPress { timer: number; clientX: number; clientY: number }
/** Two fingers scrolling a source: where their middle was when the last notch went. */
interface Scroll { slot: number; fingers: Map<number, { x: number; y: number }>; lastY: number }

export class RemoteTouch {
  /** The finger or mouse button down on a source now, and where it last was on that source's desktop. */
  private active: { pointerId: number; slot: number; x: number; y: number; pending?: PendingPress | undefined } | null = null;
  /** Two fingers scrolling now (until both have lifted). */
  private scroll: Scroll | null = null;
  /** The finger pointing at a browser presenter's picture now, and when its place was last sent. */
  private pointing: { pointerId: number; slot: number; sentAt: number; x: number; y: number } | null = null;
  private readonly trail: LaserTrail;
  /** Fingers down as RDPEI contacts now (multi-touch), each where it last was on its source's desktop. */
  private readonly contacts = new Map<number, { slot: number; x: number; y: number }>();

  constructor(private readonly canvas: HTMLCanvasElement, private readonly deps: RemoteTouchDeps) {
    const layer = document.createElement('div');
    layer.className = 'laser-layer';
    layer.style.cssText = 'position:fixed;inset:0;pointer-events:none';
    document.body.append(layer);
    this.trail = new LaserTrail(layer, 'laser-trail');
    canvas.addEventListener('pointerdown', (event) => this.down(event));
    canvas.addEventListener('pointermove', (event) => this.move(event));
    canvas.addEventListener('pointerup', (event) => this.up(event));
    canvas.addEventListener('pointercancel', (event) => this.up(event));
    canvas.addEventListener('wheel', (event) => this.wheel(event), { passive: true });
  }

  private locate(event: { clientX: number; clientY: number }, only?: number): { target: TouchTarget; x: number; y: number } | null {
    const size = { width: this.canvas.width, height: this.canvas.height };
    const point = canvasPoint(event.clientX, event.clientY, this.canvas.getBoundingClientRect(), size);
    for (const target of this.deps.targets()) {
      if (only !== undefined ? target.slot !== only : !inSlot(point, size, target.rect)) continue;
      if (!target.allowed || target.desktop === null) return null;
      const at = desktopPoint(point, size, target.rect, target.desktop);
      return at === null ? null : { target, ...at };
    }
    return null;
  }

  private send(target: TouchTarget, flags: number, x: number, y: number): void {
    target.send(flags, x, y);
    // Instrumentation hook: tests see what the page sent, and where.
    window.dispatchEvent(new CustomEvent('lanterna:touch-sent', { detail: { slot: target.slot, flags, x, y } }));
  }

  /** A browser presenter's source under the point, and where on its picture (fractions). */
  private locateLaser(event: { clientX: number; clientY: number }, only?: number): { target: TouchTarget; x: number; y: number } | null {
    const size = { width: this.canvas.width, height: this.canvas.height };
    const point = canvasPoint(event.clientX, event.clientY, this.canvas.getBoundingClientRect(), size);
    for (const target of this.deps.targets()) {
      if (only !== undefined ? target.slot !== only : !inSlot(point, size, target.rect)) continue;
      if (target.laser === undefined || target.desktop === null) return null;
      const at = pictureFraction(point, size, target.rect, target.desktop);
      return at === null ? null : { target, ...at };
    }
    return null;
  }

  private point(event: PointerEvent, phase: 'down' | 'move' | 'up'): boolean {
    const pointing = this.pointing;
    if (phase === 'down') {
      if (pointing !== null || !event.isPrimary || this.deps.inkOpen()) return false;
      const found = this.locateLaser(event);
      if (found === null) return false;
      this.pointing = { pointerId: event.pointerId, slot: found.target.slot, sentAt: performance.now(), x: found.x, y: found.y };
      this.canvas.setPointerCapture(event.pointerId);
      this.trail.add(event.clientX, event.clientY, true);
      this.sendLaser(found.target, found.x, found.y, true);
      return true;
    }
    if (pointing?.pointerId !== event.pointerId) return false;
    const found = this.locateLaser(event, pointing.slot);
    const lifted = phase === 'up';
    if (lifted) this.pointing = null;
    if (found === null) {
      if (lifted) {
        this.trail.add(event.clientX, event.clientY, false);
        const target = this.deps.targets().find((entry) => entry.slot === pointing.slot);
        if (target) this.sendLaser(target, pointing.x, pointing.y, false);
      }
      return true;
    }
    pointing.x = found.x;
    pointing.y = found.y;
    this.trail.add(event.clientX, event.clientY, !lifted);
    const now = performance.now();
    if (lifted || now - pointing.sentAt >= LASER_SEND_MS) {
      pointing.sentAt = now;
      this.sendLaser(found.target, found.x, found.y, !lifted);
    }
    return true;
  }

  private sendLaser(target: TouchTarget, x: number, y: number, down: boolean): void {
    target.laser?.(x, y, down);
    // Instrumentation hook: tests see where the page pointed.
    window.dispatchEvent(new CustomEvent('lanterna:laser-sent', { detail: { slot: target.slot, x, y, down } }));
  }

  private sendContact(target: TouchTarget, kind: TouchKind, id: number, x: number, y: number, pressure?: number): void {
    target.multiTouch?.(kind, id, x, y, pressure);
    // Instrumentation hook: tests see the contacts the page sent.
    window.dispatchEvent(new CustomEvent('lanterna:multitouch-sent', { detail: { slot: target.slot, kind, id, x, y, pressure } }));
  }

  /**
   * A finger on a source whose server has RDPEI: a contact of its own (every
   * finger of one gesture stays on the first one's source). True when the
   * event was this.
   */
  private contactDown(event: PointerEvent): boolean {
    if (event.pointerType !== 'touch' || this.active !== null || this.scroll !== null || this.deps.inkOpen()) return false;
    const first = this.contacts.values().next();
    const found = this.locate(event, first.done === true ? undefined : first.value.slot);
    if (found?.target.multiTouch === undefined) return this.contacts.size > 0;
    this.contacts.set(event.pointerId, { slot: found.target.slot, x: found.x, y: found.y });
    this.canvas.setPointerCapture(event.pointerId);
    this.sendContact(found.target, 'down', event.pointerId, found.x, found.y, pressureOf(event));
    return true;
  }

  private contactMove(event: PointerEvent): boolean {
    const contact = this.contacts.get(event.pointerId);
    if (contact === undefined) return false;
    // a finger that leaves the picture stays where it was last on it
    const found = this.locate(event, contact.slot);
    if (found === null || (found.x === contact.x && found.y === contact.y)) return true;
    contact.x = found.x;
    contact.y = found.y;
    this.sendContact(found.target, 'move', event.pointerId, found.x, found.y, pressureOf(event));
    return true;
  }

  private contactUp(event: PointerEvent): boolean {
    const contact = this.contacts.get(event.pointerId);
    if (contact === undefined) return false;
    this.contacts.delete(event.pointerId);
    const target = this.deps.targets().find((entry) => entry.slot === contact.slot);
    // always lifted, also after a revoke: FreeRDP's channel repeats a held contact every
    // 20 ms until it goes up, so a finger left down would go on pressing
    if (target !== undefined) this.sendContact(target, event.type === 'pointercancel' ? 'cancel' : 'up', event.pointerId, contact.x, contact.y);
    return true;
  }

  private down(event: PointerEvent): void {
    if (this.point(event, 'down')) return;
    if (this.contactDown(event)) return;
    if (this.secondFinger(event)) return;
    if (this.active !== null || this.scroll !== null || !event.isPrimary || event.button !== 0 || this.deps.inkOpen()) return;
    const found = this.locate(event);
    if (found === null) return;
    this.active = { pointerId: event.pointerId, slot: found.target.slot, x: found.x, y: found.y };
    this.canvas.setPointerCapture(event.pointerId);
    this.send(found.target, PTR_FLAGS.MOVE, found.x, found.y);
    if (event.pointerType !== 'touch') {
      this.send(found.target, PTR_FLAGS.BUTTON1 | PTR_FLAGS.DOWN, found.x, found.y);
      return;
    }
    const timer = window.setTimeout(() => this.press(), PRESS_WAIT_MS);
    this.active.pending = { timer, clientX: event.clientX, clientY: event.clientY };
  }

  /** The waiting touch press goes down where the finger first was (it stayed a press, not a scroll). */
  private press(): void {
    const active = this.active;
    if (active?.pending === undefined) return;
    window.clearTimeout(active.pending.timer);
    active.pending = undefined;
    const target = this.deps.targets().find((entry) => entry.slot === active.slot);
    if (target?.allowed === true) this.send(target, PTR_FLAGS.BUTTON1 | PTR_FLAGS.DOWN, active.x, active.y);
  }

  /**
   * A second finger while the first one's press still waits: the two scroll
   * that source (no button is sent). Anything else a second finger does is
   * ignored. True when the event was this.
   */
  private secondFinger(event: PointerEvent): boolean {
    const scroll = this.scroll;
    if (scroll !== null) {
      if (event.pointerType === 'touch' && scroll.fingers.size < 2) scroll.fingers.set(event.pointerId, { x: event.clientX, y: event.clientY });
      return true;
    }
    const active = this.active;
    if (event.pointerType !== 'touch' || active?.pending === undefined || event.pointerId === active.pointerId) return false;
    window.clearTimeout(active.pending.timer);
    const first = { x: active.pending.clientX, y: active.pending.clientY };
    const fingers = new Map([[active.pointerId, first], [event.pointerId, { x: event.clientX, y: event.clientY }]]);
    this.scroll = { slot: active.slot, fingers, lastY: (first.y + event.clientY) / 2 };
    this.active = null;
    this.canvas.setPointerCapture(event.pointerId);
    return true;
  }

  /** Two fingers moved: a wheel notch for each SCROLL_STEP_PX their middle went, at the desktop point under it. */
  private scrollMove(event: PointerEvent): boolean {
    const scroll = this.scroll;
    if (scroll === null) return false;
    const finger = scroll.fingers.get(event.pointerId);
    if (finger === undefined) return true;
    finger.x = event.clientX;
    finger.y = event.clientY;
    if (scroll.fingers.size < 2) return true;
    const [one, two] = [...scroll.fingers.values()];
    if (one === undefined || two === undefined) return true;
    const middle = { clientX: (one.x + two.x) / 2, clientY: (one.y + two.y) / 2 };
    const found = this.locate(middle, scroll.slot);
    while (Math.abs(middle.clientY - scroll.lastY) >= SCROLL_STEP_PX) {
      // fingers going up push the content up: the page below comes into view, as a wheel turned towards you
      const towardsYou = middle.clientY < scroll.lastY;
      scroll.lastY += towardsYou ? -SCROLL_STEP_PX : SCROLL_STEP_PX;
      if (found !== null) this.send(found.target, wheelFlags(towardsYou), found.x, found.y);
    }
    return true;
  }

  private move(event: PointerEvent): void {
    if (this.point(event, 'move')) return;
    if (this.contactMove(event)) return;
    if (this.scrollMove(event)) return;
    const active = this.active;
    if (active?.pointerId !== event.pointerId) return;
    const pending = active.pending;
    if (pending !== undefined) {
      // a finger that moves is a drag: its press goes down where it started, then it moves
      if (Math.hypot(event.clientX - pending.clientX, event.clientY - pending.clientY) < TOUCH_SLOP_PX) return;
      this.press();
    }
    // a drag that leaves the picture stops moving the pointer there; it is released where it was last
    const found = this.locate(event, active.slot);
    if (found === null || (found.x === active.x && found.y === active.y)) return;
    active.x = found.x;
    active.y = found.y;
    this.send(found.target, PTR_FLAGS.MOVE, found.x, found.y);
  }

  private up(event: PointerEvent): void {
    if (this.point(event, 'up')) return;
    if (this.contactUp(event)) return;
    const scroll = this.scroll;
    if (scroll !== null) {
      scroll.fingers.delete(event.pointerId);
      if (scroll.fingers.size === 0) this.scroll = null;
      return;
    }
    const active = this.active;
    if (active?.pointerId !== event.pointerId) return;
    // a tap: its press goes down now, and up at once
    if (active.pending !== undefined) this.press();
    this.active = null;
    const target = this.deps.targets().find((entry) => entry.slot === active.slot);
    // revoked meanwhile: nothing more is sent (the gateway would drop it too)
    if (target?.allowed === true) this.send(target, PTR_FLAGS.BUTTON1, active.x, active.y);
  }

  private wheel(event: WheelEvent): void {
    if (this.deps.inkOpen() || event.deltaY === 0) return;
    const found = this.locate(event);
    if (found === null) return;
    this.send(found.target, wheelFlags(event.deltaY > 0), found.x, found.y);
  }
}

/**
 * A finger's pressure as RDPEI carries it (0–1024), where the panel gives
 * one: browsers report 0.5 for a touch whose hardware measures none.
 */
export function pressureOf(event: { pressure: number }): number | undefined {
  return event.pressure > 0 && event.pressure !== 0.5 ? Math.round(Math.min(1, event.pressure) * 1024) : undefined;
}

/**
 * One wheel notch: towards the user (deltaY > 0, the page scrolls down) is a
 * negative rotation in RDP, a 9-bit two's complement beside WHEEL_NEGATIVE.
 */
export function wheelFlags(towardsYou: boolean): number {
  const flags = towardsYou ? PTR_FLAGS.WHEEL | PTR_FLAGS.WHEEL_NEGATIVE | (0x200 - WHEEL_STEP) : PTR_FLAGS.WHEEL | WHEEL_STEP;
  return flags & 0xffff;
}
