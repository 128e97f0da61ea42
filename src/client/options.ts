/**
 * The render options of the client and the query it builds from them. The server is the
 * validator (it answers 400 naming the option and its valid values); the types here only
 * catch at compile time what can never work, such as `quality` with PNG. The screenshot options
 * themselves are generated from the server's option table (screenshot-options.generated.ts).
 */
import { SCREENSHOT_OMITTED, SCREENSHOT_PARAMS } from './screenshot-options.generated.js';

export {
  SCREENSHOT_PARAMS,
  type Scale,
  type ScreenshotOptions,
} from './screenshot-options.generated.js';

/** Output formats; `Content-Type` follows (`image/png`, `image/jpeg`, …). */
export type ImageFormat = 'png' | 'jpeg' | 'webp' | 'avif';
/** The `Content-Type` of an image answer. */
export type ImageContentType = 'image/png' | 'image/jpeg' | 'image/webp' | 'image/avif';
/**
 * `format` with its `quality`: PNG is lossless and takes none (the server refuses it), the
 * others take 1–100.
 */
export type FormatChoice =
  | { format?: 'png'; quality?: never }
  | {
      format: 'jpeg' | 'webp' | 'avif';
      /** 1–100; the server's default when left out. */
      quality?: number;
    };

type ParamValue = string | number | boolean | readonly string[] | undefined;

/**
 * One query value, or undefined to leave the parameter out. Options at the default every
 * server has (false, a delay of 0, PNG, no selectors) are left out, so a URL with them says
 * the same as one without and both hit one cache entry. `scale` is always sent: 1 is not the
 * default of the mobile viewport.
 */
function paramValue(name: string, value: ParamValue): string | undefined {
  if (value === undefined || value === false || value === '') return undefined;
  if (Object.hasOwn(SCREENSHOT_OMITTED, name) && SCREENSHOT_OMITTED[name] === String(value)) return undefined;
  if (typeof value === 'object') {
    const list = value.map((s) => s.trim()).filter((s) => s !== '');
    return list.length === 0 ? undefined : list.join(',');
  }
  return String(value);
}

/** The name/value pairs of a screenshot request, in `SCREENSHOT_PARAMS` order, defaults left out. */
export function screenshotParams(input: object): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const name of SCREENSHOT_PARAMS) {
    const value = paramValue(name, (input as Record<string, ParamValue>)[name]);
    if (value !== undefined) out.push([name, value]);
  }
  return out;
}

/**
 * The request-level keys of a template URL, after the template's own fields, in this order.
 * Everything else in a template input is one of the template's fields: the client knows no
 * template, so a custom template's fields are sent like the built-ins'.
 */
export const TEMPLATE_REQUEST_PARAMS = [
  'brand',
  'imageUrl',
  'size',
  'theme',
  'format',
  'quality',
  'v',
] as const;

/** Fields that lead, in this order, so the built-ins' URLs read as they always did. */
const LEADING_FIELDS = ['title', 'subtitle'];

/**
 * The name/value pairs of a GET /render/template request, empty fields and PNG left out, in a
 * stable order (identical inputs, identical URLs): `template`, `title`, `subtitle`, the other
 * fields alphabetically, then `TEMPLATE_REQUEST_PARAMS`.
 */
export function templateParams(input: object): Array<[string, string]> {
  const record = input as Record<string, ParamValue>;
  const request = new Set<string>(['template', ...TEMPLATE_REQUEST_PARAMS]);
  const fields = Object.keys(record).filter((k) => !request.has(k) && !LEADING_FIELDS.includes(k));
  const order = ['template', ...LEADING_FIELDS, ...fields.sort(), ...TEMPLATE_REQUEST_PARAMS];
  const out: Array<[string, string]> = [];
  for (const name of order) {
    const value = paramValue(name, record[name]);
    if (value !== undefined) out.push([name, value]);
  }
  return out;
}

/** The file extension each format is usually saved with. */
export const FILE_EXTENSION: Readonly<Record<ImageFormat, string>> = {
  png: 'png',
  jpeg: 'jpg',
  webp: 'webp',
  avif: 'avif',
};

const FORMATS: Record<string, ImageFormat> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/webp': 'webp',
  'image/avif': 'avif',
};

/** The format of an answer from its `Content-Type` (parameters ignored); PNG when it says none we know. */
export function formatOf(contentType: string | null): { format: ImageFormat; contentType: ImageContentType } {
  const bare = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const format = FORMATS[bare] ?? 'png';
  return { format, contentType: `image/${format}` as ImageContentType };
}
