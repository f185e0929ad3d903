// XML for the fuzz targets: a serializer the XML reader must read back to
// the same tree (the round trip), a tree comparison, the oracle for markup
// the reader must refuse, and a generator of documents built from random
// trees with the spellings XML allows (declaration, BOM, either quote, spaces
// in tags, text with references), so mutations start from valid input.
import type { SeededRandom } from '@lanterna/fuzzer';
import type { XmlElement, XmlLimits } from '@lanterna/protocol/xml';

// Tab, newline and carriage return too: a conforming reader (saxes) normalises
// them to spaces in attribute values (XML 1.0 §3.3.3), so a value that holds
// them (from character references) reads back equal only when they are
// written as references. The hand-written reader this oracle was first made
// for kept them raw, which hid the difference.
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', '\t': '&#9;', '\n': '&#10;', '\r': '&#13;' };

export function escapeXml(text: string): string {
  return text.replace(/[&<>"\t\n\r]/g, (character) => ESCAPES[character] ?? character);
}

export function serializeXml(element: XmlElement): string {
  const attributes = [...element.attributes].map(([name, value]) => ` ${name}="${escapeXml(value)}"`).join('');
  if (element.children.length === 0) return `<${element.name}${attributes}/>`;
  return `<${element.name}${attributes}>${element.children.map(serializeXml).join('')}</${element.name}>`;
}

export function sameTree(a: XmlElement, b: XmlElement): boolean {
  if (a.name !== b.name || a.attributes.size !== b.attributes.size || a.children.length !== b.children.length) return false;
  const theirs = [...b.attributes];
  if (![...a.attributes].every(([name, value], i) => theirs[i]?.[0] === name && theirs[i][1] === value)) return false;
  return a.children.every((child, i) => {
    const other = b.children[i];
    return other !== undefined && sameTree(child, other);
  });
}

/** Depth (the root is 1), element count and the most attributes on one element. */
export function treeShape(root: XmlElement): { depth: number; elements: number; attributes: number } {
  let elements = 0;
  let attributes = 0;
  const walk = (element: XmlElement, depth: number): number => {
    elements++;
    attributes = Math.max(attributes, element.attributes.size);
    return element.children.reduce((deepest, child) => Math.max(deepest, walk(child, depth + 1)), depth);
  };
  const depth = walk(root, 1);
  return { depth, elements, attributes };
}

export function withinLimits(root: XmlElement, limits: XmlLimits): boolean {
  const shape = treeShape(root);
  return shape.depth <= limits.maxDepth && shape.elements <= limits.maxElements && shape.attributes <= limits.maxAttributes;
}

// XML 1.0 (fifth edition) Name: the rule saxes implements. Wider than ASCII:
// U+FFFD, which the fuzzer's TextDecoder puts wherever bytes are not UTF-8, is
// a NameStartChar (#xFDF0-#xFFFD), so such names are valid XML and accepted;
// the first oracle (ASCII names, the hand-written reader's rule) would call
// that a bug when it is the standard.
const NAME_START = 'A-Z_a-z:\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C-\\u200D\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD\\u{10000}-\\u{EFFFF}';
// The class lists XML's combining marks (#x0300-#x036F) on purpose, as ranges: nothing is combined.
// eslint-disable-next-line no-misleading-character-class
const NAME = new RegExp(`^[${NAME_START}][${NAME_START}\\-.0-9\\u00B7\\u0300-\\u036F\\u203F-\\u2040]*$`, 'u');

export function namesValid(root: XmlElement): boolean {
  return NAME.test(root.name) && [...root.attributes.keys()].every((name) => NAME.test(name)) && root.children.every(namesValid);
}

const REFERENCE = /&(?:amp|lt|gt|quot|apos|#[0-9]{1,7}|#x[0-9A-Fa-f]{1,6});/y;

/**
 * Oracle: markup the reader must have refused, found by a scan that shares no
 * code with it — `<!` (DTDs, entities, CDATA, comments), `<?` other than the
 * leading XML declaration, or `&` that does not start one of XML's five
 * entity references or a character reference.
 */
export function forbiddenMarkup(text: string): string | undefined {
  let body = text.startsWith('\ufeff') ? text.slice(1) : text;
  if (/^<\?xml[ \t\r\n]/.test(body)) body = body.slice(body.indexOf('?>') + 2);
  if (body.includes('<!')) return '<!';
  if (body.includes('<?')) return '<?';
  for (let at = body.indexOf('&'); at >= 0; at = body.indexOf('&', at + 1)) {
    REFERENCE.lastIndex = at;
    if (!REFERENCE.test(body)) return body.slice(at, at + 16);
  }
  return undefined;
}

// Generation.
const NAMES = ['a', 'b', 'E', 'A', 'C', 'T', 'L', 'UPLOADINFO', 'UPLOADDATA', 'x:y', '_n', 'n.1', 'n-2', 'Long_Name.With-All:Parts'];
// Entity names a JavaScript reader might take from an object's prototype are part of the mix on purpose.
const ENTITY_NAMES = ['amp', 'lt', 'gt', 'quot', 'apos', 'nbsp', 'a', 'constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty'];
const CHARACTERS = ['a', 'Z', '0', ' ', '\t', '\n', '\r', "'", '"', '<', '>', '&', ';', '=', '/', '?', '!', '\u00e9', '\u2028', '\ud83d\ude00', '\ud800', '\u0000'];

function name(random: SeededRandom): string {
  return random.chance(0.9) ? random.pick(NAMES) : `n${random.below(1000)}`;
}

/** Text with characters that need escaping, escaped, and references of every kind. */
function content(random: SeededRandom, quote: string): string {
  let out = '';
  for (let i = random.skewed(24); i > 0; i--) {
    const pick = random.below(10);
    if (pick === 0) out += `&${random.pick(ENTITY_NAMES)};`;
    else if (pick === 1) out += random.chance(0.5) ? `&#${random.pick([9, 65, 0xe9, 0x1f600, 0xd800, 0x10ffff, 0x110000, 0])};` : `&#x${random.pick([0x41, 0x10ffff, 0xd7ff, 0xfffe, 0x110000]).toString(16)};`;
    else {
      const character = random.pick(CHARACTERS);
      if (character === '<') out += '&lt;';
      else if (character === '&') out += '&amp;';
      else if (character === quote) out += quote === '"' ? '&quot;' : '&apos;';
      else out += character;
    }
  }
  return out;
}

function element(random: SeededRandom, depth: number, budget: { elements: number }): string {
  budget.elements--;
  const tag = name(random);
  const used = new Set<string>();
  let attributes = '';
  for (let i = random.skewed(6); i > 0; i--) {
    const attribute = name(random);
    if (used.has(attribute) && random.chance(0.9)) continue;
    used.add(attribute);
    const quote = random.chance(0.8) ? '"' : "'";
    const space = random.pick([' ', '  ', '\n', '\t', ' \r\n ']);
    attributes += `${space}${attribute}${random.chance(0.9) ? '=' : ' = '}${quote}${content(random, quote)}${quote}`;
  }
  const close = random.chance(0.1) ? ' ' : '';
  if (depth > 9 || budget.elements <= 0 || random.chance(0.35)) return `<${tag}${attributes}${close}/>`;
  let inner = '';
  for (let i = random.skewed(5); i > 0 && budget.elements > 0; i--) {
    if (random.chance(0.3)) inner += content(random, '');
    inner += element(random, depth + 1, budget);
  }
  if (random.chance(0.3)) inner += content(random, '');
  return `<${tag}${attributes}${close}>${inner}</${tag}${random.chance(0.1) ? '\n' : ''}>`;
}

/** A document: maybe a BOM, maybe the declaration, whitespace, one root element, whitespace. */
export function generateXmlDocument(random: SeededRandom, maxElements = 40): string {
  const bom = random.chance(0.05) ? '\ufeff' : '';
  const declaration = random.chance(0.4) ? `<?xml version="1.0"${random.chance(0.5) ? ' encoding="utf-8"' : ''}?>` : '';
  const space = (): string => (random.chance(0.3) ? random.pick([' ', '\n', '\r\n\t']) : '');
  return `${bom}${declaration}${space()}${element(random, 1, { elements: random.between(1, maxElements) })}${space()}`;
}
