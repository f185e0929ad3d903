/**
 * A deliberately small XML reader for documents a stranger hands the gateway
 * (Remote Assistance invitations): elements and attributes only. Anything that
 * can make a parser do unbounded work or reach outside the text is refused
 * rather than handled: DTDs and entity declarations, CDATA, comments, processing
 * instructions other than the XML declaration, entity references other than the
 * five predefined ones and character references. Size, depth, element and
 * attribute counts are capped.
 */

export interface XmlElement {
  readonly name: string;
  readonly attributes: ReadonlyMap<string, string>;
  readonly children: XmlElement[];
}

export interface XmlLimits {
  maxChars: number;
  maxDepth: number;
  maxElements: number;
  maxAttributes: number;
}

export const DEFAULT_XML_LIMITS: XmlLimits = { maxChars: 16 * 1024, maxDepth: 8, maxElements: 256, maxAttributes: 32 };

export type XmlErrorCode = 'too-large' | 'forbidden-markup' | 'malformed';

export class XmlError extends Error {
  constructor(readonly code: XmlErrorCode, message: string) {
    super(message);
    this.name = 'XmlError';
  }
}

const PREDEFINED: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const MAX_EXCERPT_CHARS = 40;

/** What an error message quotes of the input: names and values can be kilobytes long. */
export function excerpt(text: string): string {
  return text.length > MAX_EXCERPT_CHARS ? `${text.slice(0, MAX_EXCERPT_CHARS)}…` : text;
}
const NAME = /[A-Za-z_][A-Za-z0-9_.:-]*/y;
const SPACE = /[ \t\r\n]*/y;

function decodeReferences(text: string): string {
  return text.replace(/&([^;&]{0,12});?/g, (match, body: string) => {
    if (!match.endsWith(';')) throw new XmlError('malformed', `a bare "&" in "${text.slice(0, 40)}"`);
    // Own keys only: `in` would also find what every object inherits ("&constructor;").
    if (Object.hasOwn(PREDEFINED, body)) return PREDEFINED[body] ?? '';
    const numeric = /^#(x[0-9A-Fa-f]{1,6}|[0-9]{1,7})$/.exec(body);
    if (!numeric?.[1]) throw new XmlError('forbidden-markup', `the entity reference &${body}; is not one of XML's five`);
    const code = numeric[1].startsWith('x') ? Number.parseInt(numeric[1].slice(1), 16) : Number(numeric[1]);
    if (code === 0 || code > 0x10ffff) throw new XmlError('malformed', `character reference &${body}; is out of range`);
    return String.fromCodePoint(code);
  });
}

/** Parses `text` into its root element, or throws an XmlError. */
export function parseBoundedXml(text: string, limits: XmlLimits = DEFAULT_XML_LIMITS): XmlElement {
  if (text.length > limits.maxChars) throw new XmlError('too-large', `${text.length} characters, at most ${limits.maxChars}`);
  let at = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const stack: XmlElement[] = [];
  let root: XmlElement | null = null;
  let elements = 0;

  const skipSpace = (): void => { SPACE.lastIndex = at; SPACE.exec(text); at = SPACE.lastIndex; };
  const readName = (): string => {
    NAME.lastIndex = at;
    const match = NAME.exec(text);
    if (!match) throw new XmlError('malformed', `a name was expected at ${at}`);
    at = NAME.lastIndex;
    return match[0];
  };

  while (at < text.length) {
    const open = text.indexOf('<', at);
    const between = text.slice(at, open < 0 ? text.length : open);
    if (between.trim() !== '') {
      if (stack.length === 0) throw new XmlError('malformed', 'text outside the root element');
      decodeReferences(between); // text content is not kept, but must be well formed
    }
    if (open < 0) break;
    at = open + 1;
    const next = text[at];
    if (next === '!') throw new XmlError('forbidden-markup', `"${text.slice(open, open + 9)}" (DTDs, entities, CDATA and comments are not accepted)`);
    if (next === '?') {
      const end = text.indexOf('?>', at);
      if (open !== (text.charCodeAt(0) === 0xfeff ? 1 : 0) || !/^\?xml[ \t\r\n]/.test(text.slice(at, at + 5)) || end < 0) {
        throw new XmlError('forbidden-markup', 'processing instructions other than the XML declaration are not accepted');
      }
      at = end + 2;
      continue;
    }
    if (next === '/') {
      at += 1;
      const name = readName();
      skipSpace();
      if (text[at] !== '>') throw new XmlError('malformed', `end tag </${excerpt(name)} is not closed`);
      at += 1;
      const top = stack.pop();
      if (top?.name !== name) throw new XmlError('malformed', `</${excerpt(name)}> does not close <${excerpt(top?.name ?? 'nothing')}>`);
      continue;
    }
    const name = readName();
    const attributes = new Map<string, string>();
    for (;;) {
      skipSpace();
      if (text.startsWith('/>', at) || text[at] === '>') break;
      const attribute = readName();
      skipSpace();
      if (text[at] !== '=') throw new XmlError('malformed', `attribute ${excerpt(attribute)} of <${excerpt(name)}> has no value`);
      at += 1;
      skipSpace();
      const quote = text[at];
      if (quote !== '"' && quote !== "'") throw new XmlError('malformed', `attribute ${excerpt(attribute)} of <${excerpt(name)}> is not quoted`);
      const end = text.indexOf(quote, at + 1);
      if (end < 0) throw new XmlError('malformed', `attribute ${excerpt(attribute)} of <${excerpt(name)}> is not closed`);
      const raw = text.slice(at + 1, end);
      if (raw.includes('<')) throw new XmlError('malformed', `"<" inside attribute ${excerpt(attribute)}`);
      if (attributes.has(attribute)) throw new XmlError('malformed', `attribute ${excerpt(attribute)} twice on <${excerpt(name)}>`);
      attributes.set(attribute, decodeReferences(raw));
      if (attributes.size > limits.maxAttributes) throw new XmlError('too-large', `more than ${limits.maxAttributes} attributes on <${excerpt(name)}>`);
      at = end + 1;
    }
    const element: XmlElement = { name, attributes, children: [] };
    elements += 1;
    if (elements > limits.maxElements) throw new XmlError('too-large', `more than ${limits.maxElements} elements`);
    // Checked for every element, not only those that hold others: <a/> counts at its depth too.
    if (stack.length + 1 > limits.maxDepth) throw new XmlError('too-large', `nested deeper than ${limits.maxDepth}`);
    const parent = stack.at(-1);
    if (parent) parent.children.push(element);
    else if (root) throw new XmlError('malformed', 'more than one root element');
    else root = element;
    if (text.startsWith('/>', at)) {
      at += 2;
    } else {
      at += 1;
      stack.push(element);
    }
  }
  if (stack.length > 0) throw new XmlError('malformed', `<${excerpt(stack.at(-1)?.name ?? '')}> is not closed`);
  if (!root) throw new XmlError('malformed', 'no root element');
  return root;
}

/** Depth-first search for the first element called `name` (root included). */
export function findElement(root: XmlElement, name: string): XmlElement | undefined {
  if (root.name === name) return root;
  for (const child of root.children) {
    const found = findElement(child, name);
    if (found) return found;
  }
  return undefined;
}
