import type { Site, SiteFields, SiteInput, SiteTheme } from '../../client/sites.js';
import { siteTag } from '../../client/sites.js';
import { parseDuration, table, UsageError } from '../admin.js';
import { printable } from '../printable.js';

/** The flags `sites create` and `sites update` share, as parseArgs gives them. */
export interface SiteFlags {
  origin?: string[] | undefined;
  template?: string | undefined;
  theme?: string | undefined;
  field?: string[] | undefined;
  'fallback-title'?: string | undefined;
  'fallback-subtitle'?: string | undefined;
  refresh?: string | undefined;
  browser?: boolean | undefined;
  fetch?: boolean | undefined;
  name?: string | undefined;
}

const FIELD_NAMES: ReadonlyArray<keyof SiteFields> = ['title', 'subtitle', 'brand', 'imageUrl'];

/**
 * The body of POST /sites (or PATCH, with `partial`) from the flags: only what was given, so the
 * server's defaults (and, on update, the site's current values) apply to the rest.
 */
export function siteInputOf(v: SiteFlags, partial: boolean): Partial<SiteInput> {
  if (v.browser && v.fetch) throw new UsageError('--browser and --fetch cannot go together');
  if (v['fallback-subtitle'] !== undefined && v['fallback-title'] === undefined) {
    throw new UsageError('--fallback-subtitle goes with --fallback-title');
  }
  const input: Partial<SiteInput> = {
    ...(v.origin?.length ? { origins: v.origin } : {}),
    ...(v.template !== undefined ? { template: v.template } : {}),
    ...(v.theme !== undefined ? { theme: themeOf(v.theme) } : {}),
    ...(v.field?.length ? { fields: fieldsOf(v.field) } : {}),
    ...(v['fallback-title'] !== undefined
      ? {
          fallback: {
            title: v['fallback-title'],
            ...(v['fallback-subtitle'] !== undefined ? { subtitle: v['fallback-subtitle'] } : {}),
          },
        }
      : {}),
    ...(v.refresh !== undefined ? { refreshSeconds: refreshOf(v.refresh) } : {}),
    ...(v.browser ? { render: 'browser' as const } : v.fetch ? { render: 'fetch' as const } : {}),
    ...(v.name !== undefined ? { name: v.name } : {}),
  };
  if (!partial && (!input.origins || input.template === undefined)) {
    throw new UsageError('sites create needs --origin URL and --template NAME');
  }
  if (partial && Object.keys(input).length === 0) {
    throw new UsageError('sites update needs something to change (--origin, --template, --theme, …)');
  }
  return input;
}

/**
 * `--field title=og:title|headline --field brand=` → `{ title: 'og:title|headline', brand: null }`
 * (nothing after `=`: the field is not drawn).
 */
function fieldsOf(list: readonly string[]): Partial<SiteFields> {
  const fields: Record<string, string | null> = {};
  for (const entry of list) {
    const eq = entry.indexOf('=');
    const name = entry.slice(0, eq) as keyof SiteFields;
    if (eq < 1 || !FIELD_NAMES.includes(name)) {
      throw new UsageError(
        `--field must be NAME=SOURCES with NAME one of ${FIELD_NAMES.join(', ')} (got "${printable(entry)}")`,
      );
    }
    const sources = entry.slice(eq + 1);
    if (sources === '' && name === 'title')
      throw new UsageError('--field title= needs a source: every card has a title');
    fields[name] = sources === '' ? null : sources;
  }
  return fields as Partial<SiteFields>;
}

function themeOf(text: string): SiteTheme {
  if (text !== 'account' && text !== 'none') {
    throw new UsageError(`--theme must be account (your brand theme) or none (the template's own look)`);
  }
  return text;
}

/** `--refresh 1d` → 86400 (whole seconds, at least one). */
function refreshOf(text: string): number {
  const seconds = parseDuration(text, '--refresh') / 1000;
  if (seconds < 1) throw new UsageError('--refresh must be at least 1s');
  return seconds;
}

/** 86400 → `1d`, 5400 → `90m`: the largest unit that divides it. */
export function durationText(seconds: number): string {
  const units: Array<[string, number]> = [
    ['w', 604_800],
    ['d', 86_400],
    ['h', 3600],
    ['m', 60],
  ];
  for (const [unit, size] of units)
    if (seconds % size === 0 && seconds >= size) return `${seconds / size}${unit}`;
  return `${seconds}s`;
}

/** `sites show` (and after create/update): the site in labelled lines, with its tag. */
export function siteText(site: Site): string {
  const fields = Object.entries(site.fields)
    .map(([k, v]) => `${k} ← ${v ?? '(not drawn)'}`)
    .join(', ');
  const rows: Array<[string, string]> = [
    ['Site', `${site.id}  ${site.name}`],
    ['Origins', site.origins.join(', ')],
    ['Template', `${site.template}, ${site.theme === 'none' ? 'its own look' : 'your theme'}`],
    ['Fields', fields],
    ['Fallback', `${site.fallback.title}${site.fallback.subtitle ? ` — ${site.fallback.subtitle}` : ''}`],
    ['Refresh', `every ${durationText(site.refreshSeconds)}`],
    ['Reads with', site.render === 'browser' ? 'a browser (scripts run)' : 'a plain fetch of the head'],
    ['Cards', `${site.ogUrl}<path>`],
    ['Created', site.createdAt],
  ];
  const lines = rows.map(([k, v]) => `${`${k}:`.padEnd(12)}${printable(v)}`);
  return `${lines.join('\n')}\n\nAdd to every page's <head> (the path is the page's own):\n  ${printable(siteTag(site, '/'))}`;
}

/** `sites list`: one row per site. */
export function sitesTable(sites: readonly Site[]): string {
  return table([
    ['ID', 'NAME', 'TEMPLATE', 'REFRESH', 'ORIGINS'],
    ...sites.map((s) => [
      s.id,
      printable(s.name),
      printable(s.template),
      durationText(s.refreshSeconds),
      printable(s.origins.join(' ')),
    ]),
  ]);
}
