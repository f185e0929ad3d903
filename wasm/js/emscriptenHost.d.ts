export function loadModule(
  factory: (options: object) => Promise<any>,
  moduleOptions: object,
  options: { logLevel?: string },
): Promise<any>;
export function closeModule(
  host: { module: any; sessions: Map<number, { stop(): void; abandon(): void }>; terminated?: boolean },
  ended: (session: any) => Promise<unknown>,
  deadlineMs: number,
): Promise<void>;
