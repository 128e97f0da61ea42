import type { CardSize, SizeName } from 'cardshot/template';

type Steps = readonly (readonly [number, number])[];

/**
 * Product's composition at one card size. Wide cards put the stage beside the text (`row`);
 * square and story stack it above the text (`stack`), where the photo gets the width it needs.
 */
export interface ProductLayout {
  kind: 'row' | 'stack';
  /** The stage: its width (row) or height (stack); it spans the card's other side. */
  stage: number;
  tile: number;
  /** The artwork's box inside the tile (artwork is resized to it, contained). */
  art: number;
  tileRadius: number;
  pad: number;
  /** Extra space below the text in a stack (story: clear of the app's bottom bar). */
  padBottom: number;
  /** The gap between the text and the stage (row only). */
  gutter: number;
  topRow: number;
  gap: number;
  titleSteps: Steps;
  subtitleSteps: Steps;
  subtitleHeight: number;
  pill: { font: number; dot: number };
  monogram: number;
  spark: number;
  bar: { width: number; height: number };
}

const ROW: ProductLayout = {
  kind: 'row',
  stage: 500,
  tile: 430,
  art: 390,
  tileRadius: 32,
  pad: 72,
  padBottom: 72,
  gutter: 56,
  topRow: 40,
  gap: 24,
  titleSteps: [
    [72, 2],
    [64, 3],
    [56, 3],
    [50, 4],
    [44, 5],
    [40, 6],
    [36, 7],
    [32, 8],
  ],
  subtitleSteps: [
    [27, 3],
    [25, 3],
    [23, 3],
  ],
  subtitleHeight: 120,
  pill: { font: 17, dot: 12 },
  monogram: 210,
  spark: 170,
  bar: { width: 64, height: 6 },
};

const SQUARE: ProductLayout = {
  ...ROW,
  kind: 'stack',
  stage: 560,
  tile: 420,
  art: 380,
  pad: 72,
  padBottom: 64,
  gap: 22,
  titleSteps: [
    [80, 2],
    [68, 3],
    [60, 3],
    [52, 4],
    [46, 5],
    [42, 5],
    [38, 6],
    [34, 7],
  ],
  subtitleSteps: [
    [28, 2],
    [26, 2],
    [24, 2],
  ],
  subtitleHeight: 84,
};

/** Story: a tall stage under the app's top bar, the text above its bottom bar, type for a phone. */
const STORY: ProductLayout = {
  ...ROW,
  kind: 'stack',
  stage: 980,
  tile: 620,
  art: 570,
  tileRadius: 44,
  pad: 88,
  padBottom: 250,
  topRow: 52,
  gap: 30,
  titleSteps: [
    [112, 2],
    [96, 3],
    [84, 3],
    [76, 4],
    [68, 4],
    [60, 5],
    [54, 6],
    [48, 7],
  ],
  subtitleSteps: [
    [38, 3],
    [35, 3],
    [32, 3],
  ],
  subtitleHeight: 170,
  pill: { font: 24, dot: 16 },
  monogram: 320,
  spark: 260,
  bar: { width: 88, height: 8 },
};

const BY_SIZE: Readonly<Record<SizeName, ProductLayout>> = {
  og: ROW,
  twitter: ROW,
  linkedin: ROW,
  square: SQUARE,
  story: STORY,
};

export function productLayout(size: CardSize): ProductLayout {
  return BY_SIZE[size.name];
}

/** The stage's box on the card. */
export function stageBox(size: CardSize, L: ProductLayout): { width: number; height: number } {
  return L.kind === 'row' ? { width: L.stage, height: size.height } : { width: size.width, height: L.stage };
}

/** The text column's box on the card. */
export function textBox(size: CardSize, L: ProductLayout): { width: number; height: number } {
  return L.kind === 'row'
    ? { width: size.width - L.stage, height: size.height }
    : { width: size.width, height: size.height - L.stage };
}
