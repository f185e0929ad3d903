import { PinStoreError, type PinStore } from './pinStore.js';
import { canonicalPinKey } from './pinKey.js';

export type CertificateMode = 'first-use' | 'ca' | 'insecure';
/** `presenter`: a presenter page's leg, which has no TLS of the gateway's (docs/browser-presenter.md). */
export type Trust = 'pinned' | 'first-use' | 'ca' | 'insecure' | 'presenter';

export interface CertificateFacts {
  /**
   * Canonical pin keys (see pinKey.ts) of the server: the name the broker gave
   * and the address actually reached, so a server met once by name and once by
   * address is one server, not two first uses.
   */
  targets: readonly string[];
  fingerprint: string; // sha256:AA:BB:…
  caVerified: boolean;
  caError?: string | undefined;
}

export type CertificateVerdict =
  | { trusted: true; trust: Trust }
  | { trusted: false; code: 'certificate-untrusted' | 'certificate-changed'; message: string; detail: Record<string, unknown> };

/** A pin's "last used" is noted at most this often per key and process: a session start is not a disk write. */
export const PIN_USE_NOTE_MS = 60_000;
/** The most keys whose last note this process remembers (older ones are forgotten first, and noted again). */
const MAX_NOTED_KEYS = 10_000;

/** Decides whether the RDP server's certificate is acceptable; explicit pins win over the mode. */
export class CertificatePolicy {
  private readonly pins = new Map<string, string[]>();
  /** When this process last noted each first-use pin as used (insertion order: oldest first). */
  private readonly noted = new Map<string, number>();

  constructor(
    private readonly mode: CertificateMode,
    pins: Record<string, string[]>,
    private readonly store: PinStore,
    /** The pin file failed: the session is refused, and the admin needs the reason in the log. */
    private readonly onStoreError: (error: PinStoreError) => void = () => undefined,
    /** A server's certificate no longer matches its pin: the admin may look and clear it (admin API). */
    private readonly onChanged: (changes: { key: string; pinned: string; seen: string }[]) => void = () => undefined,
  ) {
    for (const [key, fingerprints] of Object.entries(pins)) {
      const canonical = canonicalPinKey(key);
      if (!canonical) throw new Error(`certificate pin key "${key}" is not host:port`);
      this.pins.set(canonical, [...(this.pins.get(canonical) ?? []), ...fingerprints]);
    }
  }

  async judge(facts: CertificateFacts): Promise<CertificateVerdict> {
    const configured = facts.targets.flatMap((key) => this.pins.get(key) ?? []);
    if (configured.length > 0) {
      if (configured.includes(facts.fingerprint)) return { trusted: true, trust: 'pinned' };
      return {
        trusted: false, code: 'certificate-untrusted',
        message: "the presenter's certificate does not match the one configured for it",
        detail: { fingerprint: facts.fingerprint, expected: configured },
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
      case 'first-use':
        try {
          return await this.judgeFirstUse(facts);
        } catch (error) {
          if (!(error instanceof PinStoreError)) throw error;
          this.onStoreError(error);
          return {
            trusted: false, code: 'certificate-untrusted',
            message: "the gateway cannot read its record of known certificates, so it trusts none until an administrator repairs it",
            detail: { fingerprint: facts.fingerprint },
          };
        }
    }
  }

  /**
   * Every pin already known under any of the server's keys must match; a
   * server seen for the first time under some key is recorded there, but
   * never while another of its keys disagrees.
   */
  private async judgeFirstUse(facts: CertificateFacts): Promise<CertificateVerdict> {
    let known = await this.store.get(facts.targets);
    const firstUse = known.size === 0;
    let changed = this.changedPins(known, facts.fingerprint);
    const recording = changed.length === 0 && known.size < facts.targets.length;
    if (recording) {
      // Another worker may record the same server meanwhile: judge against what won.
      known = await this.store.recordMissing(facts.targets, facts.fingerprint);
      changed = this.changedPins(known, facts.fingerprint);
    }
    if (changed.length > 0) {
      this.onChanged(changed.map(([key, pinned]) => ({ key, pinned, seen: facts.fingerprint })));
      return {
        trusted: false, code: 'certificate-changed',
        message: "the presenter's certificate changed since last time",
        detail: { fingerprint: facts.fingerprint, expected: changed[0]?.[1], pinnedAs: changed.map(([key]) => key) },
      };
    }
    // A pin just made (perhaps again, after an admin cleared it) is noted at once, whatever this process noted before.
    this.noteUse(facts.targets, recording);
    return { trusted: true, trust: firstUse ? 'first-use' : 'pinned' };
  }

  /**
   * The admin's pins table says when each pin last let a session through, so
   * a pin nobody has used for months can be told from one in daily use. Not
   * awaited and never a reason to refuse: the verdict is already made.
   */
  private noteUse(keys: readonly string[], now: boolean, at = Date.now()): void {
    const due = now ? keys : keys.filter((key) => at - (this.noted.get(key) ?? -Infinity) >= PIN_USE_NOTE_MS);
    if (due.length === 0) return;
    for (const key of due) {
      this.noted.delete(key);
      this.noted.set(key, at);
    }
    while (this.noted.size > MAX_NOTED_KEYS) {
      const oldest = this.noted.keys().next().value;
      if (oldest === undefined) break;
      this.noted.delete(oldest);
    }
    this.store.markUsed(due, at).catch(() => {
      // informative only: a pin store that cannot be written is reported by the verdicts that need it
      for (const key of due) this.noted.delete(key);
    });
  }

  private changedPins(known: Map<string, string>, fingerprint: string): [string, string][] {
    return [...known].filter(([, pin]) => pin !== fingerprint);
  }
}
