import { editDistance } from '../lib/edit-distance.js';
import { envNameOf, type SettingsGroup } from './setting.js';

/**
 * CARDSHOT_* names that are not settings but are still Cardshot's: the config file's path (read
 * by load.ts), the two the README has users export for curl and the client, and the test and
 * docs tooling's own. Warning about them would teach people to ignore the warning.
 */
const NOT_SETTINGS = [
  'CARDSHOT_CONFIG',
  'CARDSHOT_KEY',
  'CARDSHOT_SIGNING_SECRET',
  'CARDSHOT_TEST_PHASE',
  'CARDSHOT_TEST_OUTBOX_HOLD',
  'CARDSHOT_SCREENS_DIR',
];

/** A CARDSHOT_* variable that sets nothing, and the name it was probably meant to be. */
export interface UnknownVariable {
  name: string;
  suggestion: string | undefined;
}

/**
 * The CARDSHOT_* variables in `env` that no setting of `schema` reads. A config file refuses an
 * unknown key, but the environment is shared with other programs that may use the same prefix,
 * so these are reported (logged at start, listed by doctor) rather than refused.
 */
export function findUnknownVariables(
  schema: SettingsGroup,
  env: Record<string, string | undefined> = process.env,
): UnknownVariable[] {
  const names = Object.entries(schema).map(([key, setting]) => envNameOf(key, setting));
  const known = new Set([...names, ...NOT_SETTINGS]);
  const meant = [...names, 'CARDSHOT_CONFIG'];
  return Object.keys(env)
    .filter((name) => name.startsWith('CARDSHOT_') && !known.has(name))
    .sort()
    .map((name) => ({ name, suggestion: closest(name, meant) }));
}

/** One line naming every unknown variable, with its likely meaning; '' when there are none. */
export function describeUnknownVariables(unknown: readonly UnknownVariable[]): string {
  if (unknown.length === 0) return '';
  const items = unknown.map((u) => (u.suggestion ? `${u.name} (did you mean ${u.suggestion}?)` : u.name));
  const what = unknown.length === 1 ? 'variable' : 'variables';
  return `ignoring unknown environment ${what} ${items.join(', ')}`;
}

/**
 * The setting name nearest to `name`, if it is near enough to be a typo. Compared without the
 * prefix, so CARDSHOT_PORT suggests PORT (the conventional names have none); the allowance
 * grows with length, as a long name has room for more slips.
 */
function closest(name: string, candidates: readonly string[]): string | undefined {
  const bare = name.slice('CARDSHOT_'.length);
  let best: { name: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(bare, candidate.replace(/^CARDSHOT_/, ''));
    if (!best || distance < best.distance) best = { name: candidate, distance };
  }
  const allowed = bare.length <= 4 ? 1 : bare.length <= 10 ? 2 : 3;
  return best && best.distance <= allowed ? best.name : undefined;
}

/**
 * The setting key a config file's unknown `key` was probably meant to be: compared without case,
 * separators or the CARDSHOT_ prefix, against each key and its environment name, so `datadir`,
 * `data_dir` and `CARDSHOT_DATA_DIR` all suggest `dataDir`, and `cachTtl` suggests `cacheTtl`.
 */
export function suggestSettingKey(schema: SettingsGroup, key: string): string | undefined {
  const bare = normal(key);
  let best: { key: string; distance: number } | undefined;
  for (const [candidate, setting] of Object.entries(schema)) {
    for (const form of [candidate, envNameOf(candidate, setting)]) {
      const distance = editDistance(bare, normal(form));
      if (!best || distance < best.distance) best = { key: candidate, distance };
    }
  }
  const allowed = bare.length <= 4 ? 1 : bare.length <= 10 ? 2 : 3;
  return best && best.distance <= allowed ? best.key : undefined;
}

function normal(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '')
    .replace(/^cardshot/, '');
}
