// Keeps the README a newcomer's ten minutes and the docs' links true
// (issue 26): the README is short and opens with the two commands, every
// relative link in README.md and docs/*.md reaches a file (and its #anchor a
// heading of that file, as GitHub names headings), and docs/README.md lists
// every document beside it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(new URL('../..', import.meta.url).pathname);
const docsDir = join(root, 'docs');
const MAX_README_LINES = 300;

/** The text outside fenced code blocks, line by line (code shows examples, not links). */
function proseLines(text) {
  const out = [];
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      continue;
    }
    out.push(fenced ? '' : line);
  }
  return out;
}

/** `[text](target)` links of a Markdown file outside code, with their line numbers. */
function linksOf(text) {
  const links = [];
  proseLines(text).forEach((line, index) => {
    const withoutCode = line.replace(/`[^`]*`/g, '');
    for (const match of withoutCode.matchAll(/\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      links.push({ target: match[1], line: index + 1 });
    }
  });
  return links;
}

/** The anchors GitHub gives a file's headings: lowercase, punctuation dropped, spaces to '-', repeats numbered. */
function anchorsOf(text) {
  const anchors = new Set();
  const seen = new Map();
  for (const line of proseLines(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const words = heading[1]
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]+>/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M}\p{Pc}\- ]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(words) ?? 0;
    seen.set(words, count + 1);
    anchors.add(count === 0 ? words : `${words}-${count}`);
  }
  return anchors;
}

const docs = readdirSync(docsDir).filter((name) => name.endsWith('.md')).sort();
const markdownFiles = [join(root, 'README.md'), ...docs.map((name) => join(docsDir, name))];

void test('the README is at most 300 lines and opens with the two commands', () => {
  const text = readFileSync(join(root, 'README.md'), 'utf8');
  const lines = text.split('\n');
  const count = text.endsWith('\n') ? lines.length - 1 : lines.length; // as wc -l counts
  assert.ok(count <= MAX_README_LINES, `README.md has ${count} lines, more than ${MAX_README_LINES}`);
  assert.equal(lines[0], '# Lanterna');
  assert.equal(lines[2], '```sh');
  assert.match(lines[3], /^bash scripts\/run\.sh\s/, 'the first command runs the product');
  assert.match(lines[4], /^bash scripts\/test\.sh\s/, 'the second command runs the whole suite');
  assert.equal(lines[5], '```');
});

void test('every relative link in README.md and docs/ reaches a file, and every #anchor a heading of it', () => {
  const broken = [];
  const anchorCache = new Map();
  for (const file of markdownFiles) {
    const name = relative(root, file);
    for (const { target, line } of linksOf(readFileSync(file, 'utf8'))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: — not ours to check offline
      const hash = target.indexOf('#');
      const path = hash === -1 ? target : target.slice(0, hash);
      const anchor = hash === -1 ? '' : decodeURIComponent(target.slice(hash + 1));
      const destination = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
      if (!existsSync(destination)) {
        broken.push(`${name}:${line}: ${target}: no such file`);
        continue;
      }
      if (anchor === '') continue;
      if (!destination.endsWith('.md')) {
        broken.push(`${name}:${line}: ${target}: an anchor into a file that is not Markdown`);
        continue;
      }
      if (!anchorCache.has(destination)) anchorCache.set(destination, anchorsOf(readFileSync(destination, 'utf8')));
      if (!anchorCache.get(destination).has(anchor)) {
        broken.push(`${name}:${line}: ${target}: ${relative(root, destination)} has no heading with that anchor`);
      }
    }
  }
  assert.deepEqual(broken, [], `broken links:\n${broken.join('\n')}`);
});

void test('docs/README.md lists every document in docs/', () => {
  const listed = new Set(linksOf(readFileSync(join(docsDir, 'README.md'), 'utf8')).map(({ target }) => target.split('#')[0]));
  const missing = docs.filter((name) => name !== 'README.md' && !listed.has(name));
  assert.deepEqual(missing, [], `docs/README.md does not list: ${missing.join(', ')}`);
});

void test('the anchors are GitHub\'s', () => {
  const anchors = anchorsOf('# Sound: the A/V offset (clapperboard, issue 27)\n## The native data plane (`relay.engine: native`, 2026)\n## Où — 4×4\n## Où — 4×4\n');
  assert.deepEqual([...anchors], ['sound-the-av-offset-clapperboard-issue-27', 'the-native-data-plane-relayengine-native-2026', 'où--44', 'où--44-1']);
});
