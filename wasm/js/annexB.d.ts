// Types for annexB.js: what a decoder needs to know about an H.264 access unit.
export interface SpsSummary { readonly profile: number; readonly constraints: number; readonly level: number; readonly width: number; readonly height: number }
export declare function inspectAccessUnit(bytes: Uint8Array): { idr: boolean; nalTypes: number[]; sps: SpsSummary | null };
export declare function codecString(sps: SpsSummary): string;
