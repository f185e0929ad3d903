// One TLS client context for the server leg, shared by every session. Without
// it, tls.connect builds a fresh OpenSSL SSL_CTX (and, with a CA file, a fresh
// certificate store parsed from PEM) for every connection, freed only when the
// garbage collector gets to its wrapper: CPU per session set-up, and native
// memory churn that a long run with sessions coming and going pays for.
import { createSecureContext, type SecureContext } from 'node:tls';

const contexts = new Map<string, SecureContext>();

/** The context for server connections trusting `ca` (PEM) besides Node's roots, or Node's roots alone. */
export function targetTlsContext(ca: string | undefined): SecureContext {
  const key = ca ?? '';
  let context = contexts.get(key);
  if (!context) {
    context = createSecureContext({ ca, minVersion: 'TLSv1.2' });
    contexts.set(key, context);
  }
  return context;
}
