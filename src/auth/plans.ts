import { readFileSync } from 'node:fs';
import { ConfigError } from '../config/load.js';
import { AppError } from '../errors.js';
import { FREE_OPTIONS, OPTION_NAMES, type OptionName } from '../render/screenshot/option-names.js';
import { DEFAULT_JOBS, type JobsAllowance, parseJobsAllowance } from './plan-jobs.js';

/** What an account may do: which templates, which screenshot viewports, how many requests. */
export interface Plan {
  name: string;
  /** Template names, or '*' for all. */
  templates: readonly string[] | '*';
  /**
   * false: no screenshots; otherwise the viewports allowed ('*' for all, custom presets
   * included), the account's captures in flight at once (`concurrency`) and how many more may
   * wait for a slot (`queue`); past both the request gets 429.
   */
  screenshots: false | ScreenshotAllowance;
  rateLimit: RateBudget;
  /**
   * The budget of requests made with the plan's signed URLs, counted per key apart from
   * `rateLimit`: whoever fetches a published og:image URL (crawlers, scrapers) spends this, never
   * the owner's API budget (issue 26 §3). A plans file that leaves it out gets `rateLimit`'s numbers.
   */
  signedRateLimit: RateBudget;
  /** Jobs (POST /jobs): items per job, the account's running and waiting items, retention. */
  jobs: JobsAllowance;
}

/** Requests admitted in a sliding window of `windowSeconds`. */
export interface RateBudget {
  requests: number;
  windowSeconds: number;
}

/** What a plan allows of screenshots. */
export interface ScreenshotAllowance {
  viewports: readonly string[] | '*';
  concurrency: number;
  queue: number;
  /** The screenshot options its requests may turn on ('*' for all). */
  options: readonly OptionName[] | '*';
  /**
   * Output pixels one capture may hold: a number, or `viewport` (the viewport's own pixels at the
   * request's scale, so `selector=html` gives no more than a plain capture). A selector or a full
   * page beyond it is cut short (X-Full-Page-Truncated). Issue 26 §2: a free key's
   * `selector=html&scale=3` on a tall page made a 120 MB PNG of 3600×11109.
   */
  maxPixels: number | 'viewport';
}

export type Plans = ReadonlyMap<string, Plan>;

/** The most output pixels any plan may allow one capture (the engine's own bound, viewports.ts). */
export const MAX_PLAN_PIXELS = 40_000_000;

/** A plans-file plan that leaves them out gets one capture at a time and two waiting. */
export const DEFAULT_SCREENSHOT_CONCURRENCY = 1;
const MAX_SCREENSHOT_CONCURRENCY = 64;
const MAX_SCREENSHOT_QUEUE = 10_000;

/** The built-in plans; a plans file may replace them or add more. */
export const DEFAULT_PLANS: readonly Plan[] = [
  {
    name: 'free',
    templates: ['blog'],
    screenshots: {
      viewports: ['og'],
      concurrency: 1,
      queue: 2,
      options: FREE_OPTIONS,
      maxPixels: 'viewport',
    },
    rateLimit: { requests: 60, windowSeconds: 60 },
    signedRateLimit: { requests: 60, windowSeconds: 60 },
    jobs: DEFAULT_JOBS.free,
  },
  {
    name: 'pro',
    templates: '*',
    screenshots: { viewports: '*', concurrency: 4, queue: 8, options: '*', maxPixels: MAX_PLAN_PIXELS },
    rateLimit: { requests: 600, windowSeconds: 60 },
    signedRateLimit: { requests: 600, windowSeconds: 60 },
    jobs: DEFAULT_JOBS.pro,
  },
];

const PLAN_NAME = /^[a-z][a-z0-9_-]{0,39}$/;
const MAX_REQUESTS = 1_000_000;
const MAX_WINDOW = 86_400;

/**
 * The built-in plans, with the plans of `file` (when given) merged over them by name. A plan may
 * name only `templates` (the registry's names, given by the composition root: plans know no
 * template of their own).
 */
export function loadPlans(templates: readonly string[], file = ''): Plans {
  const plans = new Map(DEFAULT_PLANS.map((p) => [p.name, p]));
  if (file === '') return plans;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError(`CARDSHOT_PLANS_FILE: cannot read ${file}: ${(err as Error).message}`);
  }
  for (const plan of parsePlansJson(parsed, templates, file)) plans.set(plan.name, plan);
  return plans;
}

