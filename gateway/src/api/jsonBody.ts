import type { IncomingMessage } from 'node:http';

export class BodyError extends Error {
  override name = 'BodyError';
}

/**
 * A request's JSON body, refused past `maxBytes` (read no further) or when it
 * is not JSON (`notJson` words that refusal; the admin API names the parser's
 * complaint, the presenter API does not).
 */
export async function readJsonBody(request: IncomingMessage, maxBytes: number, notJson: (error: Error) => string = () => 'body is not json'): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw new BodyError(`body larger than ${maxBytes} bytes`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch (error) {
    throw new BodyError(notJson(error as Error));
  }
}
