// Docker's .dockerignore rules, for checking which files reach the build:
// patterns are Go filepath.Match globs relative to the context root (`*` and
// `?` stay within one path element, `**` spans any number of them), a leading
// `!` re-includes, the last matching line wins, and a pattern that matches a
// directory leaves out everything below it.

interface IgnoreRule {
  pattern: RegExp;
  exclude: boolean;
}

function globToRegExp(glob: string): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i += 1) {
    const char = glob[i] ?? '';
    if (char === '*' && glob[i + 1] === '*') {
      // `**/` is "any directories, or none"; a trailing `**` is "anything"
      if (glob[i + 2] === '/') {
        source += '(?:.*/)?';
        i += 2;
      } else {
        source += '.*';
        i += 1;
      }
    } else if (char === '*') {
      source += '[^/]*';
    } else if (char === '?') {
      source += '[^/]';
    } else {
      source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    }
  }
  return new RegExp(`^${source}$`);
}

export class DockerIgnore {
  private readonly rules: IgnoreRule[];

  constructor(text: string) {
    this.rules = text.split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#'))
      .map((line) => {
        const exclude = !line.startsWith('!');
        const glob = (exclude ? line : line.slice(1)).trim().replace(/^\/+/, '').replace(/\/+$/, '');
        return { pattern: globToRegExp(glob), exclude };
      });
  }

  /** True when the file or directory at this context-relative path is left out of the build context. */
  ignores(path: string): boolean {
    const parts = path.replace(/^\.\//, '').replace(/\/+$/, '').split('/');
    // a directory left out takes everything below it along
    for (let depth = 1; depth <= parts.length; depth += 1) {
      if (this.matches(parts.slice(0, depth).join('/'))) return true;
    }
    return false;
  }

  private matches(path: string): boolean {
    let ignored = false;
    for (const rule of this.rules) {
      if (rule.pattern.test(path)) ignored = rule.exclude;
    }
    return ignored;
  }
}
