import type { Node } from '@takumi-rs/core';
import { emojiSvg, hasEmoji, splitEmoji } from './emoji.js';
import { div, type ImageBag, type Style } from './nodes.js';
import {
  type Direction,
  detectDirection,
  fontStack,
  hangulRuns,
  keepsHangulWhole,
  keepsWordsWhole,
  letterSpacingFor,
  lineHeightFor,
  markWordBreaks,
} from './script.js';
import { type FitBox, type FittedText, fitText } from './text-fit.js';
import { glueShortWords } from './text-glue.js';

/** How a fitted paragraph is drawn. */
export interface ParagraphSpec {
  box: FitBox;
  /** The design face; script fallbacks are appended by `fontStack`. */
  family: string;
  weight: number;
  color: string;
  /**
   * Even out line lengths, so no word is left alone on the last line ("…along the / way"). Only
   * drawing applies it: takumi's `measure` still breaks greedily, with the same line count.
   */
  balance?: boolean;
  /** Shrink the box to the text (labels in pills and rows) instead of filling the width. */
  hug?: boolean;
  /**
   * The card's direction, whose start edge the lines align to (default: the text's own). A
   * subtitle in the other direction than its title still lines up under it.
   */
  align?: Direction;
  /** Extra declarations, applied last. */
  style?: Style;
}

/** A drawn paragraph and the decisions behind it. */
export interface Paragraph {
  node: Node;
  fit: FittedText;
  dir: Direction;
  /** Estimated block height in px (an upper bound), for laying out what comes next. */
  height: number;
}

/**
 * A paragraph sized to its box: the largest size that fits, then a cut with an ellipsis. Emoji
 * become inline twemoji images (registered in `bag`); RTL text gets `dir="rtl"` so it aligns to
 * the right edge and takumi's bidi shaping applies.
 *
 * `fitText` makes the cut itself, so the text before "…" can be tidied ("breakers,…" was
 * takumi's own cut). takumi 2.16's `lineClamp` draws a lone "…" instead of the text when a
 * paragraph with inline images, or any RTL paragraph, has exactly as many lines as the clamp, so
 * the clamp is only a safety net where it is reliable (LTR text without emoji), and a clipping
 * frame guarantees nothing leaves the box. The clamp is set even when the estimate says the text
 * fits: should takumi still draw a line more, the paragraph ends with "…" instead of the clip
 * slicing through that line (its marks showed above the subtitle).
 */
export function paragraph(given: string, spec: ParagraphSpec, bag: ImageBag): Paragraph {
  const text = glueShortWords(markWordBreaks(given));
  const dir = detectDirection(text);
  const box = {
    ...spec.box,
    lineHeight: lineHeightFor(text, spec.box.lineHeight),
    letterSpacing: letterSpacingFor(text, spec.box.letterSpacing ?? 0),
    keepAll: keepsWordsWhole(text),
    keepHangul: keepsHangulWhole(text),
  };
  const cutHere = dir === 'rtl' || hasEmoji(text);
  const fit = fitText(text, box, cutHere);
  const style: Style = {
    fontFamily: fontStack(text, spec.family),
    fontSize: fit.fontSize,
    fontWeight: spec.weight,
    lineHeight: box.lineHeight,
    letterSpacing: `${box.letterSpacing}em`,
    color: spec.color,
    ...(spec.hug ? { maxWidth: box.width } : { width: box.width }),
    overflowWrap: 'anywhere',
    ...(box.keepAll ? { wordBreak: 'keep-all' } : {}),
    ...(spec.balance ? { textWrap: 'balance' } : {}),
    ...(!cutHere ? { lineClamp: fit.maxLines, textOverflow: 'ellipsis' } : {}),
    textAlign: (spec.align ?? dir) === 'rtl' ? 'right' : 'left',
    ...spec.style,
  };
  const height = Math.ceil(fit.lines * fit.fontSize * box.lineHeight);
  const node = clipFrame(
    richText(fit.text, style, dir, bag, box.keepHangul),
    Math.ceil(fit.maxLines * fit.fontSize * box.lineHeight),
    fit.fontSize,
  );
  return { node, fit, dir, height };
}

/**
 * Clips a paragraph to `height` plus room for ink outside the line boxes (accents above the
 * first line, descenders below the last, tight display leading puts both outside). The padding
 * is cancelled by a negative margin, so the frame changes no layout.
 */
function clipFrame(child: Node, height: number, fontSize: number): Node {
  const slack = Math.ceil(fontSize * 0.3);
  return div(
    {
      display: 'flex',
      flexDirection: 'column',
      overflow: 'hidden',
      maxHeight: height + 2 * slack,
      padding: slack,
      margin: -slack,
    },
    [child],
  );
}

const HANGUL_RUN = /^\p{Script=Hangul}/u;

/**
 * A text node, or an inline container of text runs and emoji images when the text has emoji.
 * With `keepHangul`, each Hangul run is a span of its own with `word-break: keep-all` (takumi
 * honours it per span), so Korean words stay whole while the Han beside them still breaks.
 */
export function richText(
  text: string,
  style: Style,
  dir: Direction,
  bag: ImageBag,
  keepHangul = false,
): Node {
  const parts = splitEmoji(text);
  // Always explicit: an LTR subtitle on a card whose title is RTL must not inherit the card's
  // direction (it would be laid out right to left, its ellipsis at the start).
  const meta = { dir };
  if (parts.length === 1 && parts[0]!.kind === 'text' && !keepHangul)
    return { type: 'text', text, style, ...meta };
  const children: Node[] = parts.flatMap((part): Node[] => {
    if (part.kind === 'text' && keepHangul)
      return hangulRuns(part.text).map((run) =>
        HANGUL_RUN.test(run)
          ? { type: 'text', text: run, style: { wordBreak: 'keep-all' } }
          : { type: 'text', text: run },
      );
    if (part.kind === 'text') return [{ type: 'text', text: part.text }];
    const src = bag.add(`twemoji/${part.file}`, emojiSvg(part.file));
    const image: Node = {
      type: 'image',
      src,
      // Sized in em so emoji follow the fitted font size; the small lift centres them on the x-height.
      style: {
        display: 'inline-block',
        width: '1em',
        height: '1em',
        margin: '0 0.05em 0 0.1em',
        verticalAlign: '-0.1em',
      },
    };
    return [image];
  });
  return { ...div(style, children), ...meta };
}
