// The fuzz invariant of the XML reader invitations (and WS-Discovery) are
// read with, the protocol package's hardened reader over saxes (the target
// keeps its old name, bounded-xml, and its corpus): any text either parses or throws
// XmlError (never another exception); what parses respects the limits it was
// read under, holds only valid names, contained none of the markup it must
// refuse (checked by a scan that shares no code with it), and reads back the
// same after serializing; a document read under tight limits reads the same
// under the defaults. Error messages stay short whatever the input.
import { invariant, textFuzzTarget } from '@lanterna/fuzzer';
import { DEFAULT_XML_LIMITS, parseXml, XmlError, type XmlElement, type XmlLimits } from '@lanterna/protocol/xml';
import { forbiddenMarkup, generateXmlDocument, namesValid, sameTree, serializeXml, withinLimits } from './xmlDocuments.js';

/** Messages are logged and returned to API callers: a long name or text must not come back whole. */
export const MAX_MESSAGE_CHARS = 240;
const TIGHT_LIMITS: XmlLimits = { maxChars: 512, maxDepth: 3, maxElements: 6, maxAttributes: 2 };
const CODES = ['too-large', 'forbidden-markup', 'malformed'];

function read(text: string, limits: XmlLimits): XmlElement | XmlError {
  try {
    return parseXml(text, limits);
  } catch (error) {
    if (!(error instanceof XmlError)) throw error;
    invariant(CODES.includes(error.code), `unknown XmlError code ${error.code}`);
    // Messages name the input's parts: keep them out of the text, so one bug is one crash key.
    // Lower case; a final "." can be the input's own (an attribute named "n."), so it is not judged here.
    invariant(!/^[A-Z][a-z]/.test(error.message), `badly formed ${error.code} message`);
    invariant(error.message.length <= MAX_MESSAGE_CHARS, `a ${error.code} message over ${MAX_MESSAGE_CHARS} characters`);
    return error;
  }
}

function checkAccepted(text: string, root: XmlElement, limits: XmlLimits): void {
  invariant(withinLimits(root, limits), 'a document past its limits was accepted');
  invariant(namesValid(root), 'an element or attribute with an invalid name was accepted');
  const forbidden = forbiddenMarkup(text);
  invariant(forbidden === undefined, `markup that must be refused was accepted (${forbidden?.startsWith('&') ? 'an entity reference' : (forbidden ?? '')})`);
  const again = read(serializeXml(root), { ...DEFAULT_XML_LIMITS, maxChars: Number.MAX_SAFE_INTEGER });
  invariant(!(again instanceof XmlError), `the serialized tree does not read back (${again instanceof XmlError ? again.code : ''})`);
  invariant(sameTree(again, root), 'the serialized tree reads back different');
}

/** Reads `text` under the default and tight limits; returns what each did. */
export function checkBoundedXml(text: string): string {
  const relaxed = read(text, DEFAULT_XML_LIMITS);
  const tight = read(text, TIGHT_LIMITS);
  if (!(relaxed instanceof XmlError)) checkAccepted(text, relaxed, DEFAULT_XML_LIMITS);
  if (!(tight instanceof XmlError)) {
    checkAccepted(text, tight, TIGHT_LIMITS);
    invariant(!(relaxed instanceof XmlError) && sameTree(relaxed, tight), 'a document read under tight limits reads differently under the defaults');
  }
  return `${relaxed instanceof XmlError ? relaxed.code : 'ok'} / ${tight instanceof XmlError ? tight.code : 'ok'}`;
}

export const fuzzTarget = textFuzzTarget({
  name: 'bounded-xml',
  checks:
    'the hardened XML reader (saxes) under default and tight limits: only XmlError, with a short message in lower case; what it accepts keeps the limits, has valid names, ' +
    'holds no DTD, comment, CDATA, processing instruction or entity reference but XML\'s five and character references (an independent scan), ' +
    'serializes and reads back equal (build→parse), and reads the same under looser limits',
  maxInputBytes: 20 * 1024,
  corpusExtension: '.xml',
  dictionary: [
    '<', '>', '</', '/>', '=', '"', "'", ' ', '\t', '\r\n', '\ufeff', '<?xml version="1.0"?>', '<?xml', '?>', '<!DOCTYPE r [<!ENTITY e "x">]>', '<![CDATA[x]]>',
    '<!-- c -->', '<?pi x?>', '&amp;', '&lt;', '&gt;', '&quot;', '&apos;', '&#65;', '&#x41;', '&#0;', '&#x110000;', '&#xD800;', '&#1114111;', '&e;', '&', ';', '#x',
    'constructor', '__proto__', 'toString', 'UPLOADINFO', 'UPLOADDATA', 'TYPE="Escalated"', 'x:y', 'a-b.c_d',
  ],
  executeText: checkBoundedXml,
  generateText: generateXmlDocument,
});
