/**
 * Runs in a child process (see probe.ts): parses one uploaded font with fontkit, checks the tables
 * a card needs, decodes every glyph, reads its advance widths, then has takumi load it and draw
 * every character it maps. A child process, not a worker thread: takumi aborts the whole process
 * on some damaged glyph tables (a Rust panic that cannot unwind, seen with a scrambled `glyf`),
 * so whatever the server will ever draw with the font is drawn here first. A parser bug or a
 * hostile file can only exhaust this process's heap (capped) or time (it is killed).
 *
 * This file imports packages only, no project module: Node runs it as it is (compiled .js in a
 * build, type-stripped .ts under the tests).
 */
import { Renderer } from '@takumi-rs/core';
import * as fontkit from 'fontkit';

interface Input {
  data: Uint8Array;
  maxGlyphs: number;
}

/** Tables every font must have for a card to lay it out and draw it. */
const REQUIRED = ['cmap', 'head', 'hhea', 'hmtx', 'maxp', 'name'];
/** Code points above this are not measured (no template draws them). */
const LAST_MEASURED = 0x2ffff;
/** Weights the layout asks for; a variable font's widths are sampled at each. */
const SAMPLED_WEIGHTS = [400, 800];
/** Characters drawn a render (a line of 2,400 px clips the rest; drawing is what is tested). */
const CHUNK = 400;

// biome-ignore lint/suspicious/noExplicitAny: fontkit ships no types; only the parts read here are used.
type FkFont = any;

function fail(reason: string): never {
  throw Object.assign(new Error(reason), { rejected: true });
}

