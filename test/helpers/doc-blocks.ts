/**
 * Reads the shell examples out of the docs, so a test can run them and compare what they print
 * with what the docs say they print (test/ops/docs-commands.test.ts).
 *
 * The convention, kept light so the docs stay plain Markdown:
 * - a ```bash or ```sh block is a list of commands (a line ending in `\` continues; `# …`
 *   after a command is a comment); each must succeed, and each `-o FILE` it names must be an
 *   image of that file's type;
 * - a ```console block is a session: `$ command` lines, each followed by the output it prints;
 * - a ```bash block of one command followed at once by a ```json or ```text block: that block
 *   is the command's output.
 * Expected output may hold `…`, which stands for any text on its line (a key `cs_development_…`,
 * a date), and a line of only `…` for any lines (a long help text).
 */

/** One command from the docs, with where it is written and, when the docs show it, its output. */
export interface DocCommand {
  file: string;
  /** 1-based line of the command's first line. */
  line: number;
  command: string;
  expected?: { text: string; lang: string };
}

interface Fence {
  lang: string;
  line: number;
  body: string[];
  /** Only blank lines between this fence and the previous one. */
  followsDirectly: boolean;
}

/** The fenced blocks of a Markdown text, in order. */
export function fences(markdown: string): Fence[] {
  const lines = markdown.split('\n');
  const out: Fence[] = [];
  let lastEnd = -10;
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]!); i++) body.push(lines[i]!);
    const between = lines.slice(lastEnd + 1, start);
    out.push({
      lang: open[1] ?? '',
      line: start + 2,
      body,
      followsDirectly: lastEnd >= 0 && between.every((l) => l.trim() === ''),
    });
    lastEnd = i;
  }
  return out;
}

/** Drops a `# comment` that is outside quotes and starts a word. */
export function stripComment(line: string): string {
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"') i++;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '\\') i++;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]!))) return line.slice(0, i).trimEnd();
  }
  return line.trimEnd();
}

/** Joins `\` continuations: each command with the line it starts on (0-based in `lines`). */
function joinCommands(lines: string[]): Array<{ at: number; command: string }> {
  const out: Array<{ at: number; command: string }> = [];
  let current: { at: number; parts: string[] } | null = null;
  lines.forEach((raw, at) => {
    const line = stripComment(raw);
    const continues = line.endsWith('\\');
    const text = continues ? line.slice(0, -1).trimEnd() : line;
    if (current) current.parts.push(text.trim());
    else if (text.trim() !== '') current = { at, parts: [text.trim()] };
    if (!continues && current) {
      out.push({ at: current.at, command: current.parts.join(' ') });
      current = null;
    }
  });
  return out;
}

/** Every command of the shell blocks in `markdown`, with the output the docs show for it. */
export function docCommands(file: string, markdown: string): DocCommand[] {
  const blocks = fences(markdown);
  const out: DocCommand[] = [];
  blocks.forEach((block, n) => {
    if (block.lang === 'bash' || block.lang === 'sh') {
      const commands = joinCommands(block.body);
      const next = blocks[n + 1];
      const output =
        commands.length === 1 && next?.followsDirectly && (next.lang === 'json' || next.lang === 'text')
          ? { text: next.body.join('\n'), lang: next.lang }
          : undefined;
      for (const c of commands) {
        out.push({
          file,
          line: block.line + c.at,
          command: c.command,
          ...(output ? { expected: output } : {}),
        });
      }
    } else if (block.lang === 'console') {
      out.push(...consoleCommands(file, block));
    }
  });
  return out;
}

/** `$ command` lines (with `\` continuations) and the lines each prints. */
function consoleCommands(file: string, block: Fence): DocCommand[] {
  const out: DocCommand[] = [];
  let i = 0;
  const lines = block.body;
  while (i < lines.length) {
    const first = lines[i]!;
    if (!first.startsWith('$ ')) {
      i++;
      continue;
    }
    const at = i;
    const parts = [first.slice(2)];
    while (parts[parts.length - 1]!.endsWith('\\') && i + 1 < lines.length) {
      parts[parts.length - 1] = parts[parts.length - 1]!.slice(0, -1).trimEnd();
      parts.push(lines[++i]!.trim());
    }
    i++;
    const output: string[] = [];
    while (i < lines.length && !lines[i]!.startsWith('$ ')) output.push(lines[i++]!);
    out.push({
      file,
      line: block.line + at,
      command: stripComment(parts.join(' ')),
      expected: { text: output.join('\n').trimEnd(), lang: 'console' },
    });
  }
  return out;
}

/** A pattern for expected text: `…` matches any run of characters on a line, a line of only `…` any lines. */
function textPattern(expected: string): RegExp {
  const lines = expected.split('\n').map((line) =>
    line.trim() === '…'
      ? '[\\s\\S]*?'
      : line
          .trimEnd()
          .split('…')
          .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
          .join('[^\\n]*?'),
  );
  return new RegExp(`^${lines.join('\n')}$`);
}

/** Whether `actual` reads as the docs' `expected` text (trailing spaces and blank lines aside). */
export function textMatches(expected: string, actual: string): boolean {
  const tidy = (t: string) =>
    t
      .split('\n')
      .map((l) => l.trimEnd())
      .join('\n')
      .trim();
  return textPattern(tidy(expected)).test(tidy(actual));
}

/**
 * Where `actual` differs from the docs' `expected` JSON, as a list of `path: why` (empty when it
 * matches). Keys must be the same; strings equal (or match with `…`); numbers, and digits in
 * strings, only have to be numbers, since the docs show sample timings, counts, dates and pids.
 */
export function jsonDifferences(expected: unknown, actual: unknown, at = '$'): string[] {
  if (typeof expected === 'number') return typeof actual === 'number' ? [] : [`${at}: not a number`];
  if (typeof expected === 'string') {
    // Numbers inside strings are samples too ("rendered a card in 9 ms", a date, a pid).
    const pattern = new RegExp(textPattern(expected).source.replace(/\d+/g, '\\d+'));
    return typeof actual === 'string' && pattern.test(actual)
      ? []
      : [`${at}: ${JSON.stringify(actual)} is not ${JSON.stringify(expected)}`];
  }
  if (expected === null || typeof expected !== 'object') {
    return expected === actual ? [] : [`${at}: ${JSON.stringify(actual)} is not ${JSON.stringify(expected)}`];
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length)
      return [`${at}: not an array of ${expected.length}`];
    return expected.flatMap((e, i) => jsonDifferences(e, actual[i], `${at}[${i}]`));
  }
  if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return [`${at}: not an object`];
  const e = expected as Record<string, unknown>;
  const a = actual as Record<string, unknown>;
  const missing = Object.keys(e)
    .filter((k) => !(k in a))
    .map((k) => `${at}.${k}: missing`);
  const extra = Object.keys(a)
    .filter((k) => !(k in e))
    .map((k) => `${at}.${k}: not in the docs`);
  return [
    ...missing,
    ...extra,
    ...Object.keys(e)
      .filter((k) => k in a)
      .flatMap((k) => jsonDifferences(e[k], a[k], `${at}.${k}`)),
  ];
}
