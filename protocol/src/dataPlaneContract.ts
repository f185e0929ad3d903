// The Node ↔ Go data-plane contract (docs/native-data-plane.md, "RPC") on
// Node's side, as schemas: what the data plane sends is read through them
// (a message off the contract is one clear error, never a field read as
// `undefined` further on), and what Node sends is typed by them. Go's side is
// gateway/dataplane/internal/rpc/messages.go; both sides are held to the same
// examples, ../contract/dataPlaneContract.json (Go round-trips each through
// its types, rejecting unknown fields; Node parses each with the schema of its
// op, strict). zod/mini, as the rest of this package (the page bundles it).
import { z } from 'zod/mini';

const text = z.string();
const count = z.int().check(z.minimum(0));
const fields = z.record(z.string(), z.unknown());

// ── The data plane's requests (Go → Node) and Node's answers ──

export const admitRequestSchema = z.strictObject({ host: text, origin: z.optional(text), clientAddress: text });
/** 0 lets the upgrade go on; 421, 403 or 503 refuse it with that status. */
export const admitAnswerSchema = z.strictObject({ status: z.union([z.literal(0), z.literal(421), z.literal(403), z.literal(503)]) });

export const openRequestSchema = z.strictObject({ sessionId: text, token: text, clientAddress: text });
/** `presenter`: a browser source, whose server leg is its presenter page's socket. */
export const openAnswerSchema = z.strictObject({ displayId: text, presenter: z.optional(z.boolean()) });

/** A presenter page's first message (absent when it sent binary). */
export const presentRequestSchema = z.strictObject({ sessionId: text, message: z.optional(text), clientAddress: text });
export const presentAnswerSchema = z.strictObject({ waitMs: count, certificates: z.array(text), publicKey: text, fingerprint: text });

export const resolveRequestSchema = z.strictObject({ sessionId: text });
export const resolveAnswerSchema = z.strictObject({ host: text, port: z.int().check(z.minimum(1), z.maximum(65_535)), address: text });

export const certificateRequestSchema = z.strictObject({
  sessionId: text, host: text, port: z.int(), address: text, fingerprint: text, caVerified: z.boolean(), caError: z.optional(text),
});
export const certificateAnswerSchema = z.strictObject({ trust: text });

/** The answer the data plane waits for on `drain`: none of its own (an empty object). */
export const drainAnswerSchema = z.strictObject({});

// ── The data plane's notifications (Go → Node) ──

export const phaseNoticeSchema = z.strictObject({ phase: text, ms: z.number().check(z.minimum(0)) });

export const securedNoticeSchema = z.strictObject({
  sessionId: text, address: text, protocol: text, tlsVersion: text, cipher: text, trust: text, fingerprint: text,
});

/** How a session that ended in an error ended (Go's nil maps arrive as null). */
export const endedErrorSchema = z.strictObject({ phase: text, code: text, message: text, detail: z.nullable(fields), internal: z.nullable(fields) });

export const endedNoticeSchema = z.strictObject({ sessionId: text, reason: text, seconds: z.number().check(z.minimum(0)), error: z.optional(endedErrorSchema) });
export const presenterEndedNoticeSchema = z.strictObject({ sessionId: text, reason: text, error: z.optional(endedErrorSchema) });

export const sessionSampleSchema = z.strictObject({
  sessionId: text, bytesToDisplay: count, bytesToServer: count, pdusToDisplay: count, framesToDisplay: count,
});
export const tallySchema = z.strictObject({
  bytesToKiosk: count, pdusToKiosk: count, framesToKiosk: count, bytesToServer: count, pdusToServer: count, framesToServer: count, copiedBytes: count, pauses: count,
});
export const latencySchema = z.strictObject({ bounds: z.array(z.number()), counts: z.array(count), sum: z.number().check(z.minimum(0)) });
/** Once a second; when the sessions take several lines, only the first carries the tally and the latency. */
export const sampleNoticeSchema = z.strictObject({ sessions: z.array(sessionSampleSchema), tally: z.optional(tallySchema), latency: z.optional(latencySchema) });

export const readyNoticeSchema = z.strictObject({ port: z.int().check(z.minimum(1), z.maximum(65_535)) });
export const fatalNoticeSchema = z.strictObject({ message: text });

// ── Node's notifications and requests (Node → Go) ──

const ms = count;
const bytes = count;
/**
 * `configure`, the first line Node sends: everything the data plane needs to
 * run the port and the data sockets as this gateway would
 * (dataPlaneConfig.ts builds it from the gateway's configuration).
 */
