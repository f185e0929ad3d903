// Words and numbers for the admin page: pure functions, no DOM. The API keeps
// raw values (milliseconds, bytes, codes); this is where a person's words for
// them are made, once.
import { sentenceForCode } from '@lanterna/protocol';

type Detail = Readonly<Record<string, string | number | boolean>>;

/** Bytes in decimal units, as people read disk and network sizes: "980 B", "1.2 MB". */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${Math.round(bytes)} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 999.5 && unit < units.length - 1) { value /= 1000; unit += 1; }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit] ?? ''}`;
}

/** How long something ran, to the second: "42 s", "3 min 05 s", "2 h 07 min". */
export function formatDuration(ms: number | undefined): string {
  if (ms === undefined) return '—';
  const seconds = Math.floor(ms / 1000);
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return h > 0 ? `${h} h ${String(m).padStart(2, '0')} min` : m > 0 ? `${m} min ${String(s).padStart(2, '0')} s` : `${s} s`;
}

/** A short time, to the hundredth under 10 s ("0.67 s", "4.2 s"), else as formatDuration. */
export function formatSeconds(ms: number): string {
  if (ms < 10_000) return `${Number((ms / 1000).toPrecision(2))} s`;
  return formatDuration(ms);
}

/** A rate per second, whole above 10, one decimal below ("7.5", "24", "130"). */
export function formatRate(perSecond: number): string {
  return perSecond >= 10 || Number.isInteger(perSecond) ? String(Math.round(perSecond)) : perSecond.toFixed(1);
}

export function formatTime(at: number, now = Date.now()): string {
  const date = new Date(at);
  const sameDay = new Date(now).toDateString() === date.toDateString();
  const time = date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  return sameDay ? time : `${date.toLocaleDateString()} ${time}`;
}

/** How long ago, in a person's words: "just now", "5 min ago", "3 h ago", "12 days ago". */
export function formatAgo(at: number, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - at) / 1000));
  if (seconds < 60) return 'just now';
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.floor(hours / 24)} days ago`;
}

const actionWords: Record<string, string> = {
  'display-created': 'display created', 'display-renamed': 'display renamed', 'display-moved': 'display moved', 'display-resized': 'display desktop changed',
  'display-deleted': 'display deleted', 'display-token-rotated': 'display token replaced',
  'projection-requested': 'projection requested', 'projection-refused': 'projection refused', 'projection-started': 'projection started',
  'projection-ended': 'projection ended', 'projection-resumed': 'projection resumed on another gateway',
  'session-ended-by-admin': 'session ended by an admin', 'pin-changed': 'certificate changed', 'pin-cleared': 'pin cleared',
  // A room's decisions (issue 29): each entry's detail carries its sentence in `words`.
  'room-request-queued': 'request waits', 'room-request-accepted': 'request on screen', 'room-request-declined': 'request declined',
  'room-request-withdrawn': 'request withdrawn', 'room-slot-taken-over': 'slot taken over', 'room-source-ended': 'source ended',
  'room-layout-changed': 'layout changed', 'room-mode-changed': 'moderation changed', 'room-host-changed': 'host changed',
  'sound-changed': 'volume or mute changed',
  'touch-allowed': 'presenter allowed control from the display', 'touch-revoked': 'presenter revoked control from the display',
};

export function actionWord(action: string): string {
  return actionWords[action] ?? action;
}

/** Why a session ended (SessionRecord.endReason): the relay's own ends, else an error code's sentence. */
const endWords: Record<string, string> = {
  'server-closed': 'the presenter’s computer closed the connection',
  'client-closed': 'the display closed it',
  stopped: 'it was stopped (by an administrator, the presenter, or a newer projection)',
  'gateway-shutdown': 'the gateway was shutting down',
  expired: 'the display never opened it',
  'gateway-lost': 'the gateway relaying it stopped answering',
};

function endWord(reason: string): string {
  if (Object.hasOwn(endWords, reason)) return endWords[reason] ?? reason;
  // An error code: the display's own sentence for it, as a clause.
  const sentence = sentenceForCode(reason).replace(/\.$/, '');
  return sentence.charAt(0).toLowerCase() + sentence.slice(1);
}

const viaWords: Record<string, string> = {
  presenter: 'from the presenter page', wsd: 'over WS-Discovery (Network Projector)', admin: 'from the admin API',
  signage: 'as the display’s signage', resume: 'to resume a lost session',
};

const quoted = (value: string | number | boolean): string => `“${String(value)}”`;

