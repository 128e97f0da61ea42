import type { CardSize, SizeName } from 'cardshot/template';

type Steps = readonly (readonly [number, number])[];

/** Blog's composition at one card size: margins, text boxes, type scales and decor scale. */
export interface BlogLayout {
  padX: number;
  padTop: number;
  padBottom: number;
  /** The brand row: mark size, its corner radius, the initial's and the name's type size. */
  mark: number;
  markRadius: number;
  initial: number;
  brandSize: number;
  /** Keeps a long brand clear of the corner arcs. */
  brandWidth: number;
  /** The accent bar shown when there is no brand. */
  bar: { width: number; height: number };
  titleWidth: number;
  titleSteps: Steps;
  subtitleWidth: number;
  subtitleSteps: Steps;
  subtitleHeight: number;
  gap: number;
  /** Space kept between the brand row and the text block. */
  breathe: number;
  /** The corner arcs' scale (1 at og) and the disc's radius. */
  decorScale: number;
}

const LANDSCAPE_TITLE: Steps = [
  [96, 2],
  [84, 2],
  [76, 3],
  [68, 3],
  [60, 4],
  [54, 4],
  [48, 5],
  [44, 5],
  [40, 6],
];

/** og, twitter and linkedin: the same wide composition; only the height differs. */
const LANDSCAPE: BlogLayout = {
  padX: 80,
  padTop: 68,
  padBottom: 68,
  mark: 44,
  markRadius: 12,
  initial: 24,
  brandSize: 24,
  brandWidth: 620,
  bar: { width: 56, height: 6 },
  titleWidth: 1000,
  titleSteps: LANDSCAPE_TITLE,
  subtitleWidth: 860,
  subtitleSteps: [
    [30, 2],
    [28, 2],
    [26, 2],
  ],
  subtitleHeight: 130,
  gap: 22,
  breathe: 48,
  decorScale: 1,
};

/** Square: a taller page, so the headline gets display sizes and up to eight lines. */
const SQUARE: BlogLayout = {
  ...LANDSCAPE,
  padX: 84,
  padTop: 84,
  padBottom: 92,
  mark: 52,
  markRadius: 14,
  initial: 28,
  brandSize: 28,
  brandWidth: 600,
  bar: { width: 64, height: 7 },
  titleWidth: 900,
  titleSteps: [
    [112, 3],
    [100, 3],
    [88, 4],
    [78, 4],
    [68, 5],
    [60, 6],
    [54, 7],
    [48, 8],
    [44, 9],
  ],
  subtitleWidth: 840,
  subtitleSteps: [
    [34, 3],
    [32, 3],
    [30, 3],
  ],
  subtitleHeight: 150,
  gap: 28,
  breathe: 64,
  decorScale: 1.5,
};

/**
 * Story: Instagram and TikTok draw their own bars over the top ~220 px and bottom ~300 px, so the
 * brand row and the text stay inside; the headline is set large enough to read on a phone held
 * at arm's length.
 */
const STORY: BlogLayout = {
  ...SQUARE,
  padX: 96,
  padTop: 236,
  padBottom: 340,
  mark: 64,
  markRadius: 18,
  initial: 34,
  brandSize: 34,
  brandWidth: 600,
  bar: { width: 80, height: 8 },
  titleWidth: 888,
  titleSteps: [
    [132, 3],
    [116, 4],
    [104, 5],
    [92, 6],
    [84, 7],
    [76, 8],
    [68, 9],
    [60, 10],
    [54, 11],
  ],
  subtitleWidth: 860,
  subtitleSteps: [
    [40, 3],
    [38, 3],
    [34, 4],
  ],
  subtitleHeight: 230,
  gap: 36,
  breathe: 80,
  decorScale: 2.2,
};

const BY_SIZE: Readonly<Record<SizeName, BlogLayout>> = {
  og: LANDSCAPE,
  twitter: LANDSCAPE,
  linkedin: LANDSCAPE,
  square: SQUARE,
  story: STORY,
};

export function blogLayout(size: CardSize): BlogLayout {
  return BY_SIZE[size.name];
}
