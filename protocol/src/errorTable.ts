// What every error table of the protocol offers beside its entries: the codes
// in the document's order, a guard that a string is one of them (own keys
// only, so `constructor` is not a code) and the sentence for a code, with a
// fallback for a code this version does not know. The kiosk protocol's table
// (sessionErrors.ts) and the presenter API's (presenterErrors.ts) are read
// through it, so both answer an unknown code the same way.

export interface ErrorTable<Code extends string, Entry extends { readonly sentence: string }> {
  /** Every code, in the table's (the document's) order. */
  readonly codes: readonly Code[];
  readonly entries: Readonly<Record<Code, Entry>>;
  readonly isCode: (code: string) => code is Code;
  /** The sentence for a code, also for a code this version does not know. */
  readonly sentenceFor: (code: string) => string;
}

export function errorTable<Code extends string, Entry extends { readonly sentence: string }>(
  entries: Readonly<Record<Code, Entry>>,
  unknownSentence: (code: string) => string,
): ErrorTable<Code, Entry> {
  const isCode = (code: string): code is Code => Object.hasOwn(entries, code);
  return {
    codes: Object.keys(entries) as Code[],
    entries,
    isCode,
    sentenceFor: (code) => (isCode(code) ? entries[code].sentence : unknownSentence(code)),
  };
}
