import type { ImageSource, Node, Renderer } from '@takumi-rs/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { createLayerRasterizer } from '../../../src/render/template/layers.js';
import { sharedEngine } from '../../helpers/engine.js';
import { pngSize } from '../../helpers/png.js';
import { decode } from './pixels.js';

let engine: Renderer;
beforeAll(async () => {
  engine = await sharedEngine();
});

const W = 600;
const H = 300;
/** A layer painting only the top-right corner: a disc and a thin ring, as blog's decor does. */
const svg = Buffer.from(
  `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}"><circle cx="${W}" cy="0" r="60" fill="#C2410C" fill-opacity="0.9"/><circle cx="${W}" cy="0" r="120" fill="none" stroke="#C2410C" stroke-opacity="0.3" stroke-width="1.5"/></svg>`,
);

function card(layerStyle: Record<string, unknown>, src = 't/0123456789abcdef/decor.svg'): Node {
  return {
    type: 'container',
    style: { width: W, height: H, display: 'flex', backgroundColor: '#F6F1E9', position: 'relative' },
    children: [
      { type: 'image', src, style: layerStyle },
      { type: 'text', text: 'Layers', style: { fontSize: 48, color: '#1F1A17' } },
    ],
  } as Node;
}
const placed = { position: 'absolute', left: 0, top: 0, width: W, height: H };
const images = (src = 't/0123456789abcdef/decor.svg'): ImageSource[] => [{ src, data: svg }];
const draw = (node: Node, imgs: ImageSource[]) =>
  engine.render(node, { width: W, height: H, format: 'png', images: imgs });

describe('SVG layers drawn once as PNG', () => {
  it('draws the same pixels from a PNG cropped to the painted corner, without the SVG', async () => {
    const layers = createLayerRasterizer();
    const before = await draw(card(placed), images());
    const flat = await layers.flatten(card(placed), images(), engine);
    const after = await draw(flat.node, flat.images);

    expect(pngSize(after)).toEqual({ width: W, height: H });
    const [a, b] = [await decode(before), await decode(after)];
    expect(Buffer.compare(a.data, b.data)).toBe(0);
    const layer = (
      flat.node as {
        children: Array<{ src: string; style: { left: number; top: number; width: number; height: number } }>;
      }
    ).children[0]!;
    // The ring of radius 120 (stroke 1.5) at the top-right corner: ~121 px square, not 600 × 300.
    expect(layer.style.width).toBeLessThanOrEqual(122);
    expect(layer.style.height).toBeLessThanOrEqual(122);
    expect(layer.style.left).toBe(W - layer.style.width);
    expect(layer.style.top).toBe(0);
    expect(flat.images.map((i) => i.src)).toEqual([layer.src]);
    expect(pngSize(Buffer.from(flat.images[0]!.data as Uint8Array))).toEqual({
      width: layer.style.width,
      height: layer.style.height,
    });
  });

  it('keeps the crop where the layer itself is placed off the origin', async () => {
    const layers = createLayerRasterizer();
    const style = { position: 'absolute', left: -100, top: 20, width: W, height: H };
    const before = await draw(card(style), images());
    const flat = await layers.flatten(card(style), images(), engine);
    const [a, b] = [await decode(before), await decode(await draw(flat.node, flat.images))];
    expect(Buffer.compare(a.data, b.data)).toBe(0);
  });

  it('reuses the drawn layer for the next card with the same source and size', async () => {
    const layers = createLayerRasterizer();
    const first = await layers.flatten(card(placed), images(), engine);
    const second = await layers.flatten(card(placed), images(), engine);
    expect(second.images[0]!.data).toBe(first.images[0]!.data);
  });

  it('draws new bytes under a name already seen, never the old layer', async () => {
    const layers = createLayerRasterizer();
    const first = await layers.flatten(card(placed), images(), engine);
    const other = Buffer.from(svg.toString().replaceAll('#C2410C', '#1D4ED8'));
    const src = 't/0123456789abcdef/decor.svg';
    const second = await layers.flatten(card(placed), [{ src, data: other }], engine);
    expect(second.images[0]!.src).not.toBe(first.images[0]!.src);
    const a = await decode(
      await draw(card(placed, 'other/blue.svg'), [{ src: 'other/blue.svg', data: other }]),
    );
    const b = await decode(await draw(second.node, second.images));
    expect(Buffer.compare(a.data, b.data)).toBe(0);
  });

  it('leaves layers takumi styles beyond their place (opacity, fractional sizes) as SVG', async () => {
    const layers = createLayerRasterizer();
    for (const style of [
      { ...placed, opacity: 0.5 },
      { ...placed, width: W - 0.5 },
      { width: W, height: H },
    ]) {
      const flat = await layers.flatten(card(style), images(), engine);
      expect(flat.images.map((i) => i.src)).toEqual(['t/0123456789abcdef/decor.svg']);
    }
  });

  it('leaves a layer painting most of the card as SVG', async () => {
    const layers = createLayerRasterizer();
    const backdrop = Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}"><rect x="10" y="10" width="${W - 20}" height="${H - 20}" fill="#C2410C" fill-opacity="0.2"/></svg>`,
    );
    const flat = await layers.flatten(
      card(placed),
      [{ src: 't/0123456789abcdef/decor.svg', data: backdrop }],
      engine,
    );
    expect(flat.images.map((i) => i.src)).toEqual(['t/0123456789abcdef/decor.svg']);
  });

  it('keeps the SVG source when a CSS url() still names it', async () => {
    const layers = createLayerRasterizer();
    const node = card(placed);
    (node as { style: Record<string, unknown> }).style.backgroundImage = 'url(t/0123456789abcdef/decor.svg)';
    const flat = await layers.flatten(node, images(), engine);
    expect(flat.images.map((i) => i.src)).toContain('t/0123456789abcdef/decor.svg');
    expect(flat.images).toHaveLength(2);
  });
});
