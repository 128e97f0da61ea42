/**
 * The screenshot options of GET /render/url, each declared once (issue 29 §0), as template fields
 * are (render/template/sdk/define.ts): its name, its type and bounds, whether a plan must name it,
 * and how it is described. Everything else is derived from this table: the parser (options.ts),
 * the names plans list (option-names.ts), the OpenAPI schema (http/schemas/shot-options.ts), the
 * client's types (client/screenshot-options.generated.ts), the CLI's `shot` flags (cli/shot/) and
 * the dashboard playground's fields. A new option is one more entry here.
 *
 * The order is the order of the query the client writes and of the names an error lists.
 */
import { DEFAULT_QUALITY, IMAGE_FORMATS } from '../format-names.js';
import { HIDE_SELECTORS_MAX, SELECTOR_MAX_LENGTH } from './engine/page/selectors.js';
import type { OptionSpec } from './option-spec.js';

export type { OptionCli, OptionForm, OptionSpec, OptionType } from './option-spec.js';

const SCALES = [1, 2, 3] as const;

/** The table. `as const` keeps the names literal: `OptionName` is their union. */
export const SHOT_OPTIONS = [
  {
    name: 'fullPage',
    type: 'flag',
    gated: true,
    doc: 'The whole page, not just the viewport: it is scrolled through first (lazy images and IntersectionObserver content load), then captured from the top, down to CARDSHOT_SCREENSHOT_MAX_FULL_PAGE_HEIGHT output pixels (16,384). Answers carry X-Page-Height, and X-Full-Page-Truncated: true when cut.',
    form: {
      group: 'capture',
      label: 'Full page',
      hint: 'The whole page, lazy content loaded by scrolling; very tall pages are cut.',
    },
    cli: { help: 'the whole page, lazy content loaded; height capped', example: '--full-page' },
  },
  {
    name: 'selector',
    type: 'selector',
    example: '#pricing',
    gated: false,
    doc: 'Capture only the first element matching this CSS selector (waited for until the time-out; 422 when none, or when it has no size).',
    form: {
      group: 'capture',
      label: 'Only this element',
      placeholder: 'main article',
      hint: 'CSS selector; the first match is captured.',
    },
    cli: { arg: 'CSS', help: 'only the first element that matches', example: "--selector 'main article'" },
  },
  {
    name: 'waitForSelector',
    type: 'selector',
    example: '.chart.ready',
    gated: false,
    doc: 'Wait until the first element matching this CSS selector is visible before capturing (504 when it never is).',
    form: {
      group: 'capture',
      label: 'Wait for element',
      placeholder: '#chart svg',
      hint: 'CSS selector; captured once it is visible.',
    },
    cli: { arg: 'CSS', help: 'wait until it is visible', example: "--wait-for-selector '#chart svg'" },
  },
  {
    name: 'delay',
    type: 'integer',
    min: 0,
    max: 10_000,
    unit: 'milliseconds',
    none: 0,
    shownDefault: 0,
    example: 500,
    gated: false,
    doc: 'Milliseconds to wait once the page is ready (after waitUntil, web fonts and waitForSelector).',
    form: {
      group: 'capture',
      label: 'Delay (ms)',
      placeholder: '0',
      hint: 'Extra wait after the page is ready, 0 to 10000.',
      step: 100,
    },
    cli: { arg: 'MS', help: 'wait after the page is ready, 0–10000', example: '--delay 1500' },
  },
  {
    name: 'darkMode',
    type: 'flag',
    gated: false,
    doc: 'Emulate prefers-color-scheme: dark.',
    form: { group: 'page', label: 'Dark mode', hint: 'prefers-color-scheme: dark' },
    cli: { help: 'prefers-color-scheme: dark', example: '--dark-mode' },
  },
  {
    name: 'hideSelectors',
    type: 'selectors',
    example: '#cookie-banner, .newsletter-popup',
    gated: false,
    doc: `Comma-separated CSS selectors (at most ${HIDE_SELECTORS_MAX}, each at most ${SELECTOR_MAX_LENGTH} characters) hidden with display: none !important before the capture.`,
    form: {
      group: 'capture',
      label: 'Hide elements',
      placeholder: '.chat-widget, #promo',
      hint: `Comma-separated CSS selectors, at most ${HIDE_SELECTORS_MAX}.`,
    },
    cli: {
      flag: 'hide',
      arg: 'CSS[,CSS…]',
      repeatable: true,
      help: `hidden before capture (repeatable; at most ${HIDE_SELECTORS_MAX})`,
      example: "--hide '.chat,#promo'",
    },
  },
  {
    name: 'blockAds',
    type: 'flag',
    gated: true,
    doc: 'Block ads and trackers (plan-gated).',
    form: { group: 'page', label: 'Block ads and trackers' },
    cli: { help: 'block ads and trackers', example: '--block-ads' },
  },
  {
    name: 'blockCookieBanners',
    type: 'flag',
    gated: true,
    doc: 'Refuse consent pop-ups and hide cookie banners (plan-gated).',
    form: { group: 'page', label: 'Block cookie banners', hint: 'Consent pop-ups refused, banners hidden.' },
    cli: { help: 'refuse consent pop-ups, hide cookie banners', example: '--block-cookie-banners' },
  },
  {
    name: 'scale',
    type: 'scale',
    values: SCALES,
    example: 2,
    gated: false,
    doc: "Device scale factor for any viewport (default: the viewport's own: 3 for mobile, 1 otherwise).",
    form: {
      group: 'image',
      label: 'Scale',
      choices: [['', 'Viewport’s'], ...SCALES.map((s) => [String(s), `${s}×`] as const)],
    },
    cli: { arg: '1|2|3', help: 'device scale factor', example: '--scale 2' },
  },
  {
    name: 'format',
    type: 'format',
    values: IMAGE_FORMATS,
    none: 'png',
    example: 'webp',
    gated: false,
    doc: 'The image format: png (the default), jpeg, webp or avif. Content-Type follows (image/png, image/jpeg, image/webp, image/avif).',
    form: {
      group: 'image',
      label: 'Format',
      choices: [
        ['png', 'PNG'],
        ['jpeg', 'JPEG'],
        ['webp', 'WebP'],
        ['avif', 'AVIF'],
      ],
    },
    cli: {
      arg: 'FORMAT',
      help: "png, jpeg, webp, avif (default: -o's extension, png)",
      example: '--format webp',
    },
  },
  {
    name: 'quality',
    type: 'quality',
    example: 80,
    gated: false,
    doc: `Quality of a jpeg, webp or avif (defaults ${DEFAULT_QUALITY.jpeg}, ${DEFAULT_QUALITY.webp} and ${DEFAULT_QUALITY.avif}, sharp's own); refused with png. A lower number, a smaller file.`,
    form: { group: 'image', label: 'Quality', placeholder: '80', hint: '1 to 100, for JPEG, WebP and AVIF.' },
    cli: { arg: '1–100', help: 'for jpeg, webp and avif', example: '--quality 80' },
  },
  {
    name: 'ttl',
    type: 'integer',
    min: 3600,
    max: 2_592_000,
    unit: 'seconds',
    shownDefault: 86_400,
    example: 3600,
    gated: false,
    cacheOnly: true,
    doc: 'Seconds this capture may be served from the cache; Cache-Control max-age follows it. An older cached capture is taken again.',
    form: {
      group: 'image',
      label: 'Cache for (seconds)',
      placeholder: '86400',
      hint: '3600 to 2592000; default one day.',
      step: 3600,
    },
    cli: { arg: 'SECONDS', help: 'served from the cache this long, 3600–2592000', example: '--ttl 3600' },
  },
  {
    name: 'fresh',
    type: 'flag',
    gated: true,
    cacheOnly: true,
    doc: 'Capture again even when cached (the new capture replaces the cached one); plan-gated, counts as a capture. Refused (400) in a signed URL that expires more than 30 minutes from now.',
    form: { group: 'image', label: 'Capture again', hint: 'Even when cached; counts as a capture.' },
    cli: { help: 'capture again even when cached', example: '--fresh' },
  },
] as const satisfies readonly OptionSpec[];

export type OptionName = (typeof SHOT_OPTIONS)[number]['name'];

/** The declaration of `name`. */
export function optionSpec(name: OptionName): OptionSpec {
  return SHOT_OPTIONS.find((o) => o.name === name)!;
}

/** The CLI flag of an option: its own, or the kebab-case of its name. */
export function cliFlag(spec: OptionSpec): string {
  return spec.cli.flag ?? spec.name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}