export const configureConfigSchema = z.strictObject({
  listen: z.strictObject({
    host: text, port: z.int().check(z.minimum(0), z.maximum(65_535)), tls: z.boolean(),
    // Go's Listen always writes both (empty without TLS)
    certPem: z.optional(text), keyPem: z.optional(text), reusePort: z.boolean(),
  }),
  upstreamSocket: text,
  relay: z.strictObject({
    highWaterBytes: bytes, lowWaterBytes: bytes, maxFrameBytes: bytes, idleTimeoutMs: ms, maxBacklogBytes: bytes, presenterBytesPerSecond: bytes,
  }),
  timeouts: z.strictObject({
    helloMs: ms, requestMs: ms, connectMs: ms, confirmMs: ms, tlsMs: ms, httpHeadersMs: ms, httpRequestMs: ms, tlsHandshakeMs: ms, writeMs: ms,
  }),
  limits: z.strictObject({
    maxConnections: count, perAddressConnections: count, perNetworkConnections: count, maxPendingSockets: count, perSourcePendingSockets: count,
    maxSessions: count, maxHeaderBytes: bytes,
  }),
  requireNla: z.boolean(),
  caPem: z.optional(text),
  maxJsonFrameBytes: bytes,
  subprotocol: text,
  errors: z.record(z.string(), z.strictObject({ message: text, close: z.int() })),
  peerDir: z.optional(text),
});
export const configureNoticeSchema = z.strictObject({ config: configureConfigSchema });

export const stopNoticeSchema = z.strictObject({ sessionId: text, reason: text });
/** Whether the display's input PDUs reach the session's server (the presenter's permission, issue 30); off until said. */
export const inputNoticeSchema = z.strictObject({ sessionId: text, allowed: z.boolean() });
export const drainRequestSchema = z.strictObject({ deadlineMs: count });

/** Every message of the contract by its direction and op: what contract.json's examples are checked against. */
export const RPC_CONTRACT = {
  request: {
    admit: admitRequestSchema, open: openRequestSchema, present: presentRequestSchema, resolve: resolveRequestSchema, certificate: certificateRequestSchema,
    drain: drainRequestSchema,
  },
  answer: {
    admit: admitAnswerSchema, open: openAnswerSchema, present: presentAnswerSchema, resolve: resolveAnswerSchema, certificate: certificateAnswerSchema,
    drain: drainAnswerSchema,
  },
  notice: {
    phase: phaseNoticeSchema, secured: securedNoticeSchema, ended: endedNoticeSchema, 'presenter-ended': presenterEndedNoticeSchema, sample: sampleNoticeSchema,
    ready: readyNoticeSchema, fatal: fatalNoticeSchema, stop: stopNoticeSchema, configure: configureNoticeSchema, input: inputNoticeSchema,
  },
} as const;

export type AdmitRequest = z.infer<typeof admitRequestSchema>;
export type AdmitAnswer = z.infer<typeof admitAnswerSchema>;
export type OpenRequest = z.infer<typeof openRequestSchema>;
export type OpenAnswer = z.infer<typeof openAnswerSchema>;
export type PresentRequest = z.infer<typeof presentRequestSchema>;
export type PresentAnswer = z.infer<typeof presentAnswerSchema>;
export type ResolveRequest = z.infer<typeof resolveRequestSchema>;
export type ResolveAnswer = z.infer<typeof resolveAnswerSchema>;
export type CertificateRequest = z.infer<typeof certificateRequestSchema>;
export type CertificateAnswer = z.infer<typeof certificateAnswerSchema>;
export type EndedError = z.infer<typeof endedErrorSchema>;
export type EndedNotice = z.infer<typeof endedNoticeSchema>;
export type PresenterEndedNotice = z.infer<typeof presenterEndedNoticeSchema>;
export type SecuredNotice = z.infer<typeof securedNoticeSchema>;
export type PhaseNotice = z.infer<typeof phaseNoticeSchema>;
export type SampleNotice = z.infer<typeof sampleNoticeSchema>;
export type StopNotice = z.infer<typeof stopNoticeSchema>;
export type ConfigureConfig = z.infer<typeof configureConfigSchema>;
export type InputNotice = z.infer<typeof inputNoticeSchema>;
export type DrainRequest = z.infer<typeof drainRequestSchema>;

/** A message read through its schema, or why it is off the contract (the first problem, with its path). */
export function readMessage<T>(schema: z.ZodMiniType<T>, op: string, message: unknown): { ok: true; value: T } | { ok: false; problem: string } {
  const parsed = schema.safeParse(message);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0];
  const at = issue?.path.length ? issue.path.join('.') : 'the message';
  return { ok: false, problem: `the data plane's ${op} is off the contract: ${at}: ${issue?.message ?? 'invalid'}` };
}
