import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ScreenshotInput } from '../../client/cardshot.js';
import { FILE_EXTENSION as EXTENSION, type ImageFormat } from '../../client/options.js';
import { cliFlag, type OptionSpec, SHOT_OPTIONS } from '../../render/screenshot/option-table.js';
import { parseVerbArgs, UsageError } from '../admin.js';

type FlagConfig = { type: 'boolean' } | { type: 'string'; multiple?: true };

/** The flags of the screenshot options, from the option table: a switch, or a value. */
const OPTION_FLAGS: Record<string, FlagConfig> = Object.fromEntries(
  SHOT_OPTIONS.map((o: OptionSpec) => [
    cliFlag(o),
    o.type === 'flag'
      ? { type: 'boolean' }
      : o.cli.repeatable
        ? { type: 'string', multiple: true }
        : { type: 'string' },
  ]),
);

/** The flags of `npx cardshot shot`, as node:util parseArgs reads them. */
const FLAGS = {
  viewport: { type: 'string' },
  'wait-until': { type: 'string' },
  ...OPTION_FLAGS,
  // --pdf: the same as --format pdf (what urlbox's and ScreenshotOne's users reach for).
  pdf: { type: 'boolean' },
  output: { type: 'string', short: 'o' },
  batch: { type: 'string' },
  concurrency: { type: 'string' },
  server: { type: 'string' },
  'api-key': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The screenshot options without the page: what every URL of a batch shares. */
export type ShotOptions = Omit<ScreenshotInput, 'url'>;

/** A `shot` command line, checked. */
export interface ShotArgs {
  help: boolean;
  /** One page to a file (`-` is standard output), or a batch file (`-` is standard input) to a folder. */
  target: { kind: 'one'; url: string; output: string } | { kind: 'batch'; file: string; outDir: string };
  options: ShotOptions;
  format: ImageFormat;
  concurrency: number;
  /** --server; otherwise the server's own address from the configuration. */
  server: string | undefined;
  /** --api-key (`-` reads it from standard input); otherwise CARDSHOT_KEY. */
  apiKey: string | undefined;
}

const BY_EXTENSION: Readonly<Record<string, ImageFormat>> = {
  '.png': 'png',
  '.jpg': 'jpeg',
  '.jpeg': 'jpeg',
  '.webp': 'webp',
  '.avif': 'avif',
  '.pdf': 'pdf',
};
/** Image files Cardshot cannot write: refused rather than filled with PNG bytes. */
const OTHER_IMAGES = new Set(['.gif', '.bmp', '.tif', '.tiff', '.heic', '.heif', '.svg', '.ico', '.jxl']);
const FORMATS = 'png, jpeg, webp, avif or pdf';

/** Parses and checks `npx cardshot shot …`; throws UsageError (exit 2) for a line that cannot work. */
export function parseShotArgs(argv: string[]): ShotArgs {
  const { values: v, positionals } = parseVerbArgs(argv, FLAGS);
  const base = {
    help: v.help ?? false,
    concurrency: v.concurrency === undefined ? 2 : intFlag('--concurrency', v.concurrency, 1, 16),
    server: v.server,
    apiKey: v['api-key'],
  };
  if (base.help) {
    return { ...base, target: { kind: 'one', url: '', output: '' }, options: {}, format: 'png' };
  }
  const given = (v as Record<string, unknown>).format as string | undefined;
  if (v.pdf && given !== undefined && formatFlag(given) !== 'pdf')
    throw new UsageError(`--pdf and --format ${given} disagree: give one of them`);
  const requested = given ?? (v.pdf ? 'pdf' : undefined);
  const format = chooseFormat(requested, v.batch === undefined ? v.output : undefined);
  const options = shotOptions(v, format);
  if (v.batch !== undefined) {
    if (positionals.length > 0) throw new UsageError('give one URL or --batch FILE, not both');
    return {
      ...base,
      target: { kind: 'batch', file: v.batch, outDir: v.output ?? 'screenshots' },
      options,
      format,
    };
  }
  if (positionals.length !== 1) {
    throw new UsageError(
      positionals.length === 0 ? 'give the URL of the page' : 'give one URL (or --batch FILE)',
    );
  }
  const url = positionals[0]!;
  const output =
    v.output ?? defaultFileName(checkedUrl(url), format, options.response === 'json' ? 'json' : undefined);
  return { ...base, target: { kind: 'one', url, output }, options, format };
}

type Values = ReturnType<typeof parseVerbArgs<typeof FLAGS>>['values'];

function shotOptions(v: Values, format: ImageFormat): ShotOptions {
  const o: Record<string, unknown> = {};
  if (v.viewport !== undefined) o.viewport = v.viewport;
  if (v['wait-until'] !== undefined) o.waitUntil = v['wait-until'];
  const values = v as Record<string, string | boolean | string[] | undefined>;
  for (const spec of SHOT_OPTIONS as readonly OptionSpec[]) {
    const flag = `--${cliFlag(spec)}`;
    const value = values[cliFlag(spec)];
    // The format is chosen with -o's extension (chooseFormat), and PNG is never sent.
    if (spec.type === 'format') {
      if (format !== spec.none) o[spec.name] = format;
      continue;
    }
    if (value === undefined || value === false) continue;
    o[spec.name] = optionValue(spec, flag, value, format);
  }
  return o as ShotOptions;
}

/** One option's value from its flag; the server checks the ranges and names them. */
function optionValue(spec: OptionSpec, flag: string, value: string | true | string[], format: ImageFormat) {
  switch (spec.type) {
    case 'selectors':
      return (Array.isArray(value) ? value : [String(value)]).flatMap((s) => s.split(','));
    case 'integer':
      return intFlag(flag, String(value));
    case 'scale':
      // A PDF's print scale is a number from 0.1 to 2 (the server checks the range).
      if (format === 'pdf') return numberFlag(flag, String(value));
      return scaleFlag(String(value), spec.values);
    case 'quality':
      if (format === 'png') throw new UsageError(`${flag} is for jpeg, webp and avif (PNG is lossless)`);
      return intFlag(flag, String(value));
    case 'flag':
      // A switch on by default (printBackground) is a --no-… flag: given, it turns it off.
      return spec.on !== true;
    case 'credential':
      return credentialFlag(spec.shape, flag, value);
    case 'text':
      // --css @file reads the stylesheet from a file, as curl's -d @file does.
      if (spec.name === 'css' && String(value).startsWith('@')) return cssFile(flag, String(value).slice(1));
      return String(value);
    default:
      return String(value);
  }
}

/** The help's lines for the screenshot options: flag, what it does, an example. */
export function optionHelpLines(): string[] {
  return (SHOT_OPTIONS as readonly OptionSpec[]).map((o) => {
    const usage = `--${cliFlag(o)}${o.cli.arg ? ` ${o.cli.arg}` : ''}`;
    return `  ${usage.padEnd(23)}  ${o.cli.help.padEnd(56)}  ${o.cli.example}`;
  });
}

/**
 * --format, else the output file's extension, else PNG. Both given and disagreeing is refused:
 * a `.png` file holding WebP bytes breaks whatever opens it later.
 */
export function chooseFormat(flag: string | undefined, output: string | undefined): ImageFormat {
  const fromFlag = flag === undefined ? undefined : formatFlag(flag);
  const ext = output === undefined || output === '-' ? '' : path.extname(output).toLowerCase();
  if (OTHER_IMAGES.has(ext)) {
    throw new UsageError(`cannot write ${ext} files: -o must end in .png, .jpg, .webp or .avif`);
  }
  const fromExt = BY_EXTENSION[ext];
  if (fromFlag && fromExt && fromFlag !== fromExt) {
    throw new UsageError(
      `--format ${fromFlag} does not match -o ${output}: use a .${EXTENSION[fromFlag]} name`,
    );
  }
  return fromFlag ?? fromExt ?? 'png';
}

function formatFlag(value: string): ImageFormat {
  const f = value.trim().toLowerCase();
  if (f === 'jpg') return 'jpeg';
  if (f === 'png' || f === 'jpeg' || f === 'webp' || f === 'avif' || f === 'pdf') return f;
  throw new UsageError(`--format must be ${FORMATS} (got "${value}")`);
}

/** A credential from its flag: `--header 'Name: value'` and `--cookie name=value` repeat. */
function credentialFlag(shape: string, flag: string, value: string | true | string[]): unknown {
  const list = Array.isArray(value) ? value : [String(value)];
  const split = (s: string, sep: string) => {
    const at = s.indexOf(sep);
    if (at <= 0)
      throw new UsageError(
        `${flag} takes ${shape === 'headers' ? "'Name: value'" : 'name=value'} (got "${s.slice(0, 40)}")`,
      );
    return [s.slice(0, at).trim(), s.slice(at + 1).trim()] as const;
  };
  switch (shape) {
    case 'headers':
      return Object.fromEntries(list.map((s) => split(s, ':')));
    case 'cookies':
      return list.map((s) => {
        const [name, v] = split(s, '=');
        return { name, value: v };
      });
    case 'basicAuth': {
      const [username, password] = split(String(list[0]), ':');
      return { username, password };
    }
    default:
      return String(list[0]);
  }
}

function cssFile(flag: string, file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(
      `${flag} @${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
}

function numberFlag(flag: string, value: string): number {
  if (!/^\d+(\.\d+)?$/.test(value.trim())) throw new UsageError(`${flag} must be a number (got "${value}")`);
  return Number(value);
}

function scaleFlag(value: string, values: readonly number[]): number {
  const n = values.find((s) => String(s) === value);
  if (n !== undefined) return n;
  const choices = `${values.slice(0, -1).join(', ')} or ${values.at(-1)}`;
  throw new UsageError(`--scale must be ${choices} (got "${value}")`);
}

/** A whole number; the server checks the ranges of screenshot options and names them. */
function intFlag(flag: string, value: string, min?: number, max?: number): number {
  if (!/^\d+$/.test(value.trim())) throw new UsageError(`${flag} must be a whole number (got "${value}")`);
  const n = Number(value);
  if ((min !== undefined && n < min) || (max !== undefined && n > max)) {
    throw new UsageError(`${flag} must be ${min} to ${max} (got ${n})`);
  }
  return n;
}

/** The URL as given, if it is absolute; a bare host name gets a hint rather than a guess. */
function checkedUrl(url: string): URL {
  try {
    return new URL(url);
  } catch {
    const hint = /^[\w.-]+\.[a-z]{2,}(\/.*)?$/i.test(url) ? `: did you mean https://${url}?` : '';
    throw new UsageError(`"${url}" is not an absolute http or https URL${hint}`);
  }
}

/** `example.com.png`: the page's host name and the format's extension. */
export function defaultFileName(url: URL, format: ImageFormat, extension?: 'json'): string {
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/[^\w.-]+/g, '-') || 'page';
  return `${host}.${extension ?? EXTENSION[format]}`;
}
