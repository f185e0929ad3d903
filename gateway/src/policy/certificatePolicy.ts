import type { PinStore } from './pinStore.js';

export type CertificateMode = 'first-use' | 'ca' | 'insecure';
export type Trust = 'pinned' | 'first-use' | 'ca' | 'insecure';

export interface CertificateFacts {
  target: string; // "host:port" as the broker named it
  fingerprint: string; // sha256:AA:BB:…
  caVerified: boolean;
  caError?: string | undefined;
}

export type CertificateVerdict =
  | { trusted: true; trust: Trust }
  | { trusted: false; code: 'certificate-untrusted' | 'certificate-changed'; message: string; detail: Record<string, unknown> };

/** Decides whether the RDP server's certificate is acceptable; explicit pins win over the mode. */
export class CertificatePolicy {
  constructor(
    private readonly mode: CertificateMode,
    private readonly pins: Record<string, string[]>,
    private readonly store: PinStore,
  ) {}

  judge(facts: CertificateFacts): CertificateVerdict {
    const pinned = this.pins[facts.target];
    if (pinned && pinned.length > 0) {
      if (pinned.includes(facts.fingerprint)) return { trusted: true, trust: 'pinned' };
      return {
        trusted: false, code: 'certificate-untrusted',
        message: "the presenter's certificate does not match the one configured for it",
        detail: { fingerprint: facts.fingerprint, expected: pinned },
      };
    }
    switch (this.mode) {
      case 'insecure':
        return { trusted: true, trust: 'insecure' };
      case 'ca':
        if (facts.caVerified) return { trusted: true, trust: 'ca' };
        return {
          trusted: false, code: 'certificate-untrusted',
          message: "the presenter's certificate is not signed by a trusted authority",
          detail: { fingerprint: facts.fingerprint, reason: facts.caError },
        };
      case 'first-use': {
        const known = this.store.get(facts.target);
        if (known === undefined) {
          this.store.record(facts.target, facts.fingerprint);
          return { trusted: true, trust: 'first-use' };
        }
        if (known === facts.fingerprint) return { trusted: true, trust: 'pinned' };
        return {
          trusted: false, code: 'certificate-changed',
          message: "the presenter's certificate changed since last time",
          detail: { fingerprint: facts.fingerprint, expected: known },
        };
      }
    }
  }
}