function parse(data: Uint8Array): FkFont {
  try {
    return fontkit.create(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  } catch (err) {
    fail(`the font could not be parsed: ${(err as Error).message}`);
  }
}

/** Reads a lazily parsed table, turning a parser error into the reason it is refused. */
function table(font: FkFont, tag: string): FkFont {
  try {
    const t = font[tag];
    if (t === null || t === undefined) fail(`the font's '${tag}' table is missing`);
    return t;
  } catch (err) {
    if ((err as { rejected?: boolean }).rejected) throw err;
    fail(`the font's '${tag}' table is damaged: ${(err as Error).message}`);
  }
}

/** The table directory: the tables a card needs, and outlines of one kind or the other. */
function checkTables(font: FkFont): string[] {
  if (font.type === 'TTC' || font.type === 'DFont') fail('font collections are not accepted');
  const tags = Object.keys(font.directory?.tables ?? {});
  for (const tag of REQUIRED) if (!tags.includes(tag)) fail(`the font has no '${tag}' table`);
  const glyf = tags.includes('glyf');
  if (!glyf && !tags.includes('CFF ') && !tags.includes('CFF2')) {
    fail("the font has no outlines ('glyf' or 'CFF' table)");
  }
  if (glyf && !tags.includes('loca')) fail("the font has no 'loca' table");
  return tags;
}

function mappedCodePoints(font: FkFont): number[] {
  try {
    return (font.characterSet as number[]).filter((cp) => cp <= LAST_MEASURED).sort((a, b) => a - b);
  } catch (err) {
    fail(`the font's 'cmap' table is damaged: ${(err as Error).message}`);
  }
}

function glyphCount(font: FkFont, maxGlyphs: number): number {
  const glyphs = Number(table(font, 'maxp').numGlyphs);
  if (!(glyphs > 0)) fail('the font has no glyphs');
  if (glyphs > maxGlyphs) {
    fail(
      `the font has ${glyphs.toLocaleString('en')} glyphs; at most ${maxGlyphs.toLocaleString('en')} are accepted`,
    );
  }
  return glyphs;
}

/** Decodes every glyph's outline, so a damaged one is found by JS code, not by the renderer. */
function decodeGlyphs(font: FkFont, glyphs: number): void {
  for (let id = 0; id < glyphs; id++) {
    try {
      font.getGlyph(id).path;
    } catch (err) {
      fail(`glyph ${id} is damaged: ${(err as Error).message}`);
    }
  }
}

function inspect(font: FkFont, maxGlyphs: number) {
  const tags = checkTables(font);
  const glyphs = glyphCount(font, maxGlyphs);
  decodeGlyphs(font, glyphs);
  const head = table(font, 'head');
  const unitsPerEm = Number(head.unitsPerEm);
  if (!(unitsPerEm >= 16 && unitsPerEm <= 16384)) {
    fail(`the font's unitsPerEm (${unitsPerEm}) is out of range (16-16384)`);
  }
  table(font, 'hhea');
  table(font, 'name');
  const os2 = tags.includes('OS/2') ? table(font, 'OS/2') : undefined;
  const codePoints = mappedCodePoints(font);
  const visible = codePoints.filter((cp) => cp > 0x20 && !(cp >= 0x7f && cp <= 0xa0));
  if (visible.length === 0) fail('the font maps no characters');
  const wght = font.variationAxes?.wght as { min: number; max: number; default: number } | undefined;
  const weight = clampWeight(wght ? wght.default : Number(os2?.usWeightClass ?? 400));
  return {
    family: String(font.name?.records?.preferredFamily?.en ?? font.familyName ?? '').trim(),
    subfamily: String(font.subfamilyName ?? '').trim(),
    glyphs,
    unitsPerEm,
    weight,
    weightRange: wght ? [clampWeight(wght.min), clampWeight(wght.max)] : [weight, weight],
    italic: Boolean(os2?.fsSelection?.italic) || Boolean(head.macStyle?.italic),
    axes: Object.keys(font.variationAxes ?? {}),
    codePoints,
    visible,
    widths: advanceWidths(font, codePoints, unitsPerEm),
  };
}

function clampWeight(w: number): number {
  return Number.isFinite(w) ? Math.min(1000, Math.max(1, Math.round(w))) : 400;
}

/** Each code point's advance at the default instance, in thousandths of an em. */
function advanceWidths(font: FkFont, codePoints: number[], unitsPerEm: number): Uint16Array {
  const hmtx = table(font, 'hmtx');
  const widths = new Uint16Array(codePoints.length);
  try {
    const metrics = hmtx.metrics;
    const last = metrics.length - 1;
    if (last < 0) fail("the font's 'hmtx' table has no metrics");
    const cmap = font._cmapProcessor;
    codePoints.forEach((cp, i) => {
      const id = Number(cmap.lookup(cp)) || 0;
      const advance = Number(metrics.get(Math.min(id, last))?.advance ?? 0);
      widths[i] = Math.min(65535, Math.max(0, Math.round((advance * 1000) / unitsPerEm)));
    });
  } catch (err) {
    if ((err as { rejected?: boolean }).rejected) throw err;
    fail(`the font's 'hmtx' table is damaged: ${(err as Error).message}`);
  }
  return widths;
}

/** takumi loads the font and draws its own characters with it; a variable font's width per weight. */
async function tryInTakumi(data: Uint8Array, info: ReturnType<typeof inspect>) {
  const engine = new Renderer({ cacheMaxBytes: 0 });
  try {
    await engine.registerFont({ name: 'cardshot-probe', data });
  } catch (err) {
    fail(`the renderer could not load the font: ${(err as Error).message}`);
  }
  const text = (weight: number, sample: string) => ({
    type: 'container',
    style: { display: 'flex', width: 2400, height: 120, backgroundColor: '#ffffff' },
    children: [
      {
        type: 'text',
        text: sample,
        style: { fontFamily: 'cardshot-probe', fontSize: 64, fontWeight: weight, color: '#000000' },
      },
    ],
  });
  // Every mapped character, a chunk a render: what a card may ask of the font later.
  // A variable font at both ends of its weight axis too: each instance has its own outlines.
  const [min, max] = info.weightRange as [number, number];
  const weights: number[] = min === max ? [info.weight] : [info.weight, min, max];
  let ink = 0;
  for (const weight of weights) {
    for (let i = 0; i < info.visible.length; i += CHUNK) {
      const chunk = String.fromCodePoint(...info.visible.slice(i, i + CHUNK));
      let raw: Buffer;
      try {
        // biome-ignore lint/suspicious/noExplicitAny: a plain node tree, as takumi documents it.
        raw = await engine.render(text(weight, chunk) as any, { width: 2400, height: 120, format: 'raw' });
      } catch (err) {
        fail(`the renderer could not draw with the font: ${(err as Error).message}`);
      }
      for (let p = 0; p < raw.length && ink === 0; p += 4) if (raw[p]! < 128) ink++;
    }
  }
  if (ink === 0) fail('the font draws no visible glyphs');
  const sample = String.fromCodePoint(...info.visible.slice(0, 24));
  const scales: Record<number, number> = {};
  if (info.weightRange[0] !== info.weightRange[1]) {
    // biome-ignore lint/suspicious/noExplicitAny: as above.
    const width = async (w: number) => (await engine.measure(text(w, sample) as any)).children[0]?.width ?? 0;
    const base = await width(info.weight);
    for (const w of SAMPLED_WEIGHTS) scales[w] = base > 0 ? (await width(w)) / base : 1;
  }
  return scales;
}

async function check({ data, maxGlyphs }: Input) {
  try {
    const info = inspect(parse(data), maxGlyphs);
    const scales = await tryInTakumi(data, info);
    const { visible: _visible, ...rest } = info;
    return { ok: true, info: { ...rest, scales } };
  } catch (err) {
    const rejected = (err as { rejected?: boolean }).rejected === true;
    return {
      ok: false,
      reason: rejected ? (err as Error).message : `the font could not be parsed: ${(err as Error).message}`,
    };
  }
}

// One font per process: the parent sends it, reads the answer, and the process ends.
process.once('message', (input: Input) => {
  void check(input).then((answer) => process.send?.(answer, () => process.exit(0)));
});
