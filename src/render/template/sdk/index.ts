/**
 * `cardshot/template`: what a template file imports. `defineTemplate`, the JSX runtime, `<Text>`
 * and the one implementation of the text fitter and layout helpers the built-ins use
 * (`src/render/text/*`), re-exported so a template file draws exactly like a built-in.
 */
export type { Node } from '@takumi-rs/core';
export { FAMILY } from '../../text/fonts.js';
export type { AnyFace, MeasuredFace } from '../../text/measured-face.js';
export { div, label, picture, type Style, svgBytes } from '../../text/nodes.js';
export { operatorFace as fontFace, operatorFamilies } from '../../text/operator-faces.js';
export { type Direction, detectDirection, fontStack } from '../../text/script.js';
export { type Paragraph, type ParagraphSpec, paragraph, richText } from '../../text/text.js';
export type { FitBox } from '../../text/text-fit.js';
export type { FaceKey } from '../../text/text-metrics.js';
export { artworkSource } from '../artwork.js';
export { brandInitial, brandLabel, upperCased } from '../brand.js';
export { SIZE_NAMES, SIZES } from '../sizes.js';
export {
  bodyFace,
  containIn,
  contrast,
  type HeadlineFace,
  headlineFace,
  logoSource,
  mix,
  mutedTone,
  onColor,
  themeKey,
  withAlpha,
} from '../theme.js';
export type {
  Artwork,
  ArtworkSize,
  BuildContext,
  BuiltCard,
  CardFont,
  CardSize,
  CardTheme,
  FieldSpec,
  SizeName,
  ThemeFont,
} from '../types.js';
export { CARD_HEIGHT, CARD_WIDTH } from '../types.js';
export { bag, cachedDecor, ImageBag, image } from './bag.js';
export { Text, type TextProps, textHeight, themeLogo } from './components.js';
export {
  type DefinedTemplate,
  defineTemplate,
  type FieldsOf,
  type RenderContext,
  type RenderResult,
  type TemplateDeclaration,
} from './define.js';
export { type Child, type Component, Fragment, h, JSX, jsx, jsxs } from './jsx-runtime.js';
