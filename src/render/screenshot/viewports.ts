/**
 * Viewport presets for GET /render/url: the three built-ins of the spec plus custom presets an
 * operator configures (CARDSHOT_SCREENSHOT_VIEWPORTS). A PNG is always exactly
 * (width × scale) by (height × scale) pixels: the visible viewport, never the whole page, which
 * also caps what a page that grows without end can cost us.
 */
export interface Viewport {
  name: string;
  width: number;
  height: number;
  /** Device pixel ratio. */
  scale: number;
  /** Mobile emulation: meta viewport honoured, touch events, a phone's user agent. */
  mobile: boolean;
}

export const BUILT_IN_VIEWPORTS: readonly Viewport[] = Object.freeze([
  { name: 'og', width: 1200, height: 630, scale: 1, mobile: false },
  { name: 'desktop', width: 1280, height: 800, scale: 1, mobile: false },
  { name: 'mobile', width: 390, height: 844, scale: 3, mobile: true },
]);

/** The viewport used when a request names none. */
export const DEFAULT_VIEWPORT = 'og';

/** The most pixels one screenshot may have: a preset's viewport, a full page or an element. */
export const MAX_OUTPUT_PIXELS = 40_000_000;
const LIMITS = { minSide: 100, maxSide: 3840, maxScale: 4, maxPixels: MAX_OUTPUT_PIXELS };
const PRESET = /^([a-z][a-z0-9-]{0,31})=(\d{1,5})x(\d{1,5})(?:@([1-4](?:\.\d{1,2})?))?(:mobile)?$/;

/** Why a custom preset entry is unusable, or undefined when it is fine (used by the config loader). */
export function presetProblem(entries: readonly string[]): string | undefined {
  try {
    parseCustomViewports(entries);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/**
 * Parses `name=WIDTHxHEIGHT[@SCALE][:mobile]` entries (for example `square=1080x1080`,
 * `retina=1440x900@2`, `tablet=820x1180@2:mobile`). Throws with a message naming the entry.
 */
export function parseCustomViewports(entries: readonly string[]): Viewport[] {
  const out: Viewport[] = [];
  for (const entry of entries) {
    const m = PRESET.exec(entry.trim());
    if (!m) {
      throw new Error(
        `viewport preset "${entry}" must look like name=1080x1080, name=1440x900@2 or name=820x1180@2:mobile (lower-case name)`,
      );
    }
    const [, name, w, h, s, mobile] = m as unknown as [string, string, string, string, string?, string?];
    const vp: Viewport = {
      name,
      width: Number(w),
      height: Number(h),
      scale: s === undefined ? 1 : Number(s),
      mobile: mobile !== undefined,
    };
    if ([vp.width, vp.height].some((n) => n < LIMITS.minSide || n > LIMITS.maxSide)) {
      throw new Error(
        `viewport preset "${name}": width and height must be ${LIMITS.minSide} to ${LIMITS.maxSide} pixels`,
      );
    }
    if (vp.width * vp.height * vp.scale ** 2 > LIMITS.maxPixels) {
      throw new Error(`viewport preset "${name}": the PNG would exceed ${LIMITS.maxPixels / 1e6} megapixels`);
    }
    if (BUILT_IN_VIEWPORTS.some((b) => b.name === name) || out.some((o) => o.name === name)) {
      throw new Error(`viewport preset "${name}" is defined twice (og, desktop and mobile are built in)`);
    }
    out.push(vp);
  }
  return out;
}

/** Every preset a request may name, built-ins first. */
export function viewportCatalogue(custom: readonly string[]): ReadonlyMap<string, Viewport> {
  return new Map([...BUILT_IN_VIEWPORTS, ...parseCustomViewports(custom)].map((v) => [v.name, v]));
}

/** The user agent a real Chrome of this version sends on this kind of device. */
export function userAgentFor(viewport: Viewport, chromeVersion: string): string {
  // Chrome reports only the major version in its user agent (UA reduction).
  const major = `${chromeVersion.split('.')[0] ?? '0'}.0.0.0`;
  return viewport.mobile
    ? `Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major} Mobile Safari/537.36`
    : `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major} Safari/537.36`;
}
