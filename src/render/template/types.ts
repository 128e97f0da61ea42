import type { ImageSource, Node } from '@takumi-rs/core';
import type { FaceMetrics } from '../../fonts/metrics.js';

export type { ImageSource, Node };

/**
 * A template's name: the built-ins (`blog`, `product`, `saas`) or a template file's base name.
 * Lower-case letters, digits and dashes, starting with a letter, at most 40 characters.
 */
export type TemplateName = string;

/** PNG bytes, already resized to the template's `artworkSize(size)` by the caller. */
export interface Artwork {
  data: Buffer;
  width: number;
  height: number;
}

/** The value of a declared field after validation: text and colours as strings, numbers as numbers. */
export type FieldValue = string | number;

/**
 * What a template is given to draw: every declared field by name (validated, normalised, defaults
 * applied; an optional field without a value or default is absent), plus the two special slots.
 * The built-ins declare `title` (required) and `subtitle`.
 */
export interface TemplateFields {
  [field: string]: FieldValue | Artwork | undefined;
  title?: string;
  subtitle?: string;
  /** Present only when the template draws a brand (`uses.brand`) and the request has one. */
  brand?: string;
  /** Present only when the template draws artwork (`uses.artwork`) and the request has `imageUrl`. */
  artwork?: Artwork;
}

/** A declared field: how the request parser checks it, and what docs, OpenAPI and forms show. */
export type FieldSpec =
  | {
      type: 'text';
      required?: boolean;
      /** In characters (code points), after normalisation. */
      maxLength: number;
      default?: string;
      description?: string;
    }
  | { type: 'color'; required?: boolean; default?: string; description?: string }
  | {
      type: 'number';
      required?: boolean;
      min: number;
      max: number;
      integer?: boolean;
      default?: number;
      description?: string;
    }
  | {
      type: 'choice';
      required?: boolean;
      options: readonly string[];
      default?: string;
      description?: string;
    };

/** What a template draws from the optional inputs beside its fields. */
export interface TemplateUses {
  brand: boolean;
  artwork: boolean;
  /** The account's brand theme (colours, font, logo) when it has one and the request allows it. */
  theme: boolean;
}

/** The size the caller resizes artwork to before `build` sees it. */
export interface ArtworkSize {
  width: number;
  height: number;
  fit: 'cover' | 'contain';
}

/** The sizes a card can be drawn at; see `sizes.ts` for their pixels. */
export type SizeName = 'og' | 'twitter' | 'square' | 'linkedin' | 'story';

/** Card size in CSS pixels (device pixel ratio 1). */
export interface CardSize {
  name: SizeName;
  width: number;
  height: number;
}

/** The bundled font families a theme can choose for headlines. */
export type ThemeFont = 'sans' | 'serif';

/** One face of an uploaded family: its bytes for the renderer, its widths for the fitter. */
export interface CardFontFace {
  sha256: string;
  data: Buffer;
  weight: number;
  weightRange: [number, number];
  italic: boolean;
  metrics: FaceMetrics;
}

/** An uploaded font family, resolved for a card from the account's fonts. */
export interface CardFont {
  /** The family as the account named it. */
  family: string;
  /** The name the renderer knows it by, from the faces' content hash (`hash`). */
  engineName: string;
  hash: string;
  faces: readonly CardFontFace[];
}

/** An account's brand theme as a template sees it. */
export interface CardTheme {
  /** `#RRGGBB`. */
  background: string;
  text: string;
  accent: string;
  font: ThemeFont;
  /** The uploaded family the theme names (null or absent: none); `customFont` when the account has it. */
  fontFamily?: string | null;
  /**
   * The account's uploaded family the theme names, when it has it: headlines and text are set in
   * it, and what it lacks (another script) falls back to the bundled families. `version` covers
   * its content hash.
   */
  customFont?: CardFont;
  /** A PNG, at most 512×512, stored with the account (never fetched per render). */
  logo?: { data: Buffer; width: number; height: number; sha256: string };
  /** Content hash of everything above: part of the ETag and the cache key. */
  version: string;
}

/** What `build` is told besides the fields. */
export interface BuildContext {
  size: CardSize;
  /** Present only when the template uses themes, the account has one and the request did not say `theme=none`. */
  theme?: CardTheme;
}

/** A node tree ready for takumi plus the bytes of every image it references by `src`. */
export interface BuiltCard {
  node: Node;
  images: ImageSource[];
}

export interface TemplateDefinition {
  name: TemplateName;
  /** One line, for docs and errors. */
  description: string;
  /** Declared fields in display order. */
  fields: Readonly<Record<string, FieldSpec>>;
  /** Sizes this template lays out well at, `og` first when supported; the first is the default. */
  sizes: readonly SizeName[];
  /** Which optional inputs this template draws. */
  uses: TemplateUses;
  /** Present iff `uses.artwork`: the artwork's size at each card size. */
  artworkSize?: (size: CardSize) => ArtworkSize;
  /**
   * Content hash of the template's source (its file and the files it imports): part of the
   * public ETag, so editing a template changes its cards' ETags.
   */
  hash: string;
  /** The template file's path, for messages (the built-ins' are in `templates/` at the package root). */
  source: string;
  /** Pure: the same fields and context always give the same tree. `ctx` defaults to og, no theme. */
  build(fields: TemplateFields, ctx?: BuildContext): BuiltCard;
}

/**
 * The templates the server knows, by name. Filled from template files at start and, outside
 * production, refreshed when a file changes: always read it at request time, never keep a copy.
 */
export interface TemplateRegistry {
  /** The template, or undefined when no such template is loaded. */
  get(name: string): TemplateDefinition | undefined;
  /** Names in display order: built-ins first, then the rest alphabetically. */
  names(): readonly TemplateName[];
  /** Definitions in display order. */
  list(): readonly TemplateDefinition[];
  /** Calls `listener` after a reload changed the set or a template; returns the unsubscribe. */
  onChange(listener: () => void): () => void;
  /** Stops watching files. */
  close(): Promise<void>;
}

/** An account's theme source for the card routes (a cache over the accounts store). */
export interface ThemeSource {
  /** The account's theme, or undefined when it has none. */
  get(accountId: string): Promise<CardTheme | undefined>;
}

/** The default card size (Open Graph). */
export const CARD_WIDTH = 1200;
export const CARD_HEIGHT = 630;
