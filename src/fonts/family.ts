import { createHash } from 'node:crypto';
import type { CardFont } from '../render/template/types.js';
import { FALLBACK_FAMILIES } from '../render/text/fonts.js';
import { decodeMetrics } from './metrics.js';
import type { StoredFont } from './types.js';

/** What a family name may be: what CSS and the dashboard show without quoting trouble. */
const FAMILY_NAME = /^[\p{L}\p{N}][\p{L}\p{N} ._-]{0,62}[\p{L}\p{N}.]?$/u;

/** Checks an account's family name; the error message when it is not usable, else undefined. */
export function familyProblem(family: string): string | undefined {
  if (!FAMILY_NAME.test(family)) {
    return 'family must be 1-64 letters, digits, spaces, dots, dashes or underscores, starting with a letter or digit';
  }
  const key = family.toLowerCase();
  if (FALLBACK_FAMILIES.some((f) => f.toLowerCase() === key) || key === 'sans' || key === 'serif') {
    return `family "${family}" is a bundled family's name; upload under another name`;
  }
  if (key.startsWith('cardshot')) return 'family names starting with "cardshot" are reserved';
  return undefined;
}

/**
 * One family's faces as a card uses them. The name takumi registers them under is derived from
 * their content alone: two accounts uploading the same file share its bytes in the renderer, and
 * a replaced face gets a new name, so no card drawn before the change is mistaken for one after.
 */
export function cardFont(family: string, faces: readonly StoredFont[]): CardFont {
  const hash = createHash('sha256')
    .update(JSON.stringify(faces.map((f) => [f.sha256, f.weight, f.italic])))
    .digest('hex');
  return {
    family,
    engineName: `cardshot-u-${hash.slice(0, 24)}`,
    hash,
    faces: faces.map((f) => ({
      sha256: f.sha256,
      data: f.data,
      weight: f.weight,
      weightRange: f.weightRange,
      italic: f.italic,
      metrics: decodeMetrics(f.metrics),
    })),
  };
}

/** The bytes a family holds in memory (file bytes dominate). */
export function fontBytes(font: CardFont): number {
  return font.faces.reduce((n, f) => n + f.data.length + f.metrics.codePoints.byteLength * 1.5, 0);
}
