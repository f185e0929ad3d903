// Reads a Dockerfile into its stages and instructions, enough to check what
// the image promises (user, health check, volume, ports, env, copied files)
// without a Docker engine: continuation lines joined, comment lines dropped
// (also inside a continuation, as Docker does), keywords upper-cased.

export interface Instruction {
  keyword: string;
  /** Everything after the keyword, continuations joined with a space. */
  args: string;
  /** 1-based line where the instruction starts. */
  line: number;
}

export interface Stage {
  /** The name after AS, or the stage's index as a string. */
  name: string;
  /** The image it starts from, as written (build args not expanded). */
  from: string;
  instructions: Instruction[];
}

export interface Dockerfile {
  /** ARG instructions before the first FROM. */
  globalArgs: Instruction[];
  stages: Stage[];
}

export function readDockerfile(text: string): Dockerfile {
  const instructions: Instruction[] = [];
  let pending: { parts: string[]; line: number } | undefined;
  text.split('\n').forEach((raw, index) => {
    const line = raw.trimEnd();
    const trimmed = line.trim();
    if (trimmed.startsWith('#') || (trimmed === '' && pending === undefined)) return;
    if (trimmed === '') return; // an empty line inside a continuation
    const continues = line.endsWith('\\');
    const part = continues ? line.slice(0, -1).trim() : trimmed;
    if (pending === undefined) pending = { parts: [], line: index + 1 };
    pending.parts.push(part);
    if (continues) return;
    const joined = pending.parts.join(' ');
    const match = /^(\S+)\s*(.*)$/s.exec(joined);
    if (match?.[1] !== undefined) instructions.push({ keyword: match[1].toUpperCase(), args: match[2] ?? '', line: pending.line });
    pending = undefined;
  });
  if (pending !== undefined) throw new Error(`dockerfile ends inside a continuation (line ${pending.line})`);

  const result: Dockerfile = { globalArgs: [], stages: [] };
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') {
      const [from = '', as, name] = instruction.args.split(/\s+/);
      const named = as?.toUpperCase() === 'AS' && name !== undefined;
      result.stages.push({ name: named ? name : String(result.stages.length), from, instructions: [] });
      continue;
    }
    const stage = result.stages.at(-1);
    if (stage === undefined) {
      if (instruction.keyword !== 'ARG') throw new Error(`${instruction.keyword} before the first FROM (line ${instruction.line})`);
      result.globalArgs.push(instruction);
    } else {
      stage.instructions.push(instruction);
    }
  }
  return result;
}

export function stageNamed(dockerfile: Dockerfile, name: string): Stage {
  const stage = dockerfile.stages.find((candidate) => candidate.name === name);
  if (stage === undefined) throw new Error(`no stage named ${name}`);
  return stage;
}

export function instructionsOf(stage: Stage, keyword: string): Instruction[] {
  return stage.instructions.filter((instruction) => instruction.keyword === keyword);
}

/** The stage's environment from its ENV instructions (KEY=VALUE form; quotes removed). */
export function envOf(stage: Stage): Record<string, string> {
  const env: Record<string, string> = {};
  for (const { args } of instructionsOf(stage, 'ENV')) {
    for (const match of args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|\S*)/g)) {
      const [, key = '', value = ''] = match;
      env[key] = value.startsWith('"') ? (JSON.parse(value) as string) : value;
    }
  }
  return env;
}

/** An instruction's exec form (a JSON array), e.g. CMD ["node", "x.js"]. */
export function execForm(args: string): string[] {
  const parsed: unknown = JSON.parse(args);
  if (!Array.isArray(parsed) || !parsed.every((item) => typeof item === 'string')) throw new Error(`not an exec form: ${args}`);
  return parsed;
}

export interface CopyFromContext {
  sources: string[];
  destination: string;
  line: number;
}

/** COPY/ADD instructions that read the build context (no --from), with their sources. */
export function contextCopies(dockerfile: Dockerfile): CopyFromContext[] {
  const copies: CopyFromContext[] = [];
  for (const stage of dockerfile.stages) {
    for (const instruction of stage.instructions) {
      if (instruction.keyword !== 'COPY' && instruction.keyword !== 'ADD') continue;
      const words = instruction.args.split(/\s+/);
      if (words.some((word) => word.startsWith('--from='))) continue;
      const paths = words.filter((word) => !word.startsWith('--'));
      const destination = paths.pop();
      if (destination === undefined || paths.length === 0) throw new Error(`${instruction.keyword} without a source (line ${instruction.line})`);
      copies.push({ sources: paths, destination, line: instruction.line });
    }
  }
  return copies;
}
