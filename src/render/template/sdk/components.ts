import type { Node } from '@takumi-rs/core';
import { FAMILY } from '../../text/fonts.js';
import { type ParagraphSpec, paragraph } from '../../text/text.js';
import type { CardTheme } from '../types.js';
import { bag } from './bag.js';

/** `<Text>`'s props: a paragraph spec with the family and weight optional (sans 400). */
export interface TextProps extends Omit<ParagraphSpec, 'family' | 'weight'> {
  family?: string;
  weight?: number;
  children?: string | number | readonly (string | number)[];
}

/**
 * Text that always fits its box: the largest of `box.steps` that fits, then cut with an ellipsis;
 * any script, emoji and right-to-left text drawn (the built-ins' fitter). Use `paragraph` when the
 * layout needs the fitted height.
 */
export function Text(props: TextProps): Node {
  const { children, family, weight, ...spec } = props;
  const text = Array.isArray(children) ? children.join('') : String(children ?? '');
  return paragraph(text, { ...spec, family: family ?? FAMILY.sans, weight: weight ?? 400 }, bag()).node;
}

/** The theme's logo as an image `src` for this card, or undefined when the theme has none. */
export function themeLogo(theme: CardTheme | undefined): string | undefined {
  if (!theme?.logo) return undefined;
  return bag().add(`theme-logo/${theme.logo.sha256}.png`, theme.logo.data);
}
