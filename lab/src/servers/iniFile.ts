/**
 * Sets keys in an INI text, keeping everything else (comments, order,
 * repeated keys like sesman's `param=`): an existing `key=` in the section is
 * replaced, a missing one is added at the section's end, a missing section is
 * appended. Pure, so xrdp's own files can be adapted and tested without xrdp.
 */
export function setIniValues(text: string, section: string, values: Readonly<Record<string, string>>): string {
  const lines = text.split('\n');
  const pending = new Map(Object.entries(values));
  let inSection = false;
  let sectionEnd = -1;
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index] ?? '';
    const header = /^\s*\[([^\]]+)\]/.exec(line);
    if (header !== null) {
      if (inSection) break;
      inSection = header[1] === section;
      if (inSection) sectionEnd = index + 1;
      continue;
    }
    if (!inSection) continue;
    const entry = /^\s*([^;#=\s][^=]*?)\s*=/.exec(line);
    if (entry?.[1] !== undefined && pending.has(entry[1])) {
      lines[index] = `${entry[1]}=${pending.get(entry[1]) ?? ''}`;
      pending.delete(entry[1]);
    }
    if (line.trim() !== '') sectionEnd = index + 1;
  }
  const additions = [...pending].map(([key, value]) => `${key}=${value}`);
  if (additions.length === 0) return lines.join('\n');
  if (sectionEnd === -1) return `${text.replace(/\n*$/, '\n')}\n[${section}]\n${additions.join('\n')}\n`;
  lines.splice(sectionEnd, 0, ...additions);
  return lines.join('\n');
}
