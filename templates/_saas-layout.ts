import type { CardSize, SizeName } from 'cardshot/template';

type Steps = readonly (readonly [number, number])[];

/** Where the screenshot window sits: `top` from the card's top, bleeding `outset` off the outer side. */
export interface WindowBox {
  top: number;
  outset: number;
  width: number;
  height: number;
}

/**
 * Saas's composition at one card size. Wide cards set the text beside a window that bleeds off
 * the lower outer corner; square and story set the text above a wider window (`stack`).
 */
export interface SaasLayout {
  kind: 'row' | 'stack';
  pad: number;
  /** Space above the text block (story: clear of the app's top bar). */
  padTop: number;
  /** Space below the text block (story: clear of the app's bottom bar). */
  padBottom: number;
  topRow: number;
  mark: { radius: number; initial: number };
  brandSize: number;
  gap: number;
  shot: { width: number; height: number };
  windowBar: number;
  window: WindowBox;
  /** Text width beside the window (row) and without artwork. */
  shotTextWidth: number;
  plainTextWidth: number;
  shotSteps: Steps;
  plainSteps: Steps;
  subtitleSteps: Steps;
  subtitleHeight: number;
  /** The glows' scale against og. */
  glow: number;
}

const WINDOW_BAR = 34;
/** A window around a shot: the bar, the picture and its 1 px borders. */
const windowFor = (shot: { width: number; height: number }, top: number, outset: number): WindowBox => ({
  top,
  outset,
  width: shot.width + 2,
  height: WINDOW_BAR + shot.height + 2,
});

function row(height: number): SaasLayout {
  const shot = { width: 640, height: 400 };
  return {
    kind: 'row',
    pad: 72,
    padTop: 72,
    padBottom: 72,
    topRow: 44,
    mark: { radius: 11, initial: 23 },
    brandSize: 26,
    gap: 22,
    shot,
    windowBar: WINDOW_BAR,
    // og's window bleeds 20 px off the bottom; taller and shorter cards keep that.
    window: windowFor(shot, 214 + height - 630, 56),
    shotTextWidth: 1200 - shot.width - 72 - 28,
    plainTextWidth: 940,
    shotSteps: [
      [64, 2],
      [56, 3],
      [50, 3],
      [44, 4],
      [40, 5],
      [36, 6],
      [32, 7],
    ],
    plainSteps: [
      [84, 2],
      [72, 2],
      [64, 3],
      [56, 3],
      [50, 4],
      [44, 5],
      [40, 6],
      [36, 7],
    ],
    subtitleSteps: [
      [28, 2],
      [26, 3],
      [24, 3],
    ],
    subtitleHeight: 110,
    glow: 1,
  };
}

const SQUARE_SHOT = { width: 780, height: 488 };
const SQUARE: SaasLayout = {
  ...row(630),
  kind: 'stack',
  shot: SQUARE_SHOT,
  window: windowFor(SQUARE_SHOT, 1080 - (WINDOW_BAR + SQUARE_SHOT.height + 2) + 32, 64),
  shotTextWidth: 936,
  plainTextWidth: 936,
  shotSteps: [
    [76, 2],
    [66, 2],
    [58, 3],
    [52, 3],
    [46, 4],
    [42, 4],
    [38, 5],
  ],
  plainSteps: [
    [104, 3],
    [92, 3],
    [80, 4],
    [72, 4],
    [64, 5],
    [56, 6],
    [50, 7],
    [44, 8],
  ],
  subtitleSteps: [
    [30, 2],
    [28, 2],
    [26, 3],
  ],
  subtitleHeight: 120,
  glow: 1.25,
};

const STORY_SHOT = { width: 920, height: 575 };
/** Story: text under the app's top bar, the window above its bottom bar, type for a phone. */
const STORY: SaasLayout = {
  ...SQUARE,
  pad: 88,
  padTop: 220,
  padBottom: 300,
  topRow: 60,
  mark: { radius: 16, initial: 32 },
  brandSize: 36,
  gap: 30,
  shot: STORY_SHOT,
  window: windowFor(STORY_SHOT, 1920 - 300 - (WINDOW_BAR + STORY_SHOT.height + 2), 56),
  shotTextWidth: 904,
  plainTextWidth: 904,
  shotSteps: [
    [112, 3],
    [96, 4],
    [84, 5],
    [76, 5],
    [68, 6],
    [60, 7],
    [54, 8],
  ],
  plainSteps: [
    [132, 3],
    [116, 4],
    [100, 5],
    [88, 6],
    [80, 7],
    [72, 8],
    [64, 9],
    [56, 10],
  ],
  subtitleSteps: [
    [40, 3],
    [36, 3],
    [32, 4],
  ],
  subtitleHeight: 200,
  glow: 1.7,
};

const BY_SIZE: Readonly<Record<SizeName, SaasLayout>> = {
  og: row(630),
  twitter: row(675),
  linkedin: row(627),
  square: SQUARE,
  story: STORY,
};

export function saasLayout(size: CardSize): SaasLayout {
  return BY_SIZE[size.name];
}
