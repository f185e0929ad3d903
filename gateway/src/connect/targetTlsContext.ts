// One TLS client context for the server leg, shared by every session. Without
// it, tls.connect builds a fresh OpenSSL SSL_CTX (and, with a CA file, a fresh
// certificate store parsed from PEM) for every connection, freed only when the
// garbage collector gets to its wrapper: CPU per session set-up, and native
// memory churn that a long run with sessions coming and going pays for.
import { createSecureContext, type SecureContext } from 'node:tls';

const contexts = new Map<string, SecureContext>();

/**
 * The context for server connections trusting `ca` (PEM) alone — Node's `ca`
 * replaces its bundled roots, it does not add to them — or, without `ca`,
 * Node's roots. The data plane does the same (targetconn's verifyChain).
 */
export function targetTlsContext(ca: string | undefined): SecureContext {
  const key = ca ?? '';
  let context = contexts.get(key);
  if (!context) {
    context = createSecureContext({ ca, minVersion: 'TLSv1.2' });
    contexts.set(key, context);
  }
  return context;
}
