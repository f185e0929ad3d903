// The admin page's calls to the gateway's admin API (/v1/admin, see
// /v1/openapi.json). The token travels only in the Authorization header — no
// cookie — so another site's page cannot make these calls in the admin's name.

export class AdminApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
    this.name = 'AdminApiError';
  }
}

export interface DisplaySound { volume: number; muted: boolean }
/** A display's desktop as an admin fixed it (docs/kiosk-protocol.md "The panel and the desktop"). */
export interface DesktopPreference { width?: number; height?: number; scale?: number }
export interface DisplayView {
  id: string; name: string; location?: string; managedBy: 'config' | 'api'; online: boolean; sessionId?: string;
  sound?: DisplaySound;
  desktop?: DesktopPreference;
  panel?: { width: number; height: number; orientation: string; devicePixelRatio: number };
  sessionDesktop?: { width: number; height: number; desktopScale: number; deviceScale: number };
}
export interface SessionView {
  sessionId: string; displayId: string; state: string; live: boolean; lost: boolean; presenter: string;
  target: { host: string; port: number; name?: string };
  requestedBy?: { kind: string; address?: string; name?: string };
  durationMs?: number;
  /** The relay's figures: WebSocket messages to the display per second (not pictures; `framesPerSecond` is the same count under its old name). */
  stats?: { bytesToDisplay: number; bytesToServer: number; bytesPerSecond: number; messagesPerSecond?: number; framesPerSecond: number };
  /** What the display reports it did over its last interval: frames (presents with new pixels; absent from older displays), presents, messages and bytes received. */
  shown?: { framesPerSecond?: number; presentsPerSecond: number; messagesPerSecond: number; bytesPerSecond: number; reportedAt: number; sound?: { playing: boolean; state: string; delayMs: number } };
}
/** A display's room (several sources per display): how many its page shows at once, who is in which slot, and who waits. */
export interface RoomSlotView { slot: number; sessionId: string; label: string; requestId?: string; state?: string; since?: number; host: boolean; rect: { x: number; y: number; width: number; height: number } }
export interface RoomRequestView { requestId: string; label: string; at: number; position?: number; target: string; takeOver?: boolean; requestedBy?: { kind: string; address?: string } }
export interface RoomView { displayId: string; capacity: number; mode: 'open' | 'moderated'; layout: string; large: number; hostRequestId?: string; slots: RoomSlotView[]; queue: RoomRequestView[] }
/** What the admin may change in a room (PATCH …/room). */
export interface RoomChange { mode?: 'open' | 'moderated'; layout?: string; large?: number }
export interface PinView { key: string; fingerprint: string; lastUsedAt?: number; changed?: { seen: string; at: number } }
export interface AuditView { seq: number; at: number; actor: string; action: string; displayId?: string; sessionId?: string; detail?: Record<string, string | number | boolean> }

export class AdminClient {
  constructor(private readonly token: string) {}

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(path, {
      method,
      headers: { authorization: `Bearer ${this.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? null : JSON.stringify(body),
      cache: 'no-store',
    });
    const text = await response.text();
    const parsed = text ? JSON.parse(text) as Record<string, unknown> : {};
    if (!response.ok) {
      const code = typeof parsed.code === 'string' ? parsed.code : String(response.status);
      throw new AdminApiError(response.status, code, typeof parsed.message === 'string' ? parsed.message : response.statusText);
    }
    return parsed as T;
  }

  displays(): Promise<{ displays: DisplayView[] }> { return this.call('GET', '/v1/admin/displays'); }
  createDisplay(body: { name: string; location?: string; id?: string; desktop?: DesktopPreference }): Promise<{ display: DisplayView; token: string }> { return this.call('POST', '/v1/admin/displays', body); }
  updateDisplay(id: string, body: { name?: string; location?: string; desktop?: DesktopPreference | null }): Promise<unknown> { return this.call('PATCH', `/v1/admin/displays/${encodeURIComponent(id)}`, body); }
  deleteDisplay(id: string): Promise<unknown> { return this.call('DELETE', `/v1/admin/displays/${encodeURIComponent(id)}`); }
  setSound(id: string, body: Partial<DisplaySound>): Promise<{ sound: DisplaySound }> { return this.call('PATCH', `/v1/admin/displays/${encodeURIComponent(id)}/sound`, body); }
  rotateToken(id: string): Promise<{ token: string }> { return this.call('POST', `/v1/admin/displays/${encodeURIComponent(id)}/token`); }
  room(id: string): Promise<RoomView> { return this.call('GET', `/v1/admin/displays/${encodeURIComponent(id)}/room`); }
  changeRoom(id: string, change: RoomChange): Promise<RoomView> { return this.call('PATCH', `/v1/admin/displays/${encodeURIComponent(id)}/room`, change); }
  acceptRequest(id: string, requestId: string, slot?: number): Promise<unknown> { return this.call('POST', `/v1/admin/displays/${encodeURIComponent(id)}/room/requests/${encodeURIComponent(requestId)}/accept`, slot === undefined ? {} : { slot }); }
  declineRequest(id: string, requestId: string, reason?: string): Promise<unknown> { return this.call('POST', `/v1/admin/displays/${encodeURIComponent(id)}/room/requests/${encodeURIComponent(requestId)}/decline`, reason === undefined || reason === '' ? {} : { reason }); }
  endSource(id: string, slot: number): Promise<unknown> { return this.call('DELETE', `/v1/admin/displays/${encodeURIComponent(id)}/room/slots/${String(slot)}`); }
  sessions(): Promise<{ sessions: SessionView[] }> { return this.call('GET', '/v1/admin/sessions?state=live'); }
  endSession(id: string): Promise<unknown> { return this.call('DELETE', `/v1/admin/sessions/${encodeURIComponent(id)}`); }
  pins(): Promise<{ pins: PinView[] }> { return this.call('GET', '/v1/admin/pins'); }
  clearPin(key: string): Promise<unknown> { return this.call('DELETE', `/v1/admin/pins/${encodeURIComponent(key)}`); }
  audit(before?: number): Promise<{ entries: AuditView[]; next?: number }> { return this.call('GET', `/v1/admin/audit?limit=25${before === undefined ? '' : `&before=${before}`}`); }
}
