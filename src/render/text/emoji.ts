import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { graphemes } from '../../lib/graphemes.js';
import { fontsDraw, textFontsDraw } from './coverage.js';

/**
 * Colour emoji as images. Colour-emoji fonts from @fontsource draw blank in takumi, so each emoji
 * grapheme becomes an inline image of the matching SVG in @twemoji/svg. The detection rules follow
 * `extractEmojis` from @takumi-rs/helpers/emoji, which emits CDN URLs we cannot fetch here, with
 * one addition: a character whose default is text (✔ ☺ ✈, sent without U+FE0F) is drawn as the
 * emoji when no text font has a glyph for it, as browsers do, instead of as a box or as the
 * last-resort symbol font's monochrome glyph; with U+FE0E it is drawn from that symbol font.
 */

/** A piece of text: plain text, or one emoji grapheme drawn from an SVG file. */
export type TextPart = { kind: 'text'; text: string } | { kind: 'emoji'; text: string; file: string };

const PICTOGRAPHIC = /^\p{Extended_Pictographic}/u;
const PRESENTATION = /^\p{Emoji_Presentation}/u;
const MODIFIED = /^\p{Emoji_Modifier_Base}\p{Emoji_Modifier}/u;
const FLAG = /^\p{Regional_Indicator}{1,2}$/u;
const KEYCAP = /^[#*0-9]\uFE0F?\u20E3$/u;
const MAYBE_EMOJI = /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20E3/u;
const ZWJ = '\u200D';
const VS15 = '\uFE0E';
const VS16 = '\uFE0F';

let svgDir: string | undefined;
let svgNames: Set<string> | undefined;
const svgBytes = new Map<string, Buffer>();

function names(): Set<string> {
  if (!svgNames) {
    const require = createRequire(import.meta.url);
    svgDir = join(dirname(require.resolve('@twemoji/svg/package.json')));
    svgNames = new Set(readdirSync(svgDir).filter((f) => f.endsWith('.svg')));
  }
  return svgNames;
}

function isEmojiGrapheme(g: string): boolean {
  const pictographic = PICTOGRAPHIC.test(g);
  // FE0E asks for text presentation; honoured whenever a font can give it.
  if (g.includes(VS15)) return pictographic && !fontsDraw(g.codePointAt(0)!);
  if (FLAG.test(g) || KEYCAP.test(g)) return true;
  return (
    pictographic &&
    (g.includes(VS16) ||
      g.includes(ZWJ) ||
      PRESENTATION.test(g) ||
      MODIFIED.test(g) ||
      // Last: the coverage is looked up only for text-default pictographs (©, ↔, ☀, ✔). The
      // symbol fonts do not count: ✔ from Noto Sans Symbols 2 is not what a user expects.
      !textFontsDraw(g.codePointAt(0)!))
  );
}

function toHex(chars: string): string {
  return [...chars].map((c) => c.codePointAt(0)!.toString(16)).join('-');
}

/**
 * The SVG file for an emoji grapheme, or undefined when twemoji has none. Twemoji drops FE0F from
 * file names except inside ZWJ sequences, and even there not always, so both spellings are tried,
 * then the base emoji alone (an unknown skin-tone or ZWJ combination still shows its base).
 */
export function emojiFile(grapheme: string): string | undefined {
  const known = names();
  const stripped = grapheme.replaceAll(VS16, '');
  const candidates = [
    toHex(grapheme.includes(ZWJ) ? grapheme : stripped),
    toHex(grapheme),
    toHex(stripped),
    toHex([...stripped][0] ?? ''),
  ];
  for (const c of candidates) {
    if (known.has(`${c}.svg`)) return `${c}.svg`;
  }
  return undefined;
}

/** Whether any emoji in `text` will be drawn as an image. */
export function hasEmoji(text: string): boolean {
  return splitEmoji(text).some((p) => p.kind === 'emoji');
}

/** Splits text into plain runs and emoji graphemes that have an SVG. */
export function splitEmoji(text: string): TextPart[] {
  if (!MAYBE_EMOJI.test(text)) return [{ kind: 'text', text }];
  const parts: TextPart[] = [];
  let run = '';
  for (const segment of graphemes(text)) {
    const file = isEmojiGrapheme(segment) ? emojiFile(segment) : undefined;
    if (file === undefined) {
      run += segment;
      continue;
    }
    if (run !== '') parts.push({ kind: 'text', text: run });
    run = '';
    parts.push({ kind: 'emoji', text: segment, file });
  }
  if (run !== '') parts.push({ kind: 'text', text: run });
  return parts;
}

/** The bytes of one twemoji SVG, read once and kept (bounded by the package: ~3,700 small files). */
export function emojiSvg(file: string): Buffer {
  let bytes = svgBytes.get(file);
  if (!bytes) {
    names();
    bytes = readFileSync(join(svgDir!, file));
    svgBytes.set(file, bytes);
  }
  return bytes;
}