/** Validates a plans document (`{ "<name>": { templates, screenshots, rateLimit, signedRateLimit?, jobs? } }`). */
export function parsePlansJson(doc: unknown, templates: readonly string[], where = 'plans file'): Plan[] {
  if (!isObject(doc)) throw new ConfigError(`${where} must hold a JSON object of plans by name`);
  return Object.entries(doc).map(([name, raw]) => parsePlan(name, raw, templates, where));
}

function parsePlan(name: string, raw: unknown, known: readonly string[], where: string): Plan {
  const at = `${where}: plan "${name}"`;
  if (!PLAN_NAME.test(name)) {
    throw new ConfigError(`${at}: names are lower-case letters, digits, - and _ (at most 40)`);
  }
  if (!isObject(raw)) throw new ConfigError(`${at} must be an object`);
  for (const k of Object.keys(raw)) {
    if (!['templates', 'screenshots', 'rateLimit', 'signedRateLimit', 'jobs'].includes(k)) {
      throw new ConfigError(
        `${at}: unknown field "${k}" (allowed: templates, screenshots, rateLimit, signedRateLimit, jobs)`,
      );
    }
  }
  const templates = raw.templates;
  if (templates !== '*') {
    if (!Array.isArray(templates) || templates.some((t) => typeof t !== 'string')) {
      throw new ConfigError(`${at}: templates must be "*" or a list of template names`);
    }
    const unknown = templates.find((t) => !known.includes(t));
    if (unknown !== undefined) {
      throw new ConfigError(`${at}: unknown template "${unknown}" (known: ${known.join(', ')})`);
    }
  }
  // A plan that does not say how many captures it may run inherits the built-in plan of its
  // name, or pro's: a plans file written before these settings existed keeps a useful share
  // instead of dropping every account to one capture at a time.
  const base = DEFAULT_PLANS.find((p) => p.name === name) ?? DEFAULT_PLANS[1]!;
  const screenshots = parseScreenshots(raw.screenshots, at, base.screenshots || undefined);
  const jobs = parseJobsAllowance(raw.jobs, at, base.jobs);
  const rateLimit = parseBudget(raw.rateLimit, `${at}: rateLimit`);
  const signedRateLimit =
    raw.signedRateLimit === undefined
      ? rateLimit
      : parseBudget(raw.signedRateLimit, `${at}: signedRateLimit`);
  return {
    name,
    templates: templates as readonly string[] | '*',
    screenshots,
    rateLimit,
    signedRateLimit,
    jobs,
  };
}

/** `{ "requests": …, "windowSeconds": … }`, both whole numbers in range. */
function parseBudget(rl: unknown, at: string): RateBudget {
  if (
    !isObject(rl) ||
    !isIntIn(rl.requests, 1, MAX_REQUESTS) ||
    !isIntIn(rl.windowSeconds, 1, MAX_WINDOW) ||
    Object.keys(rl).some((k) => k !== 'requests' && k !== 'windowSeconds')
  ) {
    throw new ConfigError(
      `${at} must be { "requests": 1…${MAX_REQUESTS}, "windowSeconds": 1…${MAX_WINDOW} }`,
    );
  }
  return { requests: rl.requests as number, windowSeconds: rl.windowSeconds as number };
}

/** The spec's message, word for word (spec §7). */
export const TEMPLATE_FORBIDDEN = 'Template not available on your plan';
export const SCREENSHOTS_FORBIDDEN = 'Screenshots are not available on your plan';

/** 403 unless `plan` includes `template`. */
export function assertTemplateAllowed(plan: Plan, template: string): void {
  if (plan.templates !== '*' && !plan.templates.includes(template)) {
    throw new AppError('forbidden', TEMPLATE_FORBIDDEN, {
      detail: `plan ${plan.name}, template ${template}`,
    });
  }
}

/**
 * 403 unless `plan` may take screenshots with `viewport` and every option in `options` (those
 * the request turns on). The messages name what the plan allows, or the option it does not, so
 * a caller can fix the request without reading the docs.
 */