/** A refusal's reason as a sentence: capitalised and ending with a full stop. */
function sentence(text: string): string {
  const trimmed = text.trim();
  if (trimmed === '') return '';
  const capital = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

/** One audit entry's details in a person's words; keys this page does not know are shown as they are. */
export function detailText(action: string, detail: Detail | undefined): string {
  if (!detail) return '';
  const rest = new Map(Object.entries(detail));
  const take = (key: string): string | number | boolean | undefined => {
    const value = rest.get(key);
    rest.delete(key);
    return value;
  };
  const parts: string[] = [];
  // The room's entries say it in a sentence of their own; their other fields are for machines.
  const words = action.startsWith('room-') ? take('words') : undefined;
  if (typeof words === 'string') return `${words}.`;
  switch (action) {
    case 'display-created': {
      const name = take('name');
      const location = take('location');
      if (name !== undefined) parts.push(`Named ${quoted(name)}${location ? `, in ${quoted(location)}` : ''}.`);
      break;
    }
    case 'display-resized': {
      parts.push(`From ${String(take('from') ?? '')} to ${String(take('to') ?? '')}.`);
      break;
    }
    case 'display-renamed':
    case 'display-moved': {
      const from = take('from');
      const to = take('to');
      const what = action === 'display-renamed' ? 'Renamed' : 'Moved';
      if (action === 'display-moved' && !from) parts.push(`Placed in ${quoted(to ?? '')}.`);
      else if (action === 'display-moved' && !to) parts.push(`Location ${quoted(from ?? '')} removed.`);
      else parts.push(`${what} from ${quoted(from ?? '')} to ${quoted(to ?? '')}.`);
      break;
    }
    case 'sound-changed': {
      const volume = take('volume');
      const muted = take('muted');
      parts.push(`Volume ${String(volume ?? '?')} %${muted === true ? ', muted' : ''}.`);
      break;
    }
    case 'display-deleted': {
      const name = take('name');
      if (name !== undefined) parts.push(`It was named ${quoted(name)}.`);
      break;
    }
    case 'projection-requested':
    case 'projection-refused': {
      const target = take('target');
      const via = take('via');
      const pin = take('pin');
      const code = take('code');
      const reason = take('reason');
      if (target !== undefined) parts.push(`To ${String(target)}${via !== undefined ? ` ${viaWords[String(via)] ?? `via ${String(via)}`}` : ''}.`);
      else if (via !== undefined) parts.push(`Asked ${viaWords[String(via)] ?? `via ${String(via)}`}.`);
      if (pin === 'used') parts.push('The room PIN was given.');
      else if (pin === 'admin') parts.push('An administrator’s request (no PIN needed).');
      else if (pin !== undefined) rest.set('pin', pin);
      if (reason !== undefined) parts.push(sentence(String(reason)));
      else if (code !== undefined) parts.push(sentence(String(code)));
      break;
    }
    case 'projection-started': {
      const setupMs = take('setupMs');
      if (typeof setupMs === 'number') parts.push(`Set up in ${formatSeconds(setupMs)}.`);
      else if (setupMs !== undefined) rest.set('setupMs', setupMs);
      break;
    }
    case 'projection-ended': {
      const reason = take('reason');
      const seconds = take('seconds');
      const after = typeof seconds === 'number' ? ` after ${formatDuration(seconds * 1000)}` : '';
      if (reason !== undefined) parts.push(sentence(`ended${after}: ${endWord(String(reason))}`));
      else if (after) parts.push(sentence(`ended${after}`));
      break;
    }
    case 'projection-resumed': {
      const previous = take('previous');
      if (previous !== undefined) parts.push(`Takes over session ${String(previous)}, lost with its gateway.`);
      break;
    }
    case 'pin-cleared': {
      const key = take('key');
      if (key !== undefined) parts.push(`${String(key)} will be pinned again at its next session.`);
      break;
    }
    case 'pin-changed': {
      const key = take('key');
      const pinned = take('pinned');
      const seen = take('seen');
      const print = (value: string | number | boolean | undefined, otherwise: string): string => (value === undefined ? otherwise : shortFingerprint(String(value)));
      if (key !== undefined) parts.push(`${String(key)} showed ${print(seen, 'another certificate')} instead of its pinned ${print(pinned, 'one')}; refused until an administrator accepts it.`);
      break;
    }
  }
  for (const [key, value] of rest) parts.push(`${key}: ${String(value)}`);
  return parts.join(' ');
}

/** A fingerprint shortened for a table (the full one is in the cell's title). */
export function shortFingerprint(fingerprint: string): string {
  return fingerprint.length > 30 ? `${fingerprint.slice(0, 22)}…${fingerprint.slice(-8)}` : fingerprint;
}

/** A display's panel and the desktop its sessions ask for, for the displays table ("3840×2160 landscape → 3840×2160 at 200 %"). */
export function panelText(display: {
  readonly panel?: { readonly width: number; readonly height: number; readonly orientation: string; readonly devicePixelRatio: number } | undefined;
  readonly sessionDesktop?: { readonly width: number; readonly height: number; readonly desktopScale: number } | undefined;
}): string {
  if (!display.panel) return 'not reported yet';
  const { width, height, orientation, devicePixelRatio } = display.panel;
  const ratio = devicePixelRatio === 1 ? '' : ` (×${devicePixelRatio})`;
  const desktop = display.sessionDesktop ? ` → ${display.sessionDesktop.width}×${display.sessionDesktop.height} at ${display.sessionDesktop.desktopScale} %` : '';
  return `${width}×${height} ${orientation}${ratio}${desktop}`;
}

/** The admin form's desktop size field: null for blank (the panel's), the size for "W×H" or "WxH", undefined for anything else. */
export function parseDesktopSize(text: string): { width: number; height: number } | null | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  const match = /^(\d{3,4})\s*[x×]\s*(\d{3,4})$/i.exec(trimmed);
  if (!match) return undefined;
  return { width: Number(match[1]), height: Number(match[2]) };
}

/**
 * A display's state in the displays table: how many of its slots show a
 * source (issue 29), so that a room with free slots does not read as full.
 * `capacity`: how many sources its page shows at once (1 for a page without
 * slots); `sources`: occupied slots; undefined when the room is not known.
 */
export function displayStateText(online: boolean, sessionId: string | undefined, room?: { readonly capacity: number; readonly sources: number }): { text: string; tone: 'ok' | 'idle' } {
  if (!online) return { text: 'offline', tone: 'idle' };
  const capacity = room?.capacity ?? 1;
  const sources = room?.sources ?? (sessionId === undefined ? 0 : 1);
  if (sources === 0) return { text: capacity > 1 ? `online, ${capacity} sources free` : 'online', tone: 'ok' };
  if (capacity <= 1) return { text: 'showing a presentation', tone: 'ok' };
  return { text: sources >= capacity ? `full: ${sources} of ${capacity} sources` : `${sources} of ${capacity} sources showing`, tone: 'ok' };
}
