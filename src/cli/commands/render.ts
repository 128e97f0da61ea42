import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { parse as parseCsv } from 'csv-parse/sync';
import { FILE_EXTENSION } from '../../client/options.js';
import { isAppError } from '../../errors.js';
import { createLogger } from '../../log.js';
import { createModules, type Modules } from '../../modules.js';
import { parseTemplateRequest } from '../../render/template/request.js';
import { loadConfig } from '../../settings.js';
import { createProgress } from '../progress.js';

const HELP = `Render cards locally, without a server.

  npx cardshot render <template> --title "…" [--subtitle "…"] [--brand "…"] [--image-url URL] [-o card.png]
  npx cardshot render --batch cards.json|cards.csv --out-dir dir/ [--concurrency N]

A batch file is a JSON array of objects, or a CSV file with a header row, using the fields
template, title, subtitle, brand, imageUrl and optionally filename (the output name).
Failed rows are listed with their reason; the exit status is 1 when any row failed.`;

/** `cardshot render`: one card to a file, or a batch to a folder. */
export async function runRender(argv: string[]): Promise<number> {
  let args: ReturnType<typeof parse>;
  try {
    args = parse(argv);
  } catch (err) {
    process.stderr.write(`cardshot render: ${(err as Error).message}\n\n${HELP}\n`);
    return 2;
  }
  if (args.values.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const config = loadConfig({ cacheDiskBytes: 0, logLevel: 'warn' });
  const modules = await createModules(config, createLogger(config, process.stderr as never));
  try {
    return args.values.batch ? await renderBatch(modules, args.values) : await renderOne(modules, args);
  } finally {
    await modules.close();
  }
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      title: { type: 'string' },
      subtitle: { type: 'string' },
      brand: { type: 'string' },
      'image-url': { type: 'string' },
      output: { type: 'string', short: 'o' },
      batch: { type: 'string' },
      'out-dir': { type: 'string' },
      concurrency: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

async function renderOne(modules: Modules, args: ReturnType<typeof parse>): Promise<number> {
  const v = args.values;
  const input: Record<string, string> = { template: args.positionals[0] ?? '' };
  if (v.title !== undefined) input.title = v.title;
  if (v.subtitle !== undefined) input.subtitle = v.subtitle;
  if (v.brand !== undefined) input.brand = v.brand;
  if (v['image-url'] !== undefined) input.imageUrl = v['image-url'];
  const out = v.output ?? 'card.png';
  try {
    const started = performance.now();
    const result = await modules.templates.resolve(
      parseTemplateRequest(input, 'body', undefined, modules.registry),
    );
    if (result.kind !== 'png') throw new Error('unexpected 304');
    await writeFile(out, result.body);
    const ms = performance.now() - started;
    process.stdout.write(`${out}: ${result.body.length} bytes, 1200×630, ${ms.toFixed(0)} ms\n`);
    return 0;
  } catch (err) {
    process.stderr.write(`cardshot render: ${describe(err)}\n`);
    return 1;
  }
}

interface BatchRow {
  index: number;
  input: Record<string, unknown>;
}

async function renderBatch(modules: Modules, v: ReturnType<typeof parse>['values']): Promise<number> {
  const file = v.batch as string;
  const outDir = v['out-dir'] ?? 'cards';
  const concurrency = Math.max(1, Number(v.concurrency ?? 4) || 4);
  let rows: BatchRow[];
  try {
    rows = await readBatch(file);
  } catch (err) {
    process.stderr.write(`cardshot render: cannot read ${file}: ${(err as Error).message}\n`);
    return 2;
  }
  await mkdir(outDir, { recursive: true });
  const progress = createProgress(rows.length, process.stderr);
  const failures: Array<{ row: number; reason: string }> = [];
  const used = new Set<string>();
  let next = 0;
  let done = 0;
  const started = performance.now();

  const worker = async () => {
    while (next < rows.length) {
      const row = rows[next++]!;
      try {
        const { filename, ...fields } = row.input;
        const req = parseTemplateRequest(fields, 'body', undefined, modules.registry);
        const result = await modules.templates.resolve(req);
        if (result.kind !== 'png') throw new Error('unexpected 304');
        // A row may ask for another format (its format column): the file's extension follows it.
        const name = uniqueName(
          typeof filename === 'string' && filename
            ? filename
            : slug(row.index, String(req.fields.title ?? '')),
          used,
          FILE_EXTENSION[result.format],
        );
        await writeFile(path.join(outDir, name), result.body);
      } catch (err) {
        failures.push({ row: row.index, reason: describe(err) });
      }
      progress.tick(++done, failures.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, rows.length) }, worker));
  progress.finish();

  const secs = ((performance.now() - started) / 1000).toFixed(1);
  process.stdout.write(
    `Rendered ${rows.length - failures.length} of ${rows.length} cards into ${outDir.replace(/\/+$/, '')}/ in ${secs} s`,
  );
  process.stdout.write(failures.length ? `; ${failures.length} failed:\n` : '\n');
  for (const f of failures.sort((a, b) => a.row - b.row))
    process.stdout.write(`  row ${f.row}: ${f.reason}\n`);
  return failures.length ? 1 : 0;
}

async function readBatch(file: string): Promise<BatchRow[]> {
  const text = await readFile(file, 'utf8');
  let records: unknown[];
  if (file.toLowerCase().endsWith('.csv')) {
    records = parseCsv(text, { columns: true, skip_empty_lines: true, trim: true, bom: true });
  } else {
    const parsed: unknown = JSON.parse(text);
    if (!Array.isArray(parsed)) throw new Error('a JSON batch must be an array of objects');
    records = parsed;
  }
  // Rows are numbered from 1 as a person counts them (the CSV header is not a row).
  return records.map((input, i) => ({ index: i + 1, input: input as Record<string, unknown> }));
}

function slug(index: number, title: string): string {
  const base = title
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  return `${String(index).padStart(3, '0')}${base ? `-${base}` : ''}`;
}

/** A file name in the output folder, once only, ending in the image's own extension. */
function uniqueName(name: string, used: Set<string>, ext: string): string {
  const stem = path
    .basename(name)
    .replace(/[^\w.-]+/g, '-')
    .replace(/\.(png|jpe?g|webp|avif)$/i, '');
  let candidate = `${stem}.${ext}`;
  for (let n = 2; used.has(candidate); n++) candidate = `${stem}-${n}.${ext}`;
  used.add(candidate);
  return candidate;
}

function describe(err: unknown): string {
  if (isAppError(err)) return err.message;
  return err instanceof Error ? err.message : String(err);
}
