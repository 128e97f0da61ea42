import { editDistance } from '../../../lib/edit-distance.js';
import { DECLARATION, type TemplateDeclaration } from '../sdk/define.js';
import { SIZE_NAMES } from '../sizes.js';
import type { ArtworkSize, CardSize, FieldSpec, SizeName } from '../types.js';

/** A mistake in a declaration; `at` is the key path to it (`['fields', 'title', 'maxLength']`). */
export class DeclarationError extends Error {
  constructor(
    readonly at: readonly string[],
    message: string,
  ) {
    super(message);
  }
}

/** A template's name is its file's base name. */
export const TEMPLATE_NAME = /^[a-z][a-z0-9-]{0,39}$/;
const FIELD_NAME = /^[a-z][A-Za-z0-9]{0,39}$/;

/**
 * Request keys that are not fields: the card's own options, the artwork slot and the signed
 * URL's parameters. A field by one of these names could never be set.
 */
export const RESERVED_KEYS: readonly string[] = [
  'template',
  'brand',
  'imageUrl',
  'artwork',
  'size',
  'theme',
  'format',
  'quality',
  'v',
  'kid',
  'exp',
  'sig',
];

const TOP_KEYS = ['description', 'fields', 'sizes', 'brand', 'artwork', 'theme', 'render'];
const SPEC_KEYS: Record<FieldSpec['type'], string[]> = {
  text: ['type', 'required', 'maxLength', 'default', 'description'],
  color: ['type', 'required', 'default', 'description'],
  number: ['type', 'required', 'min', 'max', 'integer', 'default', 'description'],
  choice: ['type', 'required', 'options', 'default', 'description'],
};
export const COLOR = /^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

/** What the loader builds a definition from: the declaration, checked, with defaults filled. */
export interface CheckedDeclaration {
  description: string;
  fields: Record<string, FieldSpec>;
  sizes: SizeName[];
  brand: boolean;
  theme: boolean;
  artworkSize?: (size: CardSize) => ArtworkSize;
  render: TemplateDeclaration['render'];
}

/** Checks a file's default export; throws a DeclarationError naming the key at fault. */
export function checkDeclaration(value: unknown): CheckedDeclaration {
  if (typeof value !== 'object' || value === null || !(DECLARATION in value)) {
    throw new DeclarationError(
      [],
      'the file must `export default defineTemplate({ ... })` (import { defineTemplate } from "cardshot/template")',
    );
  }
  const d = value as Record<string, unknown>;
  for (const key of Object.keys(d)) if (!TOP_KEYS.includes(key)) throw unknownKey([], key, TOP_KEYS);
  if (typeof d.description !== 'string' || d.description.trim() === '' || d.description.length > 300) {
    throw new DeclarationError(['description'], 'description must be one line of text (1 to 300 characters)');
  }
  if (typeof d.render !== 'function') throw new DeclarationError(['render'], 'render must be a function');
  for (const key of ['brand', 'theme'] as const) {
    if (d[key] !== undefined && typeof d[key] !== 'boolean') {
      throw new DeclarationError([key], `${key} must be true or false`);
    }
  }
  const artworkSize = checkArtwork(d.artwork);
  return {
    description: d.description.trim(),
    fields: checkFields(d.fields),
    sizes: checkSizes(d.sizes),
    brand: d.brand === true,
    theme: d.theme === true,
    ...(artworkSize ? { artworkSize } : {}),
    render: d.render as TemplateDeclaration['render'],
  };
}

function checkSizes(raw: unknown): SizeName[] {
  if (raw === undefined) return ['og'];
  const all = SIZE_NAMES.join(', ');
  if (!Array.isArray(raw) || raw.length === 0) {
    throw new DeclarationError(['sizes'], `sizes must be a non-empty list of: ${all}`);
  }
  for (const s of raw) {
    if (typeof s !== 'string' || !(SIZE_NAMES as readonly string[]).includes(s)) {
      throw new DeclarationError(['sizes'], `sizes: unknown size ${JSON.stringify(s)} (sizes are: ${all})`);
    }
  }
  if (new Set(raw).size !== raw.length) throw new DeclarationError(['sizes'], 'sizes lists a size twice');
  return [...raw] as SizeName[];
}

