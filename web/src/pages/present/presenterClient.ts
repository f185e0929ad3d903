// The presenter API (docs/presenter-api.md) from the page: every answer is
// read with the protocol package's schemas, every write carries the
// presenter header, and a refusal comes back as the gateway's code.
import {
  displayListingSchema,
  laserPointsSchema,
  PRESENTER_REQUEST_HEADER,
  PRESENTER_STOP_TOKEN_HEADER,
  presenterRefusalSchema,
  projectionStartedSchema,
  projectionStatusSchema,
  type DisplayListing,
  type LaserPoints,
  type PresenterRefusal,
  type ProjectionChange,
  type ProjectionRequestBody,
  type ProjectionStarted,
  type ProjectionStatus,
} from '@lanterna/protocol';

export type ApiResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly refusal: PresenterRefusal };

/** What the page says when the gateway did not answer at all (not one of the gateway's codes). */
export const UNREACHABLE = 'unreachable';

interface Schema<T> { safeParse(value: unknown): { success: true; data: T } | { success: false } }

async function call<T>(path: string, init: RequestInit, schema: Schema<T>): Promise<ApiResult<T>> {
  let response: Response;
  try {
    response = await fetch(path, { ...init, cache: 'no-store', credentials: 'omit' });
  } catch {
    return { ok: false, refusal: { code: UNREACHABLE, message: 'the gateway did not answer' } };
  }
  const body: unknown = await response.json().catch(() => undefined);
  if (response.ok) {
    const parsed = schema.safeParse(body);
    if (parsed.success) return { ok: true, value: parsed.data };
    return { ok: false, refusal: { code: 'internal', message: 'the gateway answered something this page does not understand' } };
  }
  const refusal = presenterRefusalSchema.safeParse(body);
  if (refusal.success) return { ok: false, refusal: refusal.data };
  return { ok: false, refusal: { code: response.status === 429 ? 'rate-limited' : 'internal', message: `http ${response.status}` } };
}

const projectionPath = (displayId: string): string => `/v1/displays/${encodeURIComponent(displayId)}/projection`;

export function listDisplays(): Promise<ApiResult<DisplayListing>> {
  return call('/v1/displays', {}, displayListingSchema);
}

export function startProjection(displayId: string, body: ProjectionRequestBody): Promise<ApiResult<ProjectionStarted>> {
  return call(projectionPath(displayId), {
    method: 'POST',
    headers: { 'content-type': 'application/json', [PRESENTER_REQUEST_HEADER]: '1' },
    body: JSON.stringify(body),
  }, projectionStartedSchema);
}

/** The projection's state; with `since` (the last answer's tag) the gateway answers at the next change or after `waitMs`. */
export function projectionStatus(displayId: string, stopToken: string, follow: { since?: string | undefined; waitMs?: number; signal?: AbortSignal } = {}): Promise<ApiResult<ProjectionStatus>> {
  const query = follow.since === undefined ? '' : `?since=${encodeURIComponent(follow.since)}&waitMs=${String(follow.waitMs ?? 0)}`;
  return call(`${projectionPath(displayId)}${query}`, { headers: { [PRESENTER_STOP_TOKEN_HEADER]: stopToken }, ...(follow.signal === undefined ? {} : { signal: follow.signal }) }, projectionStatusSchema);
}

/** The presenter's permission for people at the display to control the computer (issue 30): on or off, at once. */
export function setProjectionTouch(displayId: string, stopToken: string, touch: boolean): Promise<ApiResult<ProjectionStatus>> {
  return call(projectionPath(displayId), {
    method: 'PATCH',
    headers: { 'content-type': 'application/json', [PRESENTER_REQUEST_HEADER]: '1', [PRESENTER_STOP_TOKEN_HEADER]: stopToken },
    body: JSON.stringify({ touch } satisfies ProjectionChange),
  }, projectionStatusSchema);
}

/** Where fingers touched this presenter's picture at the display since `after` (issue 30); waits up to `waitMs` for news. */
export function laserPoints(displayId: string, stopToken: string, after: number, waitMs: number): Promise<ApiResult<LaserPoints>> {
  return call(`${projectionPath(displayId)}/laser?after=${String(after)}&waitMs=${String(waitMs)}`, { headers: { [PRESENTER_STOP_TOKEN_HEADER]: stopToken } }, laserPointsSchema);
}

export function stopProjection(displayId: string, stopToken: string): Promise<ApiResult<ProjectionStatus>> {
  return call(projectionPath(displayId), {
    method: 'DELETE',
    headers: { [PRESENTER_REQUEST_HEADER]: '1', [PRESENTER_STOP_TOKEN_HEADER]: stopToken },
  }, projectionStatusSchema);
}
