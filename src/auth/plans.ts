import { readFileSync } from 'node:fs';
import { ConfigError } from '../config/load.js';
import { AppError } from '../errors.js';
import { TEMPLATE_NAMES } from '../render/template/request.js';

/** What an account may do: which templates, which screenshot viewports, how many requests. */
export interface Plan {
  name: string;
  /** Template names, or '*' for all. */
  templates: readonly string[] | '*';
  /** false: no screenshots; otherwise the viewports allowed ('*' for all, custom presets included). */
  screenshots: false | { viewports: readonly string[] | '*' };
  rateLimit: { requests: number; windowSeconds: number };
}

export type Plans = ReadonlyMap<string, Plan>;

/** The built-in plans; a plans file may replace them or add more. */
export const DEFAULT_PLANS: readonly Plan[] = [
  {
    name: 'free',
    templates: ['blog'],
    screenshots: { viewports: ['og'] },
    rateLimit: { requests: 60, windowSeconds: 60 },
  },
  {
    name: 'pro',
    templates: '*',
    screenshots: { viewports: '*' },
    rateLimit: { requests: 600, windowSeconds: 60 },
  },
];

const PLAN_NAME = /^[a-z][a-z0-9_-]{0,39}$/;
const MAX_REQUESTS = 1_000_000;
const MAX_WINDOW = 86_400;

/** The built-in plans, with the plans of `file` (when given) merged over them by name. */
export function loadPlans(file = ''): Plans {
  const plans = new Map(DEFAULT_PLANS.map((p) => [p.name, p]));
  if (file === '') return plans;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError(`CARDSHOT_PLANS_FILE: cannot read ${file}: ${(err as Error).message}`);
  }
  for (const plan of parsePlansJson(parsed, file)) plans.set(plan.name, plan);
  return plans;
}

/** Validates a plans document (`{ "<name>": { templates, screenshots, rateLimit } }`). */
export function parsePlansJson(doc: unknown, where = 'plans file'): Plan[] {
  if (!isObject(doc)) throw new ConfigError(`${where} must hold a JSON object of plans by name`);
  return Object.entries(doc).map(([name, raw]) => parsePlan(name, raw, where));
}

function parsePlan(name: string, raw: unknown, where: string): Plan {
  const at = `${where}: plan "${name}"`;
  if (!PLAN_NAME.test(name)) {
    throw new ConfigError(`${at}: names are lower-case letters, digits, - and _ (at most 40)`);
  }
  if (!isObject(raw)) throw new ConfigError(`${at} must be an object`);
  for (const k of Object.keys(raw)) {
    if (!['templates', 'screenshots', 'rateLimit'].includes(k)) {
      throw new ConfigError(`${at}: unknown field "${k}" (allowed: templates, screenshots, rateLimit)`);
    }
  }
  const templates = raw.templates;
  if (templates !== '*') {
    if (!Array.isArray(templates) || templates.some((t) => typeof t !== 'string')) {
      throw new ConfigError(`${at}: templates must be "*" or a list of template names`);
    }
    const unknown = templates.find((t) => !(TEMPLATE_NAMES as readonly string[]).includes(t));
    if (unknown !== undefined) {
      throw new ConfigError(`${at}: unknown template "${unknown}" (known: ${TEMPLATE_NAMES.join(', ')})`);
    }
  }
  const shots = raw.screenshots;
  let screenshots: Plan['screenshots'];
  if (shots === false) screenshots = false;
  else if (isObject(shots) && (shots.viewports === '*' || isStringList(shots.viewports))) {
    screenshots = { viewports: shots.viewports as readonly string[] | '*' };
  } else {
    throw new ConfigError(`${at}: screenshots must be false or { "viewports": "*" | ["og", …] }`);
  }
  const rl = raw.rateLimit;
  if (
    !isObject(rl) ||
    !isIntIn(rl.requests, 1, MAX_REQUESTS) ||
    !isIntIn(rl.windowSeconds, 1, MAX_WINDOW) ||
    Object.keys(rl).some((k) => k !== 'requests' && k !== 'windowSeconds')
  ) {
    throw new ConfigError(
      `${at}: rateLimit must be { "requests": 1…${MAX_REQUESTS}, "windowSeconds": 1…${MAX_WINDOW} }`,
    );
  }
  return {
    name,
    templates: templates as readonly string[] | '*',
    screenshots,
    rateLimit: { requests: rl.requests as number, windowSeconds: rl.windowSeconds as number },
  };
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
 * 403 unless `plan` may take screenshots with `viewport`. The messages name what the plan
 * allows, so a caller can fix the request without reading the docs.
 */
export function assertScreenshotAllowed(plan: Plan, viewport: string): void {
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
