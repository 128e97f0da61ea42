import type { ImageSource, Node } from '@takumi-rs/core';

export type { ImageSource, Node };

/** The built-in templates. */
export type TemplateName = 'blog' | 'product' | 'saas';

/** PNG bytes, already resized to the template's `artworkSize` by the caller. */
export interface Artwork {
  data: Buffer;
  width: number;
  height: number;
}

/** Validated, normalised inputs (trimmed, NFC, title ≤ 200, subtitle ≤ 300, brand ≤ 60 characters). */
export interface TemplateFields {
  title: string;
  subtitle?: string;
  brand?: string;
  artwork?: Artwork;
}

/** What a template draws from its optional inputs. */
export interface TemplateUses {
  brand: boolean;
  artwork: boolean;
}

/** The size the caller resizes artwork to before `build` sees it. */
export interface ArtworkSize {
  width: number;
  height: number;
  fit: 'cover' | 'contain';
}

/** A node tree ready for takumi plus the bytes of every image it references by `src`. */
export interface BuiltCard {
  node: Node;
  images: ImageSource[];
}

export interface TemplateDefinition {
  name: TemplateName;
  /** Bump on ANY visual change: it is part of the public ETag. */
  version: number;
  /** One line, for docs and errors. */
  description: string;
  /** Which optional inputs this template draws. */
  uses: TemplateUses;
  /** Present iff `uses.artwork`. */
  artworkSize?: ArtworkSize;
  /** Pure: the same fields always give the same tree. */
  build(fields: TemplateFields): BuiltCard;
}

/** Card size in CSS pixels (device pixel ratio 1). */
export const CARD_WIDTH = 1200;
export const CARD_HEIGHT = 630;
