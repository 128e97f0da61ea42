import os from 'node:os';
import { type ConfigOf, MiB, type SettingsGroup } from '../../config/setting.js';
import { presetProblem } from './viewports.js';

/** The browser, its limits, the capture queue and the screenshot cache. */
export const screenshotSettings = {
  chromiumPath: {
    kind: 'string',
    // Debian's chromium-headless-shell, the binary itself: Chromium's build for automation (what
    // Playwright runs headless by default), measured here against the full browser: captures
    // about twice as fast, less than half the memory. Debian's /usr/bin/chromium-headless-shell
    // script is skipped because it runs the browser as a child of `sh` instead of exec'ing it.
    default: '/usr/lib/chromium/chromium-headless-shell',
    description:
      "Chromium executable for GET /render/url. `npm start` installs Debian's chromium-headless-shell when this default is missing; if it still is, Debian's full browser (`/usr/bin/chromium`) is used when present, about half as fast. If no browser can be started, screenshots answer 503 and templates keep working.",
  },
  chromiumSandbox: {
    kind: 'enum',
    default: 'auto',
    values: ['auto', 'on', 'off'],
    description:
      "Chromium's own sandbox for the pages it renders. auto: on (as root, Chromium runs as CARDSHOT_CHROMIUM_USER), and off with a loud warning in the log, /readyz and `cardshot doctor` where the kernel does not allow it or, as root, that user does not exist. on: a browser without it is not started (screenshots answer 503). off: never.",
  },
  chromiumUser: {
    kind: 'string',
    default: 'cardshot-chromium',
    check: (v) =>
      /^[a-z_][a-z0-9_-]{0,31}$/.test(v) ? undefined : 'must be a user name (a-z, 0-9, _ and -)',
    description:
      'The unprivileged system user Chromium runs as when the service runs as root (Chromium refuses its sandbox as root). `npm start` as root creates it (a system user with no login; its home, /var/lib/cardshot-chromium for the default, holds fontconfig caches). Not used when the service itself runs as another user.',
  },
  screenshotConcurrency: {
    kind: 'int',
    default: Math.max(1, os.availableParallelism()),
    defaultDoc: 'number of cores',
    min: 1,
    max: 64,
    description:
      'Screenshots captured at once, each in its own browser context (default: the number of cores).',
  },
  screenshotQueueSize: {
    kind: 'int',
    default: 32,
    min: 0,
    max: 10_000,
    description: 'Screenshots that may wait for a slot; past it requests get 503 with Retry-After.',
  },
  screenshotTimeoutMs: {
    kind: 'int',
    default: 15_000,
    min: 500,
    max: 120_000,
    description:
      'Total time for one screenshot request (waiting for a slot, loading the page to waitUntil, capturing); past it 504.',
  },
  screenshotCacheTtlSeconds: {
    kind: 'int',
    default: 86_400,
    min: 0,
    max: 31_536_000,
    description:
      'How long a screenshot is served from the cache and may be cached downstream (max-age, s-maxage); 0 turns caching off.',
  },
  screenshotCacheShared: {
    kind: 'bool',
    default: false,
    description:
      'Share cached screenshots between accounts (single-tenant installs: one capture of a URL serves every key). Off by default: each account has its own cache, so no key holder learns from X-Cache, Age or a 304 whether another account captured a URL, at the cost of one capture per account.',
  },
  screenshotErrorTtlSeconds: {
    kind: 'int',
    default: 60,
    min: 0,
    max: 86_400,
    description:
      'Cache lifetime of a screenshot whose page answered other than 2xx: 4xx or 5xx, or a 3xx without a Location (it is rendered, not refused).',
  },
  screenshotMaxPageBytes: {
    kind: 'int',
    default: 64 * MiB,
    min: 1 * MiB,
    max: 4096 * MiB,
    description:
      'Bytes one screenshotted page may download and upload in all (every request and WebSocket it makes). Past it its connections are cut and it is captured as it stands.',
  },
  screenshotMaxPageMemoryBytes: {
    kind: 'int',
    default: 1024 * MiB,
    min: 0,
    max: 65536 * MiB,
    description:
      "Memory (resident) one screenshotted page's renderer process may use. Past it the renderer is ended and the request gets 502 (the page crashed its browser tab). The JavaScript heap alone is capped lower (512 MiB); this bounds what lies outside it: array buffers, canvases, images. 0 turns the check off.",
  },
  screenshotMaxBrowserMemoryBytes: {
    kind: 'int',
    default: 1024 * MiB,
    min: 0,
    max: 65536 * MiB,
    description:
      "Memory (resident) each of the browser's own processes (browser, GPU, utility) may use while screenshots run. A page's Blobs are kept in the browser process, outside its tab's limit: past this the pages in flight are ended (502, as for a crashed tab), and a browser that does not give the memory back within 3 s is replaced. 0 turns the check off.",
  },
  screenshotBusyPageCpuPercent: {
    kind: 'int',
    default: 50,
    min: 0,
    max: 10_000,
    description:
      "CPU (percent of one core, all its threads) a screenshotted page's renderer may keep using once it has used a second of CPU. Past it the page runs at a low priority (nice 10) for the rest of its capture: it still uses idle cores, but other accounts' pages and the server go first. 0 turns the check off.",
  },
  screenshotViewports: {
    kind: 'list',
    default: [],
    check: presetProblem,
    description:
      'Custom viewport presets besides og, desktop and mobile, as name=WIDTHxHEIGHT[@SCALE][:mobile], for example square=1080x1080,retina=1440x900@2.',
  },
  screenshotSpareContexts: {
    kind: 'int',
    default: 2,
    min: 0,
    max: 16,
    description:
      'Fresh browser contexts created ahead of demand (each used once, then closed), so a request skips the ~200 ms set-up.',
  },
  browserRecycleAfter: {
    kind: 'int',
    default: 500,
    min: 1,
    max: 1_000_000,
    description: 'Screenshots after which the browser is replaced by a fresh one (bounds slow leaks).',
  },
  // The screenshot options (issue 17).
  screenshotMaxFullPageHeight: {
    kind: 'int',
    default: 16_384,
    min: 1000,
    max: 65_535,
    description:
      'Tallest full-page (fullPage=true) or element (selector=…) screenshot, in output pixels (CSS pixels × scale); a taller page is cut there and the answer says so with X-Full-Page-Truncated: true. WebP stops at 16,383 and AVIF at 16,384 whatever this says, and no screenshot has more than 40 megapixels.',
  },
  pdfMaxPages: {
    kind: 'int',
    default: 100,
    min: 1,
    max: 10_000,
    description:
      'Most pages a format=pdf answer holds; a longer page gives its first pages and X-Pdf-Truncated: true.',
  },
} as const satisfies SettingsGroup;

/** What the screenshot area reads of its own settings. */
export type ScreenshotConfig = ConfigOf<typeof screenshotSettings>;
