import type { Node } from '@takumi-rs/core';
import { FAMILY } from '../../text/fonts.js';
import { type Paragraph, type ParagraphSpec, paragraph } from '../../text/text.js';
import type { CardTheme } from '../types.js';
import { bag, type ImageBag } from './bag.js';

/** `<Text>`'s props: a paragraph spec with the family and weight optional (sans 400). */
export interface TextProps extends Omit<ParagraphSpec, 'family' | 'weight'> {
  family?: string;
  weight?: number;
  children?: string | number | readonly (string | number)[];
}

/**
 * Text that always fits its box: the largest of `box.steps` that fits, then cut with an ellipsis;
 * any script, emoji and right-to-left text drawn (the built-ins' fitter). `textHeight` gives the
 * height it draws, for a layout that shares room between paragraphs.
 */
export function Text(props: TextProps): Node {
  const { children, ...rest } = props;
  const text = Array.isArray(children) ? children.join('') : String(children ?? '');
  return fitted(text, rest).node;
}

/**
 * How tall `<Text {...props}>{text}</Text>` draws, in px (its fitted lines; an upper bound): a
 * title's box can then be what a subtitle under it leaves. The fit is made once per card, so the
 * `<Text>` that draws the same text with the same props afterwards reuses it.
 */
export function textHeight(text: string, props: Omit<TextProps, 'children'>): number {
  return fitted(text, props).height;
}

/** Fits made during the current card's build, by text and props (a build is synchronous). */
const fits = new WeakMap<ImageBag, Map<string, Paragraph>>();

function fitted(text: string, props: Omit<TextProps, 'children'>): Paragraph {
  const { family, weight, ...spec } = props;
  const full = { ...spec, family: family ?? FAMILY.sans, weight: weight ?? 400 };
  const current = bag();
  const made = fits.get(current) ?? new Map<string, Paragraph>();
  fits.set(current, made);
  const key = `${text}\u0000${JSON.stringify(full)}`;
  const p = made.get(key) ?? paragraph(text, full, current);
  made.set(key, p);
  return p;
}

/** The theme's logo as an image `src` for this card, or undefined when the theme has none. */
export function themeLogo(theme: CardTheme | undefined): string | undefined {
  if (!theme?.logo) return undefined;
  return bag().add(`theme-logo/${theme.logo.sha256}.png`, theme.logo.data);
}
