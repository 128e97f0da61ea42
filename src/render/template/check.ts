/**
 * `templates check`: the fit checker every template passes, the built-ins included
 * (test/render/template/whole-lines.test.ts runs them through it). It builds each template at
 * each size it declares with every sample (short, long, and six scripts), lays the card out with
 * takumi and reports any text that leaves its frame or the card, and any paragraph with more
 * lines than its frame shows. Layout only: nothing is rasterised, so a whole registry takes
 * seconds.
 */
import { Renderer } from '@takumi-rs/core';
import sharp from 'sharp';
import { registerFonts } from '../text/fonts.js';
import { inspectCard, type LayoutProblem } from './check-layout.js';
import { CHECK_SAMPLES, type CheckSample, sampleFields } from './check-samples.js';
import { SIZES } from './sizes.js';
import type {
  Artwork,
  CardSize,
  SizeName,
  TemplateDefinition,
  TemplateFields,
  TemplateRegistry,
} from './types.js';

/** A problem the checker found; `build-failed` when the template threw instead of drawing. */
export interface CheckProblem {
  kind: LayoutProblem['kind'] | 'build-failed';
  text: string;
  message: string;
}

/** One template drawn at one size with one sample. */
export interface CheckResult {
  template: string;
  /** Where the template came from (its file), to point the reader at it. */
  source: string;
  size: SizeName;
  sample: string;
  problems: CheckProblem[];
}

export interface TemplateChecker {
  /** Every size × sample of one template. */
  check(def: TemplateDefinition): Promise<CheckResult[]>;
  /** Every template the registry holds, in its display order. */
  checkAll(registry: TemplateRegistry): Promise<CheckResult[]>;
}

/** A checker over its own takumi instance (fonts registered once, ~1 s). */
export async function createTemplateChecker(
  samples: readonly CheckSample[] = CHECK_SAMPLES,
): Promise<TemplateChecker> {
  const engine = new Renderer();
  await registerFonts(engine);
  const artworks = new Map<string, Promise<Artwork>>();
  const artworkFor = (def: TemplateDefinition, size: CardSize): Promise<Artwork> | undefined => {
    if (!def.uses.artwork || !def.artworkSize) return undefined;
    const { width, height } = def.artworkSize(size);
    const key = `${width}x${height}`;
    if (!artworks.has(key)) artworks.set(key, sampleArtwork(width, height));
    return artworks.get(key);
  };

  const checkOne = async (
    def: TemplateDefinition,
    size: CardSize,
    sample: CheckSample,
  ): Promise<CheckResult> => {
    const base = { template: def.name, source: def.source, size: size.name, sample: sample.name };
    try {
      const artwork = await artworkFor(def, size);
      const fields: TemplateFields = { ...sampleFields(def, sample), ...(artwork ? { artwork } : {}) };
      const card = def.build(fields, { size });
      return { ...base, problems: await inspectCard(engine, card, size) };
    } catch (err) {
      const message = `build failed: ${err instanceof Error ? err.message : String(err)}`;
      return { ...base, problems: [{ kind: 'build-failed', text: '', message }] };
    }
  };

  const check = async (def: TemplateDefinition): Promise<CheckResult[]> => {
    const results: CheckResult[] = [];
    for (const name of def.sizes) {
      for (const sample of samples) results.push(await checkOne(def, SIZES[name], sample));
    }
    return results;
  };

  return {
    check,
    async checkAll(registry) {
      const results: CheckResult[] = [];
      for (const def of registry.list()) results.push(...(await check(def)));
      return results;
    },
  };
}

/**
 * A stand-in photo at the size the template asks for: a gradient with detail, so `cover` and
 * `contain` artwork is laid out as a real image would be.
 */
async function sampleArtwork(width: number, height: number): Promise<Artwork> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#94A3B8"/><stop offset="1" stop-color="#334155"/></linearGradient></defs>
    <rect width="100%" height="100%" fill="url(#g)"/><circle cx="${width / 2}" cy="${height / 2}" r="${Math.min(width, height) / 4}" fill="#E2E8F0"/></svg>`;
  const data = await sharp(Buffer.from(svg)).png().toBuffer();
  return { data, width, height };
}

/** One report line per result: `ok` or each problem, as `templates check` prints them. */
export function formatResult(r: CheckResult): string[] {
  const head = `${r.template} ${r.size} ${r.sample}`;
  if (r.problems.length === 0) return [`ok   ${head}`];
  return r.problems.map((p) => `FAIL ${head}: ${p.text ? `"${p.text}" ` : ''}${p.message}`);
}
