import { type CardSize, cachedDecor, type Direction, svgBytes } from 'cardshot/template';

/**
 * The corner mark: a solid disc and fine concentric arcs, anchored to the top corner on the
 * side opposite the text's start (mirrored for RTL), scaled with the card so they stay a corner
 * ornament rather than shrinking to a dot on a story.
 */
function decorSvg(size: CardSize, dir: Direction, accent: string, scale: number): string {
  const cx = dir === 'rtl' ? 0 : size.width;
  const arcs = [110, 170, 230, 290, 350]
    .map(
      (r, i) =>
        `<circle cx="${cx}" cy="0" r="${r * scale}" fill="none" stroke="${accent}" stroke-opacity="${(0.34 - i * 0.06).toFixed(2)}" stroke-width="${1.5 * Math.sqrt(scale)}"/>`,
    )
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${size.width}" height="${size.height}">
    <circle cx="${cx}" cy="0" r="${56 * scale}" fill="${accent}" fill-opacity="0.9"/>${arcs}</svg>`;
}

/** The decor's image `src` and bytes, cached per size, direction and theme. */
export function blogDecor(
  size: CardSize,
  dir: Direction,
  accent: string,
  scale: number,
  themeKey: string,
): [src: string, data: Uint8Array] {
  // og keeps the name it always had, so the default card's image list is unchanged.
  const suffix = size.name === 'og' && themeKey === 'base' ? '' : `-${size.name}-${themeKey}`;
  const src = `blog/decor-${dir}${suffix}.svg`;
  return [src, cachedDecor(src, () => svgBytes(decorSvg(size, dir, accent, scale)))];
}
