import { createHash } from 'node:crypto';
import { ImageBag as PlainBag } from '../../text/nodes.js';
import { cachedDecor as sharedDecorCache } from '../theme.js';

/**
 * Sources takumi may cache under their own name: emoji and artwork already carry a content hash
 * (`twemoji/<codepoints>.svg`, `artwork/<sha256>.png`), the theme logo its sha256.
 */
const CONTENT_ADDRESSED = /^(twemoji|artwork|theme-logo)\//;

/** Digests of image bytes a template keeps in module scope (decor SVGs): hashed once, not per card. */
const digests = new WeakMap<Uint8Array, string>();

function digestOf(data: Uint8Array): string {
  let d = digests.get(data);
  if (d === undefined) {
    d = createHash('sha256').update(data).digest('hex').slice(0, 16);
    digests.set(data, d);
  }
  return d;
}

/**
 * The image bag template files get: takumi caches decoded images by `src` for the life of the
 * process, so a template's own name (`decor.svg`) is prefixed with its bytes' digest. Two
 * templates that both say `decor.svg`, or one template edited and reloaded, never draw each
 * other's (or the old) picture. `add` returns the name to put in `src`, as the plain bag's does.
 */
export class ImageBag extends PlainBag {
  override add(src: string, data: Uint8Array): string {
    return super.add(CONTENT_ADDRESSED.test(src) ? src : `t/${digestOf(data)}/${src}`, data);
  }
}

/**
 * The bag of the build running now. `build` is synchronous, so the loader can open a bag before
 * calling a template's `render` and close it after: components (`<Text>`, `image()`) register
 * their images there without the template passing a bag around.
 */
let current: ImageBag | undefined;
/** The content hash of the template rendering now: its decor cache's namespace. */
let scope = '';

/**
 * Runs `fn` with a fresh bag as the current one, for the template whose content hash is `hash`;
 * returns its result and the bag.
 */
export function withBag<T>(fn: () => T, hash = ''): { result: T; bag: ImageBag } {
  const outer = { current, scope };
  const bag = new ImageBag();
  current = bag;
  scope = hash;
  try {
    return { result: fn(), bag };
  } finally {
    ({ current, scope } = outer);
  }
}

/**
 * Decor bytes (an SVG layer) built by `make` on first use of `key` and kept in a small shared LRU:
 * a busy theme's cards reuse the same bytes, and takumi's raster of them. `key` names what the
 * bytes depend on (size, variant, theme version: `themeKey(theme)`); the template's content hash
 * is added here, so an edited template never draws the decor its previous version cached.
 */
export function cachedDecor(key: string, make: () => Uint8Array): Uint8Array {
  return sharedDecorCache(`${scope}/${key}`, make);
}

/** The current build's image bag: pass it to `paragraph`, `richText`, `brandLabel`. */
export function bag(): ImageBag {
  if (!current) throw new Error('bag() and image() work only while a template renders (inside render)');
  return current;
}

/** Registers image bytes (PNG, JPEG, WebP or SVG) for this card and returns the `src` to draw them. */
export function image(name: string, data: Uint8Array): string {
  return bag().add(name, data);
}
