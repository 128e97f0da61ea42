import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';

/** Rows of cells; the first row is the header. */
export type Table = string[][];

/** A fixed-width text table for the terminal. */
export function textTable(rows: Table): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) =>
    r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(rows[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

/** The same rows as a GitHub-flavoured Markdown table. */
export function markdownTable(rows: Table): string {
  const line = (r: string[]) => `| ${r.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`;
  return [
    line(rows[0]!),
    `|${rows[0]!.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`,
    ...rows.slice(1).map(line),
  ].join('\n');
}

/** One line of machine facts: absolute numbers mean little without them. */
export function machineFacts(): string {
  const cpu = os.cpus()[0]?.model.trim() ?? 'unknown CPU';
  const gib = (os.totalmem() / 1024 ** 3).toFixed(1);
  return `${os.availableParallelism()} cores (${cpu}), ${gib} GiB RAM, Node ${process.version}, ${os.platform()} ${os.release()}`;
}

/**
 * Replaces this benchmark's section of a shared Markdown file (between HTML comment markers)
 * and leaves the rest alone, so several benchmarks can each own a part of one page.
 */
export function writeSection(file: string, id: string, markdown: string, title = '# Benchmarks\n'): void {
  const start = `<!-- bench:${id}:start -->`;
  const end = `<!-- bench:${id}:end -->`;
  const block = `${start}\n${markdown.trim()}\n${end}`;
  const current = existsSync(file) ? readFileSync(file, 'utf8') : `${title}\n`;
  const from = current.indexOf(start);
  const to = current.indexOf(end);
  const next =
    from >= 0 && to > from
      ? current.slice(0, from) + block + current.slice(to + end.length)
      : `${current.trimEnd()}\n\n${block}\n`;
  writeFileSync(file, next);
}
