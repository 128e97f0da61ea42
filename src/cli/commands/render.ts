import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import type { Plan } from '../../auth/plans.js';
import { FILE_EXTENSION } from '../../client/options.js';
import { isAppError } from '../../errors.js';
import { createLogger } from '../../log.js';
import { createModules, type Modules } from '../../modules.js';
import { createUnmeteredRenderCommand, type RenderCaller, type RenderCommand } from '../../render/command.js';
import { parseTemplateRequest } from '../../render/template/request.js';
import { DEFAULT_SIZE, isSizeName, SIZES } from '../../render/template/sizes.js';
import { loadConfig } from '../../settings.js';
import { createProgress } from '../progress.js';
import { parseRenderArgs, type RenderArgs, templateHelp } from '../render/args.js';
import { openTemplates } from '../templates/registry.js';

const HELP = `Render cards locally, without a server.

  npx cardshot render <template> --title "…" [--<field> value …] [--size square] [--account <id|email>] [-o card.png]
  npx cardshot render --batch cards.json|cards.csv --out-dir dir/ [--concurrency N]
  npx cardshot render --help --template <template>    that template's fields and sizes

Each field a template declares is an option (--title, --subtitle for the built-ins; a custom
template's own, such as --accent-color), beside --brand, --image-url, --size, --format and
--quality. Cards are drawn without a brand theme unless --account <id|email> names an account:
then templates that draw themes use that account's (npx cardshot theme show --account …), and
--no-theme keeps the template's own look.

A batch file is a JSON array of objects, or a CSV file with a header row, using the same
names as the API: template, each field, brand, imageUrl, size, theme, format, quality, and
optionally filename (the output name). Failed rows are listed with their reason; the exit
status is 1 when any row failed.`;

/** `cardshot render`: one card to a file, or a batch to a folder. */
export async function runRender(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) return help(argv);
  const config = loadConfig({ cacheDiskBytes: 0, logLevel: 'warn' });
  // Only what drawing cards needs: no Chromium, Redis, sessions or limiter, and the database
  // only when --account names whose theme to draw.
  const areas: Array<'templates' | 'themes'> = ['templates'];
  if (argv.some((a) => a === '--account' || a.startsWith('--account='))) areas.push('themes');
  const modules = await createModules(config, createLogger(config, process.stderr as never), { areas });
  try {
    let args: RenderArgs;
    try {
      args = parseRenderArgs(argv, modules.registry);
    } catch (err) {
      process.stderr.write(`cardshot render: ${(err as Error).message}\n\n${HELP}\n`);
      return 2;
    }
    let account: string | undefined;
    try {
      account =
        args.account === undefined
          ? undefined
          : (await modules.accounts.credentials.findAccount(args.account)).id;
    } catch (err) {
      process.stderr.write(`cardshot render: ${describe(err)}\n`);
      return 1;
    }
    const cli: CliRender = {
      modules,
      command: createUnmeteredRenderCommand(modules),
      caller: { accountId: account ?? CLI_CALLER, plan: OPERATOR_PLAN, limit: 'none' },
    };
    return args.batch !== undefined ? await renderBatch(cli, args) : await renderOne(cli, args);
  } finally {
    await modules.close();
  }
}

/** The general help, or with `--template NAME` that template's options from its declaration. */
async function help(argv: string[]): Promise<number> {
  const { registry } = await openTemplates(undefined);
  try {
    const args = parseRenderArgs(argv, registry);
    const def = args.template === undefined ? undefined : registry.get(args.template);
    if (args.template !== undefined && !def) {
      process.stderr.write(
        `cardshot render: no template "${args.template}"; known: ${registry.names().join(', ')}\n`,
      );
      return 2;
    }
    const list = `Templates: ${registry.names().join(', ')} (render --help --template NAME for its fields)`;
    process.stdout.write(`${def ? templateHelp(def) : `${HELP}\n\n${list}`}\n`);
    return 0;
  } catch (err) {
    process.stderr.write(`cardshot render: ${(err as Error).message}\n`);
    return 2;
  } finally {
    await registry.close();
  }
}

/** The modules a render run starts: templates, and themes with --account. */
type RenderModules = Modules<'templates' | 'themes'>;

/**
 * The operator's rights: every template. The CLI runs with the data dir's own access, not an
 * account's; --account only chooses whose brand theme to draw.
 */
