import path from 'node:path';
import type { ScreenshotInput } from '../../client/cardshot.js';
import { FILE_EXTENSION as EXTENSION, type ImageFormat, type Scale } from '../../client/options.js';
import { parseVerbArgs, UsageError } from '../admin.js';

/** The flags of `npx cardshot shot`, as node:util parseArgs reads them. */
const FLAGS = {
  viewport: { type: 'string' },
  'wait-until': { type: 'string' },
  'full-page': { type: 'boolean' },
  selector: { type: 'string' },
  'wait-for-selector': { type: 'string' },
  delay: { type: 'string' },
  'dark-mode': { type: 'boolean' },
  hide: { type: 'string', multiple: true },
  'block-ads': { type: 'boolean' },
  'block-cookie-banners': { type: 'boolean' },
  scale: { type: 'string' },
  format: { type: 'string' },
  quality: { type: 'string' },
  ttl: { type: 'string' },
  fresh: { type: 'boolean' },
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
};
/** Image files Cardshot cannot write: refused rather than filled with PNG bytes. */
const OTHER_IMAGES = new Set(['.gif', '.bmp', '.tif', '.tiff', '.heic', '.heif', '.svg', '.ico', '.jxl']);
const FORMATS = 'png, jpeg, webp or avif';

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
  const format = chooseFormat(v.format, v.batch === undefined ? v.output : undefined);
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
  const output = v.output ?? defaultFileName(checkedUrl(url), format);
  return { ...base, target: { kind: 'one', url, output }, options, format };
}

type Values = ReturnType<typeof parseVerbArgs<typeof FLAGS>>['values'];

function shotOptions(v: Values, format: ImageFormat): ShotOptions {
  const o: Record<string, unknown> = {};
  if (v.viewport !== undefined) o.viewport = v.viewport;
  if (v['wait-until'] !== undefined) o.waitUntil = v['wait-until'];
  if (v['full-page']) o.fullPage = true;
  if (v.selector !== undefined) o.selector = v.selector;
  if (v['wait-for-selector'] !== undefined) o.waitForSelector = v['wait-for-selector'];
  if (v.delay !== undefined) o.delay = intFlag('--delay', v.delay);
  if (v['dark-mode']) o.darkMode = true;
  if (v.hide !== undefined) o.hideSelectors = v.hide.flatMap((s) => s.split(','));
  if (v['block-ads']) o.blockAds = true;
  if (v['block-cookie-banners']) o.blockCookieBanners = true;
  if (v.scale !== undefined) o.scale = scaleFlag(v.scale);
  if (format !== 'png') o.format = format;
  if (v.quality !== undefined) {
    if (format === 'png') throw new UsageError('--quality is for jpeg, webp and avif (PNG is lossless)');
    o.quality = intFlag('--quality', v.quality);
  }
  if (v.ttl !== undefined) o.ttl = intFlag('--ttl', v.ttl);
  if (v.fresh) o.fresh = true;
  return o as ShotOptions;
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
  if (f === 'png' || f === 'jpeg' || f === 'webp' || f === 'avif') return f;
  throw new UsageError(`--format must be ${FORMATS} (got "${value}")`);
}

function scaleFlag(value: string): Scale {
  if (value === '1' || value === '2' || value === '3') return Number(value) as Scale;
  throw new UsageError(`--scale must be 1, 2 or 3 (got "${value}")`);
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
export function defaultFileName(url: URL, format: ImageFormat): string {
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/[^\w.-]+/g, '-') || 'page';
  return `${host}.${EXTENSION[format]}`;
}
