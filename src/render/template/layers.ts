import { createHash } from 'node:crypto';
import type { ImageSource, Node, Renderer } from '@takumi-rs/core';
import { LRUCache } from 'lru-cache';
import sharp from 'sharp';

/**
 * Decorative SVG layers drawn as pixels once, not on every card.
 *
 * Every built-in design puts a full-card SVG (arcs, a backdrop, a stage) under its text as an
 * absolutely placed `<img>`. takumi keeps such an SVG parsed but rasterises it again on each
 * render, over the whole card: measured 2–4 ms of blog's ~9 ms, while a decoded PNG in its image
 * cache is only composited. So the first card that draws a layer has takumi draw it alone at its
 * own size (the same rasteriser, so the same pixels), cropped to the box it paints (blog's arcs
 * cover 351 × 351 of 1200 × 630) and kept as a PNG; later cards draw that PNG at the same spot.
 * The card's bytes do not change (the golden tests compare them), so neither do ETags.
 */
export interface LayerRasterizer {
  /** `node` with its plain SVG layers swapped for cached PNG crops, and the images to pass. */
  flatten(
    node: Node,
    images: ImageSource[],
    engine: Renderer,
  ): Promise<{ node: Node; images: ImageSource[] }>;
}

/** A layer as drawn: the PNG of its painted box and where that box sits; null: drawn as SVG. */
type Layer = { src: string; data: Buffer; left: number; top: number; width: number; height: number } | null;

interface ImageNode {
  type: 'image';
  src: string;
  style: { position: 'absolute'; left: number; top: number; width: number; height: number };
}

const PLACEMENT = new Set(['position', 'left', 'top', 'width', 'height']);

/** Layers kept (each a few KB of PNG): every size × direction × theme seen recently. */
const DEFAULT_MAX_LAYERS = 256;

/** Creates the rasteriser with its own bounded cache of layers. */
export function createLayerRasterizer(maxLayers = DEFAULT_MAX_LAYERS): LayerRasterizer {
  const layers = new LRUCache<string, Promise<Layer>>({ max: maxLayers });

  const layerOf = (node: ImageNode, source: ImageSource, engine: Renderer): Promise<Layer> => {
    const { width, height } = node.style;
    // The bytes' own digest (a few µs for a decor SVG), not only the name: the template image
    // bag prefixes names with one, but a source given another way must not draw stale pixels.
    const digest = createHash('sha256').update(bytesOf(source.data)).digest('hex').slice(0, 16);
    const key = `${node.src}@${width}x${height}#${digest}`;
    let layer = layers.get(key);
    if (!layer) {
      layer = drawLayer(key, source, width, height, engine);
      layers.set(key, layer);
      layer.catch(() => layers.delete(key));
    }
    return layer;
  };

  return {
    async flatten(node, images, engine) {
      const found = layerNodes(node, images);
      if (found.length === 0) return { node, images };
      const replaced = new Set<string>();
      const added: ImageSource[] = [];
      for (const { node: layerNode, source } of found) {
        let layer: Layer;
        try {
          layer = await layerOf(layerNode, source, engine);
        } catch {
          continue; // drawn as an SVG, as before
        }
        if (!layer) continue;
        const { src, data, left, top, width, height } = layer;
        const at = layerNode.style;
        // The tree is the build's own (a fresh one per card), so it is changed in place.
        layerNode.src = src;
        layerNode.style = { position: 'absolute', left: at.left + left, top: at.top + top, width, height };
        if (!added.some((i) => i.src === src)) added.push({ src, data });
        replaced.add(source.src);
      }
      // The SVG's bytes stay only if something else (an image node, a CSS url()) still names
      // them: takumi handles every source it is given, so an unused one is not passed.
      const tree = replaced.size > 0 ? JSON.stringify(node) : '';
      const named = (src: string) => [`"${src}"`, `(${src})`, `'${src}'`].some((s) => tree.includes(s));
      const kept = images.filter((i) => !replaced.has(i.src) || named(i.src));
      return { node, images: [...kept, ...added] };
    },
  };
}

