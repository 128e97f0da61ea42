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
import {
  COOKIES_MAX,
  COOKIES_MAX_BYTES,
  HEADERS_MAX,
  HEADERS_MAX_BYTES,
  USER_AGENT_MAX,
} from './credentials.js';
import { HIDE_SELECTORS_MAX, SELECTOR_MAX_LENGTH } from './engine/page/selectors.js';
import type { OptionSpec } from './option-spec.js';
import {
  CSS_MAX_BYTES,
  LOCALE_MAX_LENGTH,
  readCss,
  readLocale,
  readMargin,
  readPageRanges,
  readTimezone,
} from './option-values.js';

export type { OptionCli, OptionForm, OptionSpec, OptionType } from './option-spec.js';

const SCALES = [1, 2, 3] as const;
/** Paper sizes a PDF may be printed on (Chromium's own names, lower-cased). */
export const PAPERS = ['a4', 'letter', 'legal', 'a3', 'a5', 'tabloid'] as const;
/** What `format` takes: the image formats, and a PDF. */
export const SHOT_FORMATS = [...IMAGE_FORMATS, 'pdf'] as const;

/** The table. `as const` keeps the names literal: `OptionName` is their union. */
export const SHOT_OPTIONS = [
  {
    name: 'fullPage',
    type: 'flag',
    gated: true,
    only: 'image',
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
    only: 'image',
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
    pdf: { min: 0.1, max: 2 },
    example: 2,
    gated: false,
    doc: "Device scale factor for any viewport (default: the viewport's own: 3 for mobile, 1 otherwise). With format=pdf, the print scale instead: 0.1 to 2 (default 1).",
    form: {
      group: 'image',
      label: 'Scale',
      choices: [['', 'Viewport’s'], ...SCALES.map((s) => [String(s), `${s}×`] as const)],
    },
    cli: { arg: '1|2|3', help: 'device scale factor (PDF: print scale 0.1–2)', example: '--scale 2' },
  },
  {
    name: 'format',
    type: 'format',
    values: SHOT_FORMATS,
    none: 'png',
    example: 'webp',
    gated: false,
    doc: 'The answer format: png (the default), jpeg, webp, avif, or pdf (the page printed: text stays text, links stay links; at most CARDSHOT_PDF_MAX_PAGES pages, X-Pdf-Truncated: true past it). Content-Type follows (image/png, image/jpeg, image/webp, image/avif, application/pdf).',
    form: {
      group: 'image',
      label: 'Format',
      choices: [
        ['png', 'PNG'],
        ['jpeg', 'JPEG'],
        ['webp', 'WebP'],
        ['avif', 'AVIF'],
        ['pdf', 'PDF'],
      ],
    },
    cli: {
      arg: 'FORMAT',
      help: "png, jpeg, webp, avif, pdf (default: -o's extension, png)",
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
    name: 'paper',
    type: 'choice',
    values: PAPERS,
    none: 'a4',
    example: 'letter',
    gated: false,
    only: 'pdf',
    doc: `The PDF's paper size: ${PAPERS.join(', ')} (default a4). A page's own CSS @page size does not override it.`,
    form: {
      group: 'pdf',
      label: 'Paper',
      choices: PAPERS.map(
        (p) => [p, p.length === 2 ? p.toUpperCase() : p[0]!.toUpperCase() + p.slice(1)] as const,
      ),
    },
    cli: { arg: 'SIZE', help: `PDF paper: ${PAPERS.join(', ')}`, example: '--paper letter' },
  },
  {
    name: 'landscape',
    type: 'flag',
    gated: false,
    only: 'pdf',
    doc: 'Print the PDF in landscape orientation.',
    form: { group: 'pdf', label: 'Landscape' },
    cli: { help: 'PDF in landscape', example: '--landscape' },
  },
  {
    name: 'margin',
    type: 'text',
    maxLength: 100,
    read: readMargin,
    example: '10mm',
    gated: false,
    only: 'pdf',
    doc: "The PDF's page margin: one CSS length (px, in, cm, mm) or four for top, right, bottom and left; each at most 2in. Default 0 (the page's own CSS decides).",
    form: { group: 'pdf', label: 'Margin', placeholder: '10mm or 1cm 2cm 1cm 2cm' },
    cli: { arg: 'CSS', help: 'PDF margin: one length, or four', example: '--margin 10mm' },
  },
  {
    name: 'printBackground',
    type: 'flag',
    on: true,
    gated: false,
    only: 'pdf',
    doc: "Print background colours and images in the PDF (default true; false prints as a browser's print dialog does by default).",
    form: {
      group: 'pdf',
      label: 'Print backgrounds',
      // A select, not a checkbox: an unticked box sends nothing, which would mean "on".
      choices: [
        ['', 'Yes'],
        ['false', 'No'],
      ],
    },
    cli: {
      flag: 'no-print-background',
      help: 'leave background colours and images out of the PDF',
      example: '--no-print-background',
    },
  },
  {
    name: 'pageRanges',
    type: 'text',
    maxLength: 200,
    read: readPageRanges,
    example: '1-5, 8',
    gated: false,
    only: 'pdf',
    doc: 'The pages of the PDF to keep: page numbers and ranges from 1, comma-separated (1-5, 8, 11-13); 400 when none of them exists.',
    form: { group: 'pdf', label: 'Pages', placeholder: '1-5, 8' },
    cli: { arg: 'RANGES', help: 'PDF pages to keep', example: "--page-ranges '1-3'" },
  },
  {
    name: 'media',
    type: 'choice',
    values: ['screen', 'print'],
    none: { pdf: 'print', image: 'screen' },
    example: 'print',
    gated: false,
    doc: 'The CSS media type the page is shown with: screen (the default for images) or print (the default for a PDF).',
    form: {
      group: 'page',
      label: 'CSS media',
      choices: [
        ['', 'Format’s own'],
        ['screen', 'screen'],
        ['print', 'print'],
      ],
    },
    cli: { arg: 'screen|print', help: 'CSS media type', example: '--media print' },
  },
  {
    name: 'locale',
    type: 'text',
    maxLength: LOCALE_MAX_LENGTH,
    read: readLocale,
    example: 'de-DE',
    gated: false,
    doc: "The reader's language, a BCP 47 tag: the page gets it as Accept-Language and navigator.language, and Intl formats with it (default en-US).",
    form: {
      group: 'page',
      label: 'Locale',
      placeholder: 'de-DE',
      hint: 'Accept-Language, navigator.language and Intl.',
    },
    cli: { arg: 'TAG', help: 'BCP 47 locale (Accept-Language, Intl)', example: '--locale de-DE' },
  },
  {
    name: 'timezone',
    type: 'text',
    maxLength: 64,
    read: readTimezone,
    example: 'Europe/Berlin',
    gated: false,
    doc: "The page's time zone, an IANA name (default UTC); an unknown one is a 400 naming it.",
    form: { group: 'page', label: 'Time zone', placeholder: 'Europe/Berlin' },
    cli: { arg: 'IANA', help: 'time zone of the page', example: '--timezone Europe/Berlin' },
  },
  {
    name: 'reducedMotion',
    type: 'flag',
    gated: false,
    doc: 'Emulate prefers-reduced-motion: reduce (pages that honour it skip their animations).',
    form: { group: 'page', label: 'Reduced motion', hint: 'prefers-reduced-motion: reduce' },
    cli: { help: 'prefers-reduced-motion: reduce', example: '--reduced-motion' },
  },
  {
    name: 'css',
    type: 'text',
    maxLength: CSS_MAX_BYTES,
    read: readCss,
    example: '.chat-widget { display: none }',
    gated: false,
    doc: `A stylesheet (at most ${CSS_MAX_BYTES / 1024} KB) applied to the page before the capture, also on pages with a strict Content-Security-Policy; whatever it loads goes through the URL guard. @import is ignored. CSS only: no option runs script in the page.`,
    form: {
      group: 'page',
      label: 'Extra CSS',
      placeholder: '.chat-widget { display: none }',
      hint: 'Applied before the capture; at most 64 KB.',
      multiline: true,
    },
    cli: {
      arg: 'CSS',
      help: 'stylesheet applied before the capture (@file reads a file)',
      example: "--css 'body{font-size:20px}'",
    },
  },
  {
    name: 'clip',
    type: 'clip',
    example: '0,0,600,400',
    gated: false,
    only: 'image',
    doc: 'Only this area, x,y,width,height in CSS pixels: of the viewport, or with fullPage of the whole page; it must lie inside it (400 when not). Not with selector.',
    form: {
      group: 'capture',
      label: 'Clip',
      placeholder: '0,0,600,400',
      hint: 'x,y,width,height in CSS pixels.',
    },
    cli: { arg: 'X,Y,W,H', help: 'only this area (CSS pixels)', example: '--clip 0,0,600,400' },
  },
  {
    name: 'headers',
    type: 'credential',
    shape: 'headers',
    example: '{"Authorization": "Bearer …"}',
    gated: false,
    doc: `POST only: HTTP headers sent with the page's requests to its own origin only (at most ${HEADERS_MAX}, ${HEADERS_MAX_BYTES / 1024} KB in all). Host, Connection, Content-Length, Transfer-Encoding, Upgrade, TE, Trailer, Keep-Alive, Proxy-* and Cookie (use cookies) are refused.`,
    form: {
      group: 'credentials',
      label: 'Headers',
      placeholder: 'X-Token: abc',
      hint: 'One "Name: value" per line; sent to the page’s origin only, never stored.',
      multiline: true,
    },
    cli: {
      flag: 'header',
      arg: "'NAME: VALUE'",
      repeatable: true,
      help: "request header to the page's origin (repeatable)",
      example: "--header 'X-Token: abc'",
    },
  },
  {
    name: 'cookies',
    type: 'credential',
    shape: 'cookies',
    example: '[{"name": "session", "value": "…"}]',
    gated: false,
    doc: `POST only: cookies set for the page's host before it loads, [{name, value, path?, secure?, httpOnly?, sameSite?}] (at most ${COOKIES_MAX}, ${COOKIES_MAX_BYTES / 1024} KB in all).`,
    form: {
      group: 'credentials',
      label: 'Cookies',
      placeholder: 'session=abc',
      hint: 'One name=value per line; never stored.',
      multiline: true,
    },
    cli: {
      flag: 'cookie',
      arg: 'NAME=VALUE',
      repeatable: true,
      help: "cookie for the page's host (repeatable)",
      example: '--cookie session=abc',
    },
  },
  {
    name: 'basicAuth',
    type: 'credential',
    shape: 'basicAuth',
    example: '{"username": "ada", "password": "…"}',
    gated: false,
    doc: "POST only: HTTP Basic authentication {username, password}, sent to the page's own origin only.",
    form: {
      group: 'credentials',
      label: 'Basic auth',
      placeholder: 'user:password',
      hint: 'user:password; never stored.',
    },
    cli: {
      arg: 'USER:PASS',
      help: "HTTP Basic auth for the page's origin",
      example: '--basic-auth ada:secret',
    },
  },
  {
    name: 'userAgent',
    type: 'credential',
    shape: 'userAgent',
    example: 'Mozilla/5.0 (compatible; MyBot/1.0)',
    gated: false,
    doc: `POST only: the User-Agent the page sends and sees (at most ${USER_AGENT_MAX} characters).`,
    form: { group: 'credentials', label: 'User-Agent', placeholder: 'Mozilla/5.0 …' },
    cli: { arg: 'UA', help: 'User-Agent of the page', example: "--user-agent 'MyBot/1.0'" },
  },
  {
    name: 'response',
    type: 'choice',
    values: ['image', 'json'],
    none: 'image',
    example: 'json',
    gated: false,
    doc: 'json: answer {"image": {url, contentType, width, height, bytes, etag}, "page": {finalUrl, status, title, description, lang, canonical, themeColor, icons, openGraph, twitter}, "timings"} instead of the image; the url is signed and expires in an hour; the page facts are read from the rendered page.',
    form: {
      group: 'image',
      label: 'Answer',
      choices: [
        ['image', 'The image'],
        ['json', 'JSON: page facts and a signed image URL'],
      ],
    },
    cli: { arg: 'image|json', help: 'json: page facts and a signed image URL', example: '--response json' },
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
