import type { MeasuredNode, MeasuredTextRun, Renderer } from '@takumi-rs/core';
import { FALLBACK_FAMILIES } from '../text/fonts.js';
import type { BuiltCard, CardSize, Node } from './types.js';

/** One way a card's text fails to fit, found in takumi's own layout of the card. */
export interface LayoutProblem {
  kind: 'lines-cut' | 'leaves-frame' | 'leaves-card';
  /** The start of the text concerned, for the report. */
  text: string;
  message: string;
}

/** A clip frame: an `overflow: hidden` container, as laid out, in card pixels. */
interface Frame {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** Sub-pixel rounding in takumi's layout is not a problem a reader could see. */
const EPSILON = 0.5;

type Style = Record<string, unknown>;
const styleOf = (n: Node): Style => (('style' in n ? n.style : undefined) ?? {}) as Style;
const childrenOf = (n: Node): Node[] =>
  'children' in n && Array.isArray(n.children) ? (n.children as Node[]) : [];
const textOf = (n: Node): string => (n.type === 'text' ? (n.text ?? '') : childrenOf(n).map(textOf).join(''));
const px = (v: unknown): number => (typeof v === 'number' ? v : 0);

/**
 * Lays `card` out with takumi (`Renderer.measure`, the same layout the render draws) and reports
 * every text block whose box or lines leave the clip frame around it or the card, and every
 * paragraph that lays out more lines than its frame shows (the last ones would be cut through,
 * with no ellipsis). `engine` must have the fonts registered.
 */
export async function inspectCard(
  engine: Renderer,
  card: BuiltCard,
  size: CardSize,
): Promise<LayoutProblem[]> {
  const measured = await engine.measure(card.node, {
    width: size.width,
    height: size.height,
    images: card.images,
    fontFamilies: [...FALLBACK_FAMILIES],
  });
  const problems: LayoutProblem[] = [];
  const cardBox: Frame = { left: 0, top: 0, right: size.width, bottom: size.height };
  walk(card.node, measured, undefined, cardBox, problems);
  return problems;
}

function boxOf(m: MeasuredNode): Frame {
  // takumi's transform is absolute: a translation by (e, f) in card pixels (no scaling here).
  const [, , , , x, y] = m.transform;
  return { left: x, top: y, right: x + m.width, bottom: y + m.height };
}

function walk(n: Node, m: MeasuredNode, frame: Frame | undefined, card: Frame, out: LayoutProblem[]): void {
  const style = styleOf(n);
  // A block with runs is a paragraph: its inline children (text spans, emoji images) are laid
  // out inside it and have no boxes of their own.
  if (m.runs.length > 0 || n.type === 'text') {
    checkText(n, m, frame, card, out);
    return;
  }
  const clips = style.overflow === 'hidden';
  const inner = clips ? boxOf(m) : frame;
  if (clips && typeof style.maxHeight === 'number') checkLines(n, m, out);
  const kids = childrenOf(n);
  for (const [i, child] of kids.entries()) {
    const mc = m.children[i];
    if (mc) walk(child, mc, inner, card, out);
  }
}

/**
 * A frame's `maxHeight` less its padding is what it shows of its one child (the padding is room
 * for ink beyond the line boxes: accents above, descenders below). A child taller than that has
 * a line more than the frame shows.
 */
function checkLines(n: Node, m: MeasuredNode, out: LayoutProblem[]): void {
  const kids = childrenOf(n);
  const child = kids[0];
  const mc = m.children[0];
  if (kids.length !== 1 || !child || !mc) return;
  const style = styleOf(n);
  const visible = px(style.maxHeight) - 2 * px(style.padding);
  if (mc.height <= visible + EPSILON) return;
  const text = styleOf(child);
  const linePx = px(text.fontSize) * (typeof text.lineHeight === 'number' ? text.lineHeight : 0);
  // Without a numeric line height the lines cannot be counted: the box check still applies.
  if (linePx <= 0) return;
  // A line holding an emoji image is a little taller than the line height; the frame's padding
  // absorbs that (the box check below catches ink actually cut). A whole line more is the fault.
  const lines = Math.round(mc.height / linePx);
  const shown = Math.floor((visible + EPSILON) / linePx);
  if (lines <= shown) return;
  const message = `draws ${lines} lines where its frame shows ${shown} (line ${shown + 1} is cut through)`;
  out.push({ kind: 'lines-cut', text: excerpt(child), message });
}

function checkText(
  n: Node,
  m: MeasuredNode,
  frame: Frame | undefined,
  card: Frame,
  out: LayoutProblem[],
): void {
  const box = boxOf(m);
  const fontSize = px(styleOf(n).fontSize) || 16;
  // A line's trailing space is part of its run but draws nothing: it may hang past the edge.
  const ink = m.runs.map((r) => runBox(r, box, fontSize));
  const horizontal = ink.length > 0 ? ink : [box];
  const within = (f: Frame) =>
    horizontal.every((r) => r.left >= f.left - EPSILON && r.right <= f.right + EPSILON) &&
    box.top >= f.top - EPSILON &&
    box.bottom <= f.bottom + EPSILON;
  if (frame && !within(frame)) {
    out.push({
      kind: 'leaves-frame',
      text: excerpt(n),
      message: `leaves its clip frame ${where(horizontal, box, frame)}`,
    });
  }
  // Clipped by a frame, only what the frame shows must be on the card.
  const shown = frame ? intersect(box, frame) : box;
  const shownRuns = frame ? horizontal.map((r) => intersect(r, frame)) : horizontal;
  const onCard = shownRuns.every((r) => r.left >= -EPSILON && r.right <= card.right + EPSILON);
  if (!onCard || shown.top < -EPSILON || shown.bottom > card.bottom + EPSILON) {
    out.push({
      kind: 'leaves-card',
      text: excerpt(n),
      message: `leaves the card ${where(shownRuns, shown, card)}`,
    });
  }
}

function runBox(r: MeasuredTextRun, box: Frame, fontSize: number): Frame {
  const hang = /\s$/u.test(r.text) ? fontSize * 0.5 : 0;
  return {
    left: box.left + r.x,
    right: box.left + r.x + Math.max(0, r.width - hang),
    top: box.top,
    bottom: box.bottom,
  };
}

function intersect(a: Frame, b: Frame): Frame {
  return {
    left: Math.max(a.left, b.left),
    top: Math.max(a.top, b.top),
    right: Math.min(a.right, b.right),
    bottom: Math.min(a.bottom, b.bottom),
  };
}

/** Which edge is crossed and by how much, in whole pixels. */
function where(runs: Frame[], box: Frame, f: Frame): string {
  const left = Math.min(...runs.map((r) => r.left), box.left);
  const right = Math.max(...runs.map((r) => r.right), box.right);
  const over = [
    ['left', f.left - left],
    ['right', right - f.right],
    ['top', f.top - box.top],
    ['bottom', box.bottom - f.bottom],
  ] as const;
  return over
    .filter(([, d]) => d > EPSILON)
    .map(([edge, d]) => `${Math.ceil(d)} px past the ${edge}`)
    .join(', ');
}

function excerpt(n: Node): string {
  const t = textOf(n);
  const g = [...new Intl.Segmenter('en', { granularity: 'grapheme' }).segment(t)].map((s) => s.segment);
  return g.length > 40 ? `${g.slice(0, 40).join('')}…` : t;
}