/** Image nodes that are only an SVG placed at whole pixels (anything else is left to takumi). */
function layerNodes(root: Node, images: ImageSource[]): Array<{ node: ImageNode; source: ImageSource }> {
  const svgs = new Map(images.filter((i) => isSvg(i.data)).map((i) => [i.src, i]));
  if (svgs.size === 0) return [];
  const out: Array<{ node: ImageNode; source: ImageSource }> = [];
  const walk = (n: Node) => {
    if (n.type === 'image') {
      const source = svgs.get(n.src as string);
      if (source && isPlainLayer(n)) out.push({ node: n as unknown as ImageNode, source });
      return;
    }
    if (n.type === 'container') for (const child of n.children ?? []) walk(child);
  };
  walk(root);
  return out;
}

function isPlainLayer(n: Node): boolean {
  if (Object.keys(n).some((k) => k !== 'type' && k !== 'src' && k !== 'style')) return false;
  const style = (n as { style?: Record<string, unknown> }).style ?? {};
  if (style.position !== 'absolute') return false;
  if (Object.keys(style).some((k) => !PLACEMENT.has(k))) return false;
  const whole = (v: unknown) => typeof v === 'number' && Number.isInteger(v);
  return (
    whole(style.left) &&
    whole(style.top) &&
    whole(style.width) &&
    whole(style.height) &&
    (style.width as number) > 0 &&
    (style.height as number) > 0
  );
}

function bytesOf(data: ImageSource['data']): Uint8Array {
  return data instanceof ArrayBuffer ? new Uint8Array(data) : data;
}

function isSvg(data: ImageSource['data']): boolean {
  const head = Buffer.from(bytesOf(data).subarray(0, 256)).toString('latin1').trimStart();
  return head.startsWith('<svg') || (head.startsWith('<?xml') && head.includes('<svg'));
}

/** takumi draws the SVG alone at its drawn size; the painted box is cut out as a PNG. */
async function drawLayer(
  key: string,
  source: ImageSource,
  width: number,
  height: number,
  engine: Renderer,
): Promise<Layer> {
  // Drawn under a name with the digest in it: takumi caches parsed images by name, and the
  // card's own name may have held other bytes before.
  const src = `layer-source/${key}`;
  const pixels = await engine.render({ type: 'image', src, style: { width, height } } as Node, {
    width,
    height,
    format: 'raw',
    images: [{ src, data: source.data, cache: 'none' }],
  });
  const box = paintedBox(pixels, width, height);
  // A layer painting most of the card (saas's backdrop, product's stage) gained nothing measurable
  // as a PNG (16.9 against 16.7 ms CPU per saas card), and its decoded pixels (3 MB at og size,
  // per variant and theme) would crowd takumi's 64 MB image cache: it stays an SVG.
  if (!box || box.width * box.height > (width * height) / 2) return null;
  const data = await sharp(pixels, { raw: { width, height, channels: 4 } })
    .extract({ left: box.left, top: box.top, width: box.width, height: box.height })
    .png()
    .toBuffer();
  return { src: `layer/${key.replace('#', '/')}/${box.left},${box.top}.png`, data, ...box };
}

/** The smallest box holding every pixel with any alpha (RGBA rows); null when none has. */
function paintedBox(px: Uint8Array, width: number, height: number) {
  let left = width;
  let top = height;
  let right = -1;
  let bottom = -1;
  for (let y = 0; y < height; y++) {
    const row = y * width * 4;
    for (let x = 0; x < width; x++) {
      if (px[row + x * 4 + 3] === 0) continue;
      if (x < left) left = x;
      if (x > right) right = x;
      if (y < top) top = y;
      bottom = y;
    }
  }
  if (right < 0) return null;
  return { left, top, width: right - left + 1, height: bottom - top + 1 };
}
