import type { ImageSource, Node } from '@takumi-rs/core';

/** CSS declarations as takumi reads them (camelCase keys, numbers as px). */
export type Style = Record<string, string | number>;

/** A flex container; takumi lays containers out as flexbox by default. */
export function div(style: Style, children: Node[] = [], meta: { dir?: 'ltr' | 'rtl' } = {}): Node {
  return { type: 'container', style, children, ...meta };
}

/** A text leaf without emoji handling (labels the template controls). */
export function label(text: string, style: Style): Node {
  return { type: 'text', text, style };
}

/** An image drawn from bytes registered under `src` in the render's image list. */
export function picture(src: string, style: Style): Node {
  return { type: 'image', src, style };
}

/** Collects the image bytes a card references, once per `src`, in first-use order. */
export class ImageBag {
  readonly #images = new Map<string, ImageSource>();

  /** Registers `data` under `src` (first registration wins) and returns `src`. */
  add(src: string, data: Uint8Array): string {
    if (!this.#images.has(src)) this.#images.set(src, { src, data });
    return src;
  }

  /** The collected images, for takumi's `images` option. */
  list(): ImageSource[] {
    return [...this.#images.values()];
  }
}

/** An inline SVG document as bytes, for decorative layers takumi rasterises once and caches. */
export function svgBytes(svg: string): Uint8Array {
  return new TextEncoder().encode(svg.replace(/\s*\n\s*/g, ' ').trim());
}
