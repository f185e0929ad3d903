// XML that strangers hand us (WS-Discovery datagrams, SOAP bodies, Remote
// Assistance invitations), read with one maintained parser (saxes: pure
// JavaScript, non-validating, namespace-aware) under our own rules. Anything
// that can make a parser do unbounded work or reach outside the text is
// refused rather than handled: a DOCTYPE (so no DTD and no entity
// declarations), entity references other than XML's five (character
// references are fine), comments, CDATA and processing instructions other than
// the XML declaration. Size, depth, element and attribute counts are capped, and with
// `namespaces` every prefix must be bound (a SOAP reader then matches on
// namespace URIs, never on the prefixes a sender chose).
import { SaxesParser, type SaxesAttributeNS, type SaxesTagNS, type SaxesTagPlain } from 'saxes';

export interface XmlElement {
  /** The name as written, prefix included. */
  readonly name: string;
  /** Namespace URI ('' when none); only filled in when parsed with `namespaces`. */
  readonly uri: string;
  /** The name without its prefix. */
  readonly local: string;
  /**
   * Attributes by name as written (namespace declarations left out). With
   * `namespaces`, a prefixed attribute is also found as `{uri}local`.
   */
  readonly attributes: ReadonlyMap<string, string>;
  readonly children: XmlElement[];
  /** The element's own text (entity references decoded), children's text excluded. */
  readonly text: string;
  /**
   * Prefix → namespace URI in scope at this element ('' for the default), only
   * with `namespaces`: QNames inside text (WS-Discovery's Types) are resolved with it.
   */
  readonly scope: Readonly<Record<string, string>>;
}

export interface XmlLimits {
  maxChars: number;
  maxDepth: number;
  maxElements: number;
  maxAttributes: number;
}

export interface XmlReadOptions extends Partial<XmlLimits> {
  /** Resolve prefixes to namespace URIs; an unbound prefix is malformed. */
  namespaces?: boolean;
}

/** 32 KiB of text, the cap WS-Discovery datagrams and SOAP bodies are held to as well. */
export const DEFAULT_XML_LIMITS: XmlLimits = { maxChars: 32 * 1024, maxDepth: 16, maxElements: 512, maxAttributes: 32 };

export type XmlErrorCode = 'too-large' | 'forbidden-markup' | 'malformed';

/** Longest error message: errors reach logs and API answers, and must not carry a 12 KB name back whole. */
const MAX_XML_MESSAGE_CHARS = 160;

export class XmlError extends Error {
  constructor(readonly code: XmlErrorCode, message: string) {
    // The house style (lower case, no full stop) also for saxes' own sentences.
    const tidy = message.replace(/^[A-Z](?=[a-z])/, (first) => first.toLowerCase()).replace(/\.$/, '');
    super(tidy.length <= MAX_XML_MESSAGE_CHARS ? tidy : `${tidy.slice(0, MAX_XML_MESSAGE_CHARS - 1)}…`);
    this.name = 'XmlError';
  }
}

interface OpenElement {
  readonly element: XmlElement & { children: XmlElement[]; text: string };
}

const XMLNS_URI = 'http://www.w3.org/2000/xmlns/';
const NO_SCOPE: Readonly<Record<string, string>> = Object.freeze({});