export function assertScreenshotAllowed(
  plan: Plan,
  viewport: string,
  options: readonly OptionName[] = [],
): void {
  if (plan.screenshots === false) {
    throw new AppError('forbidden', SCREENSHOTS_FORBIDDEN, { detail: `plan ${plan.name}` });
  }
  const allowed = plan.screenshots.viewports;
  if (allowed !== '*' && !allowed.includes(viewport)) {
    throw new AppError(
      'forbidden',
      `Viewport "${viewport.slice(0, 40)}" is not available on your plan; use ${allowed.join(' or ')}`,
      { detail: `plan ${plan.name}` },
    );
  }
  const permitted = plan.screenshots.options;
  const refused = permitted === '*' ? undefined : options.find((o) => !permitted.includes(o));
  if (refused !== undefined) {
    throw new AppError('forbidden', `Option "${refused}" not available on your plan`, {
      detail: `plan ${plan.name}`,
    });
  }
}

/**
 * `false`, or `{ viewports, concurrency?, queue? }`: without concurrency, the inherited plan's
 * share (`from`); a queue given without it, or a concurrency given alone, is twice the
 * concurrency.
 */
function parseScreenshots(
  shots: unknown,
  at: string,
  from?: { concurrency: number; queue: number; maxPixels: number | 'viewport' },
): Plan['screenshots'] {
  if (shots === false) return false;
  const shape = `screenshots must be false or { "viewports": "*" | ["og", …], "concurrency": 1…${MAX_SCREENSHOT_CONCURRENCY}, "queue": 0…${MAX_SCREENSHOT_QUEUE}, "options": "*" | ["fullPage", …], "maxPixels": "viewport" | 1…${MAX_PLAN_PIXELS} }`;
  if (!isObject(shots) || !(shots.viewports === '*' || isStringList(shots.viewports))) {
    throw new ConfigError(`${at}: ${shape}`);
  }
  const unknown = Object.keys(shots).find(
    (k) => !['viewports', 'concurrency', 'queue', 'options', 'maxPixels'].includes(k),
  );
  if (unknown !== undefined) {
    throw new ConfigError(
      `${at}: screenshots has an unknown field "${unknown}" (allowed: viewports, concurrency, queue, options, maxPixels)`,
    );
  }
  const maxPixels = shots.maxPixels ?? from?.maxPixels ?? MAX_PLAN_PIXELS;
  if (maxPixels !== 'viewport' && !isIntIn(maxPixels, 1, MAX_PLAN_PIXELS)) {
    throw new ConfigError(
      `${at}: screenshots.maxPixels must be "viewport" or an integer 1…${MAX_PLAN_PIXELS}`,
    );
  }
  const concurrency = shots.concurrency ?? from?.concurrency ?? DEFAULT_SCREENSHOT_CONCURRENCY;
  if (!isIntIn(concurrency, 1, MAX_SCREENSHOT_CONCURRENCY)) {
    throw new ConfigError(
      `${at}: screenshots.concurrency must be an integer 1…${MAX_SCREENSHOT_CONCURRENCY}`,
    );
  }
  const queue =
    shots.queue ?? (shots.concurrency === undefined && from ? from.queue : 2 * (concurrency as number));
  if (!isIntIn(queue, 0, MAX_SCREENSHOT_QUEUE)) {
    throw new ConfigError(`${at}: screenshots.queue must be an integer 0…${MAX_SCREENSHOT_QUEUE}`);
  }
  return {
    viewports: shots.viewports as readonly string[] | '*',
    concurrency: concurrency as number,
    queue: queue as number,
    options: parseOptions(shots.options, at),
    maxPixels: maxPixels as number | 'viewport',
  };
}

/**
 * `screenshots.options`: "*" or a list of option names. Left out, the free plan's set: a plans
 * file written before the options existed does not hand the costly ones (fullPage, blockAds,
 * blockCookieBanners, fresh) to every plan it names.
 */
function parseOptions(options: unknown, at: string): readonly OptionName[] | '*' {
  if (options === undefined) return FREE_OPTIONS;
  if (options === '*') return '*';
  if (!Array.isArray(options) || options.some((o) => typeof o !== 'string')) {
    throw new ConfigError(
      `${at}: screenshots.options must be "*" or a list of option names (${OPTION_NAMES.join(', ')})`,
    );
  }
  const unknown = options.find((o) => !(OPTION_NAMES as readonly string[]).includes(o));
  if (unknown !== undefined) {
    throw new ConfigError(
      `${at}: screenshots.options has an unknown option "${String(unknown).slice(0, 40)}" (known: ${OPTION_NAMES.join(', ')})`,
    );
  }
  return [...new Set(options as OptionName[])];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
function isStringList(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'string' && x !== '');
}
function isIntIn(v: unknown, min: number, max: number): boolean {
  return typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;
}