const OPERATOR_PLAN: Plan = {
  name: 'operator',
  templates: '*',
  screenshots: false,
  rateLimit: { requests: 1, windowSeconds: 1 },
  signedRateLimit: { requests: 1, windowSeconds: 1 },
  jobs: { maxItems: 1, concurrency: 1, maxWaiting: 1, retentionDays: 1 },
};

/** Who a card is drawn for without --account: no account's theme, a cache scope of its own. */
const CLI_CALLER = 'cli';

/** What a run renders with: the modules, the render command, and who the cards are for. */
interface CliRender {
  modules: RenderModules;
  command: Pick<RenderCommand<'none'>, 'card'>;
  caller: RenderCaller<'none'>;
}

async function renderOne({ modules, command, caller }: CliRender, args: RenderArgs): Promise<number> {
  const out = args.output ?? 'card.png';
  try {
    const started = performance.now();
    const result = await command.card(
      parseTemplateRequest(args.input, 'body', undefined, modules.registry),
      caller,
    );
    if (result.kind !== 'png') throw new Error('unexpected 304');
    await writeFile(out, result.body);
    const ms = performance.now() - started;
    const { width, height } = sizeOf(modules, args.input);
    process.stdout.write(`${out}: ${result.body.length} bytes, ${width}×${height}, ${ms.toFixed(0)} ms\n`);
    return 0;
  } catch (err) {
    process.stderr.write(`cardshot render: ${describe(err)}\n`);
    return 1;
  }
}

/** The card's pixels: the size asked for, else the template's first. */
function sizeOf(modules: RenderModules, input: Record<string, string>): { width: number; height: number } {
  const asked = input.size;
  if (asked !== undefined && isSizeName(asked)) return SIZES[asked];
  const first = modules.registry.get(input.template ?? '')?.sizes[0];
  return first ? SIZES[first] : DEFAULT_SIZE;
}

interface BatchRow {
  index: number;
  input: Record<string, unknown>;
  /** From a CSV file, where every row has every column. */
  csv: boolean;
}

/**
 * A CSV row without its empty cells in columns its template does not declare: a file mixing
 * templates has every template's columns, and an empty cell there is a field left out (as an
 * empty optional field is in the API), not an unknown one. A declared field stays, so an empty
 * title is still refused as empty.
 */
function withoutEmptyUndeclared(
  input: Record<string, unknown>,
  modules: RenderModules,
): Record<string, unknown> {
  const def = modules.registry.get(String(input.template ?? ''));
  if (!def) return input;
  return Object.fromEntries(
    Object.entries(input).filter(([k, v]) => v !== '' || Object.hasOwn(def.fields, k)),
  );
}

async function renderBatch(cli: CliRender, args: RenderArgs): Promise<number> {
  const { modules, command, caller } = cli;
  const file = args.batch as string;
  const outDir = args.outDir ?? 'cards';
  const concurrency = Math.max(1, Number(args.concurrency ?? 4) || 4);
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
        const { filename, ...given } = row.input;
        const fields = row.csv ? withoutEmptyUndeclared(given, modules) : given;
        const req = parseTemplateRequest(fields, 'body', undefined, modules.registry);
        const result = await command.card(req, caller);
        if (result.kind !== 'png') throw new Error('unexpected 304');
        // A row may ask for another format (its format column): the file's extension follows it.
        const name = uniqueName(
          typeof filename === 'string' && filename ? filename : slug(row.index, labelOf(fields)),
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
  const csv = file.toLowerCase().endsWith('.csv');
  if (csv) {
    records = parseCsv(text, { columns: true, skip_empty_lines: true, trim: true, bom: true });
  } else {
    const parsed: unknown = JSON.parse(text);
    if (!Array.isArray(parsed)) throw new Error('a JSON batch must be an array of objects');
    records = parsed;
  }
  // Rows are numbered from 1 as a person counts them (the CSV header is not a row).
  return records.map((input, i) => ({ index: i + 1, input: input as Record<string, unknown>, csv }));
}

/** The text a row's file is named after: its title, or a custom template's first text field. */
function labelOf(fields: Record<string, unknown>): string {
  if (typeof fields.title === 'string') return fields.title;
  const skip = new Set(['template', 'brand', 'imageUrl', 'size', 'theme', 'format', 'quality']);
  const first = Object.entries(fields).find(([k, v]) => !skip.has(k) && typeof v === 'string');
  return first ? String(first[1]) : '';
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