function checkArtwork(raw: unknown): ((size: CardSize) => ArtworkSize) | undefined {
  if (raw === undefined || raw === false) return undefined;
  if (typeof raw === 'function') {
    const fn = raw as (size: CardSize) => unknown;
    return (size) => {
      const got = fn(size);
      checkArtworkSize(got);
      return got as ArtworkSize;
    };
  }
  checkArtworkSize(raw);
  const fixed = { ...(raw as ArtworkSize) };
  return () => fixed;
}

function checkArtworkSize(raw: unknown): void {
  const a = raw as Partial<ArtworkSize> | null;
  const side = (n: unknown) => Number.isInteger(n) && (n as number) >= 1 && (n as number) <= 4096;
  if (
    typeof a !== 'object' ||
    a === null ||
    !side(a.width) ||
    !side(a.height) ||
    !['cover', 'contain'].includes(a.fit as string)
  ) {
    throw new DeclarationError(
      ['artwork'],
      "artwork must be false, { width, height, fit: 'cover' | 'contain' } (whole pixels, 1 to 4096) or a function of the size returning one",
    );
  }
}

function checkFields(raw: unknown): Record<string, FieldSpec> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new DeclarationError(['fields'], 'fields must be an object: { name: { type, ... } }');
  }
  const out: Record<string, FieldSpec> = {};
  for (const [name, spec] of Object.entries(raw)) {
    if (!FIELD_NAME.test(name)) {
      throw new DeclarationError(
        ['fields', name],
        `field name ${JSON.stringify(name)} must start with a lower-case letter and hold only letters and digits (at most 40)`,
      );
    }
    if (RESERVED_KEYS.includes(name)) {
      throw new DeclarationError(
        ['fields', name],
        `field name "${name}" is reserved (reserved: ${RESERVED_KEYS.join(', ')}); pick another`,
      );
    }
    out[name] = checkSpec(name, spec);
  }
  const total = Object.values(out).reduce((n, s) => n + (s.type === 'text' ? s.maxLength : 0), 0);
  if (total > TEXT_TOTAL_MAX) {
    throw new DeclarationError(
      ['fields'],
      `the text fields' maxLength values add up to ${total}; at most ${TEXT_TOTAL_MAX} in all (one card's text is laid out in one go)`,
    );
  }
  return out;
}

/**
 * The most characters a text field may declare, and all of a template's text fields together.
 * Text is fitted on the event loop (segmented and measured once per size tried and per step of
 * the cut), so its cost grows faster than its length: one 10,000-character field blocked every
 * other request for 0.5-0.9 s here, 1.6-1.9 s on a busier machine. At 500 characters of emoji
 * (the costliest text) one field takes 8-48 ms of CPU (1,000: 18-60 ms, 10,000: 287-354 ms);
 * the total keeps a template of many fields within two such layouts
 * (docs/reliability.md, test/render/template/layout-stall.test.ts).
 */
export const TEXT_MAX_LENGTH = 500;
export const TEXT_TOTAL_MAX = 1000;

function checkSpec(name: string, raw: unknown): FieldSpec {
  const at = ['fields', name];
  const s = raw as Record<string, unknown>;
  const types = Object.keys(SPEC_KEYS);
  if (typeof s !== 'object' || s === null || !types.includes(s.type as string)) {
    throw new DeclarationError([...at, 'type'], `field ${name}: type must be one of: ${types.join(', ')}`);
  }
  const type = s.type as FieldSpec['type'];
  for (const key of Object.keys(s))
    if (!SPEC_KEYS[type].includes(key)) throw unknownKey(at, key, SPEC_KEYS[type]);
  const fail = (key: string, message: string) =>
    new DeclarationError([...at, key], `field ${name}: ${message}`);
  if (s.required !== undefined && typeof s.required !== 'boolean')
    throw fail('required', 'required must be true or false');
  if (s.description !== undefined && typeof s.description !== 'string') {
    throw fail('description', 'description must be text');
  }
  if (s.required === true && s.default !== undefined) {
    throw fail('default', 'a required field has no default (drop one of the two)');
  }
  TYPE_CHECKS[type](s, fail);
  return Object.freeze({ ...(s as FieldSpec) });
}

