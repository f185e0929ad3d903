// The presenter's "host", "host:port", "[v6]:port" or bare IPv6, as the
// presenter API's target. The gateway checks the target against its policy;
// this only catches what cannot be an address before asking it.

export const DEFAULT_RDP_PORT = 3389;

export type Endpoint = { readonly host: string; readonly port: number } | { readonly error: string };

const NAME = /^[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9.])?$/;
const IPV6 = /^[0-9A-Fa-f:.]+$/;

function port(text: string): number | undefined {
  if (!/^\d{1,5}$/.test(text)) return undefined;
  const value = Number(text);
  return value >= 1 && value <= 65_535 ? value : undefined;
}

export function parseEndpoint(input: string): Endpoint {
  const text = input.trim();
  if (text === '') return { error: 'Enter your computer’s address, like 192.168.1.20 or my-pc:3389.' };
  const bracketed = /^\[([^\]]+)\](?::(.*))?$/.exec(text);
  if (bracketed) {
    const host = bracketed[1] ?? '';
    const given = bracketed[2];
    const number = given === undefined ? DEFAULT_RDP_PORT : port(given);
    if (!IPV6.test(host) || !host.includes(':')) return { error: `“${host}” is not an IPv6 address.` };
    return number === undefined ? { error: `“${given ?? ''}” is not a port (1–65535).` } : { host, port: number };
  }
  const colons = text.split(':').length - 1;
  if (colons > 1) return IPV6.test(text) ? { host: text, port: DEFAULT_RDP_PORT } : { error: `“${text}” is not an address.` };
  const [host = '', given] = text.split(':');
  if (!NAME.test(host)) return { error: `“${host}” is not a computer name or address.` };
  if (given === undefined) return { host, port: DEFAULT_RDP_PORT };
  const number = port(given);
  return number === undefined ? { error: `“${given}” is not a port (1–65535).` } : { host, port: number };
}
