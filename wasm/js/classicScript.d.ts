/** Fetches `url` under a deadline (an AbortSignal's timeout), then runs it with importScripts from the HTTP cache. */
export function importClassicScript(url: string, deadlineMs: number): Promise<void>;