type Fail = (key: string, message: string) => Error;

/** Each type's own keys. */
const TYPE_CHECKS: Record<FieldSpec['type'], (s: Record<string, unknown>, fail: Fail) => void> = {
  text(s, fail) {
    if (
      !Number.isInteger(s.maxLength) ||
      (s.maxLength as number) < 1 ||
      (s.maxLength as number) > TEXT_MAX_LENGTH
    ) {
      throw fail('maxLength', `a text field needs maxLength, a whole number from 1 to ${TEXT_MAX_LENGTH}`);
    }
    if (
      s.default !== undefined &&
      (typeof s.default !== 'string' || [...s.default].length > (s.maxLength as number))
    ) {
      throw fail('default', 'default must be text no longer than maxLength');
    }
  },
  color(s, fail) {
    if (s.default !== undefined && (typeof s.default !== 'string' || !COLOR.test(s.default))) {
      throw fail('default', 'default must be a colour like #1F2937 or #FFF');
    }
  },
  number: checkNumberSpec,
  choice(s, fail) {
    const options = s.options;
    if (
      !Array.isArray(options) ||
      options.length === 0 ||
      options.some((o) => typeof o !== 'string' || o === '')
    ) {
      throw fail('options', 'options must be a non-empty list of words');
    }
    if (new Set(options).size !== options.length) throw fail('options', 'options lists a value twice');
    if (s.default !== undefined && !options.includes(s.default)) {
      throw fail('default', `default must be one of the options (${options.join(', ')})`);
    }
  },
};

function checkNumberSpec(s: Record<string, unknown>, fail: Fail): void {
  const finite = (n: unknown) => typeof n === 'number' && Number.isFinite(n);
  if (!finite(s.min)) throw fail('min', 'a number field needs min, a finite number');
  if (!finite(s.max)) throw fail('max', 'a number field needs max, a finite number');
  if ((s.min as number) > (s.max as number)) throw fail('max', 'max must not be less than min');
  if (s.integer !== undefined && typeof s.integer !== 'boolean')
    throw fail('integer', 'integer must be true or false');
  if (s.default !== undefined) {
    const d = s.default;
    const ok = finite(d) && (d as number) >= (s.min as number) && (d as number) <= (s.max as number);
    if (!ok || (s.integer === true && !Number.isInteger(d))) {
      throw fail(
        'default',
        `default must be a number from ${s.min} to ${s.max}${s.integer ? ', whole' : ''}`,
      );
    }
  }
}

function unknownKey(at: string[], key: string, allowed: string[]): DeclarationError {
  const near = allowed.find((k) => k.toLowerCase() === key.toLowerCase() || editDistance(k, key) <= 2);
  const where = at.length === 0 ? 'the declaration' : `field ${at[at.length - 1]}`;
  const hint = near ? ` (did you mean "${near}"?)` : '';
  return new DeclarationError(
    [...at, key],
    `${where}: unknown key "${key}"${hint}; allowed: ${allowed.join(', ')}`,
  );
}

/**
 * The 1-based line and column of the key at `at` in the source: each key is looked for after
 * the one before it (`fields`, then `title` after it, then `maxLength` after that), which finds
 * the declaration's own keys in the usual layout. Undefined when a key is not written out
 * (spread in, or computed).
 */
export function lineOf(source: string, at: readonly string[]): { line: number; column: number } | undefined {
  let from = Math.max(0, source.search(/defineTemplate\s*\(/));
  let found = -1;
  for (const key of at) {
    const escaped = key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const re = new RegExp(`(?:^|[\\s,{(])(['"]?)${escaped}\\1\\s*[:(]`, 'g');
    re.lastIndex = from;
    const m = re.exec(source);
    if (!m) break;
    found = m.index + m[0].indexOf(key) - (m[1] ? 1 : 0);
    from = found + key.length;
  }
  if (found < 0) return undefined;
  const before = source.slice(0, found);
  const line = before.split('\n').length;
  return { line, column: found - before.lastIndexOf('\n') };
}
