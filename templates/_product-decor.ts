import { cachedDecor, svgBytes } from 'cardshot/template';

/** The stage's three gradient stops and the tile shadow's tint. */
export interface StageColors {
  from: string;
  via: string;
  to: string;
  shadow: string;
}

export interface StageGeometry {
  width: number;
  height: number;
  /** The tile's box inside the stage. */
  tile: { x: number; y: number; size: number };
}

/**
 * Stage gradient, rings and the tile's drop shadow in one SVG. takumi caches the raster, so the
 * blur is paid once per process: as a CSS box-shadow it cost ~4 ms on every card. The gradient
 * runs top to bottom because PNG filters compress vertical gradients far better than diagonal.
 * Rings and shadow scale with the tile (the og numbers at a 430 px tile).
 */
function stageSvg({ width, height, tile }: StageGeometry, c: StageColors): string {
  const k = tile.size / 430;
  const cx = tile.x + tile.size / 2;
  const cy = tile.y + tile.size / 2;
  const rings = [250, 310, 370]
    .map(
      (r, i) =>
        `<circle cx="${cx}" cy="${cy}" r="${r * k}" fill="none" stroke="#fff" stroke-opacity="${0.3 - i * 0.08}" stroke-width="${1.5 * Math.max(1, k)}"/>`,
    )
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
  <defs>
    <linearGradient id="g" x1="0" y1="0" x2="0" y2="1">
      <stop offset="0" stop-color="${c.from}"/><stop offset="0.55" stop-color="${c.via}"/><stop offset="1" stop-color="${c.to}"/>
    </linearGradient>
    <filter id="blur" x="-30%" y="-30%" width="160%" height="160%"><feGaussianBlur stdDeviation="${22 * k}"/></filter>
  </defs>
  <rect width="${width}" height="${height}" fill="url(#g)"/>
  ${rings}
  <rect x="${tile.x + 10 * k}" y="${tile.y + 26 * k}" width="${tile.size - 20 * k}" height="${tile.size - 20 * k}" rx="${32 * k}" fill="${c.shadow}" fill-opacity="0.35" filter="url(#blur)"/>
</svg>`;
}

/** The stage layer's `src` and bytes, cached per geometry and theme. */
export function stageDecor(
  geometry: StageGeometry,
  colors: StageColors,
  sizeName: string,
  themeKey: string,
): [src: string, data: Uint8Array] {
  // og keeps the name it always had, so the default card's image list is unchanged.
  const src =
    sizeName === 'og' && themeKey === 'base'
      ? 'product/stage-v2.svg'
      : `product/stage-v2-${sizeName}-${geometry.width}x${geometry.height}-${themeKey}.svg`;
  return [src, cachedDecor(src, () => svgBytes(stageSvg(geometry, colors)))];
}

/** The four-pointed spark shown on the tile when there is neither artwork nor brand. */
export function sparkDecor(colors: StageColors, themeKey: string): [src: string, data: Uint8Array] {
  const src = themeKey === 'base' ? 'product/spark-v1.svg' : `product/spark-v1-${themeKey}.svg`;
  return [
    src,
    cachedDecor(src, () =>
      svgBytes(`<svg xmlns="http://www.w3.org/2000/svg" width="200" height="200" viewBox="0 0 200 200">
  <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1">
    <stop offset="0" stop-color="${colors.from}"/><stop offset="0.55" stop-color="${colors.via}"/><stop offset="1" stop-color="${colors.to}"/>
  </linearGradient></defs>
  <path d="M100 8 C108 70 130 92 192 100 C130 108 108 130 100 192 C92 130 70 108 8 100 C70 92 92 70 100 8Z" fill="url(#g)"/>
</svg>`),
    ),
  ];
}