/** Parses `text` into its root element, or throws an XmlError. */
export function parseXml(text: string, options: XmlReadOptions = {}): XmlElement {
  const limits: XmlLimits = { ...DEFAULT_XML_LIMITS, ...withoutUndefined(options) };
  if (text.length > limits.maxChars) throw new XmlError('too-large', `${text.length} characters, at most ${limits.maxChars}`);
  const namespaces = options.namespaces === true;
  const parser = namespaces ? new SaxesParser({ xmlns: true, position: false }) : new SaxesParser({ xmlns: false, position: false });
  const stack: OpenElement[] = [];
  let root: XmlElement | undefined;
  let elements = 0;

  const refuse = (what: string) => () => {
    throw new XmlError('forbidden-markup', `${what} (DTDs, entities, CDATA, comments and processing instructions are not accepted)`);
  };
  parser.on('doctype', refuse('a DOCTYPE'));
  parser.on('comment', refuse('a comment'));
  parser.on('cdata', refuse('a CDATA section'));
  parser.on('processinginstruction', refuse('a processing instruction'));
  parser.on('xmldecl', (declaration) => {
    if (declaration.encoding !== undefined && !/^utf-?8$/i.test(declaration.encoding)) {
      throw new XmlError('malformed', `encoding "${declaration.encoding}" declared, only UTF-8 is read`);
    }
  });
  parser.on('error', (error) => {
    // saxes' own words; an entity it does not know is markup we refuse, not a typo.
    const message = error.message.replace(/^\d+:\d+: /, '').replace(/\.$/, '');
    if (message.startsWith('undefined entity')) throw new XmlError('forbidden-markup', 'an entity reference other than XML\'s five');
    throw new XmlError('malformed', message);
  });
  parser.on('opentag', (tag: SaxesTagNS | SaxesTagPlain) => {
    elements += 1;
    if (elements > limits.maxElements) throw new XmlError('too-large', `more than ${limits.maxElements} elements`);
    if (stack.length >= limits.maxDepth) throw new XmlError('too-large', `nested deeper than ${limits.maxDepth}`);
    const attributes = new Map<string, string>();
    let count = 0;
    for (const [name, attribute] of Object.entries(tag.attributes as Record<string, string | SaxesAttributeNS>)) {
      if (name === 'xmlns' || name.startsWith('xmlns:')) continue;
      count += 1;
      if (typeof attribute === 'string') {
        attributes.set(name, attribute);
      } else if (attribute.uri !== XMLNS_URI) {
        attributes.set(name, attribute.value);
        if (attribute.uri) attributes.set(`{${attribute.uri}}${attribute.local}`, attribute.value);
      }
    }
    if (count > limits.maxAttributes) throw new XmlError('too-large', `more than ${limits.maxAttributes} attributes on <${tag.name}>`);
    const colon = tag.name.indexOf(':');
    const parent = stack.at(-1);
    const declared = 'ns' in tag ? tag.ns : undefined;
    const inherited = parent?.element.scope ?? NO_SCOPE;
    const element = {
      scope: declared && Object.keys(declared).length > 0 ? { ...inherited, ...declared } : inherited,
      name: tag.name,
      uri: 'uri' in tag ? tag.uri : '',
      local: 'local' in tag ? tag.local : colon < 0 ? tag.name : tag.name.slice(colon + 1),
      attributes, children: [] as XmlElement[], text: '',
    };
    if (parent) parent.element.children.push(element);
    else root = element;
    if (!tag.isSelfClosing) stack.push({ element });
  });
  parser.on('text', (content) => {
    const open = stack.at(-1);
    if (open) open.element.text += content;
  });
  parser.on('closetag', (tag) => {
    if (!tag.isSelfClosing) stack.pop();
  });

  try {
    parser.write(text).close();
  } catch (error) {
    if (error instanceof XmlError) throw error;
    throw new XmlError('malformed', error instanceof Error ? error.message : String(error));
  }
  if (!root) throw new XmlError('malformed', 'no root element');
  return root;
}

function withoutUndefined(options: XmlReadOptions): Partial<XmlLimits> {
  const limits: Partial<XmlLimits> = {};
  if (options.maxChars !== undefined) limits.maxChars = options.maxChars;
  if (options.maxDepth !== undefined) limits.maxDepth = options.maxDepth;
  if (options.maxElements !== undefined) limits.maxElements = options.maxElements;
  if (options.maxAttributes !== undefined) limits.maxAttributes = options.maxAttributes;
  return limits;
}

/** Depth-first search for the first element whose local name is `local` (and namespace `uri`, when given), root included. */
export function findElement(root: XmlElement, local: string, uri?: string): XmlElement | undefined {
  if (root.local === local && (uri === undefined || root.uri === uri)) return root;
  for (const child of root.children) {
    const found = findElement(child, local, uri);
    if (found) return found;
  }
  return undefined;
}

/** The direct children called `local` in namespace `uri`. */
export function childrenNamed(parent: XmlElement, uri: string, local: string): XmlElement[] {
  return parent.children.filter((child) => child.uri === uri && child.local === local);
}

/** The first direct child called `local` in namespace `uri`. */
export function childNamed(parent: XmlElement, uri: string, local: string): XmlElement | undefined {
  return parent.children.find((child) => child.uri === uri && child.local === local);
}
