/**
 * The areas a process can start, in start order, and what each needs started before it. The
 * server starts them all; a process that needs fewer (a one-card CLI run, a job worker, an
 * API-only node) names the areas it uses and gets those plus what they need, nothing else.
 */
import type { ModuleSet } from './modules.js';

/** Every area, in start order (each needs only areas before it). */
export const AREA_NAMES = [
  'template files',
  'accounts',
  'redis',
  'auth',
  'sessions',
  'usage',
  'rate limiter',
  'cache',
  'artwork',
  'themes',
  'templates',
  'screenshots',
  'render',
  'sites',
  'queue',
  'webhooks',
  'delivery',
  'jobs',
] as const;

export type AreaName = (typeof AREA_NAMES)[number];

/**
 * What each area needs started before it. Used only when present: `redis` by the cache (a
 * shared tier and flight; a CLI run keeps its cache to itself) and `themes` by the templates
 * (without it no card is themed). Auth and the rate limiter need Redis outright: without it
 * a node with REDIS_URL would quietly keep limits and revocations to itself.
 */
export const AREA_NEEDS = {
  'template files': [],
  accounts: ['template files'],
  redis: [],
  auth: ['accounts', 'redis'],
  sessions: ['accounts'],
  usage: ['accounts'],
  'rate limiter': ['redis'],
  cache: [],
  artwork: [],
  themes: ['accounts', 'artwork'],
  templates: ['template files', 'artwork', 'cache'],
  screenshots: ['cache'],
  render: ['templates', 'screenshots', 'rate limiter', 'usage'],
  queue: [],
  webhooks: ['accounts', 'queue'],
  delivery: ['accounts'],
  jobs: ['accounts', 'render', 'queue', 'webhooks', 'delivery'],
  sites: ['accounts', 'render', 'cache'],
} as const satisfies Record<AreaName, readonly AreaName[]>;

type Needs<A extends AreaName> = (typeof AREA_NEEDS)[A][number];

/** `A` and every area it needs, transitively (the chains are at most four long). */
export type WithNeeds<A extends AreaName> =
  | A
  | Needs<A>
  | Needs<Needs<A>>
  | Needs<Needs<Needs<A>>>
  | Needs<Needs<Needs<Needs<A>>>>;

/** The areas to start for `asked`: each with what it needs, in start order. */
export function resolveAreas(asked: readonly AreaName[]): AreaName[] {
  const wanted = new Set<AreaName>();
  const add = (area: AreaName) => {
    if (!(AREA_NAMES as readonly string[]).includes(area)) {
      throw new Error(`unknown area "${area}"; the areas are: ${AREA_NAMES.join(', ')}`);
    }
    if (wanted.has(area)) return;
    wanted.add(area);
    for (const need of AREA_NEEDS[area]) add(need);
  };
  for (const area of asked) add(area);
  return AREA_NAMES.filter((a) => wanted.has(a));
}

/** The area each module comes from (null: every process has it). */
const MODULE_AREAS: Readonly<Record<keyof ModuleSet, AreaName | null>> = {
  metrics: null,
  health: null,
  areas: null,
  scale: null,
  close: null,
  registry: 'template files',
  accounts: 'accounts',
  authenticator: 'auth',
  sessions: 'sessions',
  usage: 'usage',
  limiter: 'rate limiter',
  cache: 'cache',
  artwork: 'artwork',
  themes: 'themes',
  renderer: 'templates',
  renderQueue: 'templates',
  templates: 'templates',
  screenshots: 'screenshots',
  render: 'render',
  queue: 'queue',
  webhooks: 'webhooks',
  delivery: 'delivery',
  jobs: 'jobs',
  sites: 'sites',
};

/**
 * Throws, naming the module and its area, unless `deps` holds each of `names`: for a consumer
 * built from spread modules (which leaves out the ones not started), so a process that forgot
 * an area stops at its start instead of meeting an undefined on its first request.
 */
export function requireModules(deps: object, names: ReadonlyArray<keyof ModuleSet>, who: string): void {
  for (const name of names) {
    if ((deps as Record<string, unknown>)[name] !== undefined) continue;
    const area = MODULE_AREAS[name];
    throw new Error(
      `${who} needs modules.${name}${area ? ` (the ${area} area)` : ''}, which this process did not start`,
    );
  }
}
