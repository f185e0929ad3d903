// Words and numbers for the admin page: pure functions, no DOM.

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) { value /= 1024; unit += 1; }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit] ?? ''}`;
}

export function formatDuration(ms: number | undefined): string {
  if (ms === undefined) return '—';
  const seconds = Math.floor(ms / 1000);
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return h > 0 ? `${h} h ${String(m).padStart(2, '0')} min` : m > 0 ? `${m} min ${String(s).padStart(2, '0')} s` : `${s} s`;
}

export function formatTime(at: number, now = Date.now()): string {
  const date = new Date(at);
  const sameDay = new Date(now).toDateString() === date.toDateString();
  const time = date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  return sameDay ? time : `${date.toLocaleDateString()} ${time}`;
}

const actionWords: Record<string, string> = {
  'display-created': 'display created', 'display-renamed': 'display renamed', 'display-moved': 'display moved',
  'display-deleted': 'display deleted', 'display-token-rotated': 'display token replaced',
  'projection-requested': 'projection requested', 'projection-refused': 'projection refused', 'projection-started': 'projection started',
  'projection-ended': 'projection ended', 'projection-resumed': 'projection resumed on another gateway',
  'session-ended-by-admin': 'session ended by an admin', 'pin-changed': 'certificate changed', 'pin-cleared': 'pin cleared',
};

export function actionWord(action: string): string {
  return actionWords[action] ?? action;
}

export function detailText(detail: Record<string, string | number | boolean> | undefined): string {
  if (!detail) return '';
  return Object.entries(detail).map(([key, value]) => `${key}: ${String(value)}`).join(', ');
}

/** A fingerprint shortened for a table (the full one is in the cell's title). */
export function shortFingerprint(fingerprint: string): string {
  return fingerprint.length > 30 ? `${fingerprint.slice(0, 22)}…${fingerprint.slice(-8)}` : fingerprint;
}
