import { test } from 'node:test';
import assert from 'node:assert/strict';
import { childNamed, findElement, parseXml, XmlError } from './hardenedXml.js';

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof XmlError) return error.code;
    throw error;
  }
  return 'accepted';
}

test('namespaces resolve to URIs whatever prefixes the sender chose; attributes by name and by {uri}local', () => {
  const a = parseXml('<s:E xmlns:s="urn:s" xmlns:x="urn:x"><s:B x:k="1" k="2">hi &amp; bye</s:B></s:E>', { namespaces: true });
  const b = parseXml('<E xmlns="urn:s"><B xmlns:y="urn:x" y:k="1" k="2">hi &amp; bye</B></E>', { namespaces: true });
  for (const root of [a, b]) {
    assert.equal(root.uri, 'urn:s');
    assert.equal(root.local, 'E');
    const body = childNamed(root, 'urn:s', 'B');
    assert.equal(body?.text, 'hi & bye');
    assert.equal(body.attributes.get('{urn:x}k'), '1');
    assert.equal(body.attributes.get('k'), '2');
  }
  assert.equal(findElement(a, 'B', 'urn:s')?.local, 'B');
  assert.equal(findElement(a, 'B', 'urn:other'), undefined);
});

test('an unbound prefix is malformed when namespaces are checked', () => {
  assert.equal(code(() => parseXml('<s:E><s:B/></s:E>', { namespaces: true })), 'malformed');
  assert.equal(code(() => parseXml('<s:E/>')), 'accepted');
});

test('DTDs, entity bombs, comments, CDATA and processing instructions are refused', () => {
  const bomb = '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><r>&c;</r>';
  assert.equal(code(() => parseXml(bomb)), 'forbidden-markup');
  assert.equal(code(() => parseXml('<!DOCTYPE r SYSTEM "file:///etc/passwd"><r/>')), 'forbidden-markup');
  assert.equal(code(() => parseXml('<r>&undeclared;</r>')), 'forbidden-markup');
  assert.equal(code(() => parseXml('<r><!-- hi --></r>')), 'forbidden-markup');
  assert.equal(code(() => parseXml('<r><![CDATA[x]]></r>')), 'forbidden-markup');
  assert.equal(code(() => parseXml('<?php x ?><r/>')), 'forbidden-markup');
  assert.equal(code(() => parseXml('<?xml version="1.0" encoding="UTF-8"?><r/>')), 'accepted');
  assert.equal(code(() => parseXml('<?xml version="1.0" encoding="UTF-16"?><r/>')), 'malformed');
});

test('size, depth, element and attribute caps', () => {
  assert.equal(code(() => parseXml(`<r a="${'x'.repeat(40_000)}"/>`)), 'too-large');
  assert.equal(code(() => parseXml(`<r>${'x'.repeat(100)}</r>`, { maxChars: 50 })), 'too-large');
  assert.equal(code(() => parseXml(`${'<a>'.repeat(17)}${'</a>'.repeat(17)}`)), 'too-large');
  assert.equal(code(() => parseXml(`${'<a>'.repeat(16)}${'</a>'.repeat(16)}`)), 'accepted');
  assert.equal(code(() => parseXml(`<r>${'<a/>'.repeat(300)}</r>`, { maxElements: 256 })), 'too-large');
  const attributes = Array.from({ length: 33 }, (_, i) => `a${i}="1"`).join(' ');
  assert.equal(code(() => parseXml(`<r ${attributes}/>`)), 'too-large');
});

test('malformed documents are told apart from refused markup', () => {
  for (const text of ['not xml at all', '<r>', '<r></s>', '<r/><s/>', '<r a=1/>', '<r a="1" a="2"/>', '<r a="a & b"/>', '<r a="&#0;"/>', '']) {
    assert.equal(code(() => parseXml(text)), 'malformed', text);
  }
});

test('the five predefined entities and character references are decoded', () => {
  const root = parseXml('<r a="&lt;&amp;&gt;&quot;&apos;&#65;&#x42;">&#x1F600;</r>');
  assert.equal(root.attributes.get('a'), '<&>"\'AB');
  assert.equal(root.text, '😀');
});
