import { readFileSync } from 'node:fs';
import { type ConfigOf, envNameOf, type Setting, type SettingsGroup } from './setting.js';
import { suggestSettingKey } from './unknown-env.js';

/** A configuration value that does not fit its setting; stops the start with a clear message. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

type Source = Record<string, string | undefined>;

/** Where a setting's effective value came from. */
export type ConfigSource = 'default' | 'file' | 'env' | 'override';

/** Values to set above every other source, by setting key (tests, the CLI). */
export type Overrides<S extends SettingsGroup> = Partial<Record<keyof S, unknown>>;

/** The effective configuration with the origin of every value (for `npx cardshot config`). */
export interface ExplainedConfig<S extends SettingsGroup> {
  config: ConfigOf<S>;
  sources: Readonly<Record<keyof S, ConfigSource>>;
  /** The config file that was read, or null when there was none. */
  file: string | null;
}

/**
 * Builds the frozen configuration of `schema`: defaults < config file (CARDSHOT_CONFIG or
 * ./cardshot.config.json when present) < environment < explicit overrides (tests, CLI).
 * This is the only place that reads `process.env`.
 */
export function loadSettings<S extends SettingsGroup>(
  schema: S,
  overrides: Overrides<S> = {},
  env: Source = process.env,
): ConfigOf<S> {
  return explainSettings(schema, overrides, env).config;
}

/** Like `loadSettings`, and says where each value came from. */
export function explainSettings<S extends SettingsGroup>(
  schema: S,
  overrides: Overrides<S> = {},
  env: Source = process.env,
): ExplainedConfig<S> {
  const { values: file, path: filePath } = readConfigFile(schema, env.CARDSHOT_CONFIG);
  const out: Record<string, unknown> = {};
  const sources: Record<string, ConfigSource> = {};
  const given: Partial<Record<string, unknown>> = overrides;
  for (const [key, setting] of Object.entries(schema)) {
    const name = envNameOf(key, setting);
    let value: unknown = setting.default;
    let source: ConfigSource = 'default';
    if (file[key] !== undefined) {
      value = parseValue(setting, file[key], `${key} in the config file`);
      source = 'file';
    }
    if (env[name] !== undefined && env[name] !== '') {
      value = parseValue(setting, env[name], name);
      source = 'env';
    }
    if (given[key] !== undefined) {
      value = parseValue(setting, given[key], key);
      source = 'override';
    }
    out[key] = value;
    sources[key] = source;
  }
  // Every key of the schema was parsed by its own setting above, which is what ConfigOf<S> says.
  return {
    config: Object.freeze(out) as ConfigOf<S>,
    sources: Object.freeze(sources) as Record<keyof S, ConfigSource>,
    file: filePath,
  };
}

function readConfigFile(
  schema: SettingsGroup,
  explicit: string | undefined,
): {
  values: Record<string, unknown>;
  path: string | null;
} {
  const path = explicit ?? 'cardshot.config.json';
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if (explicit === undefined && (err as NodeJS.ErrnoException).code === 'ENOENT') {
      return { values: {}, path: null };
    }
    throw new ConfigError(`CARDSHOT_CONFIG: cannot read ${path}: ${(err as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`${path} is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(`${path} must hold a JSON object`);
  }
  for (const key of Object.keys(parsed)) {
    if (!Object.hasOwn(schema, key)) {
      const meant = suggestSettingKey(schema, key);
      throw new ConfigError(`${path}: unknown setting "${key}"${meant ? ` (did you mean "${meant}"?)` : ''}`);
    }
  }
  return { values: parsed as Record<string, unknown>, path };
}

function parseValue(s: Setting, raw: unknown, where: string): unknown {
  switch (s.kind) {
    case 'int': {
      const n = typeof raw === 'number' ? raw : Number(String(raw).trim().replace(/_/g, ''));
      if (!Number.isInteger(n) || n < s.min || n > s.max) {
        throw new ConfigError(
          `${where} must be a whole number from ${s.min} to ${s.max} (got "${String(raw)}")`,
        );
      }
      return n;
    }
    case 'bool': {
      if (typeof raw === 'boolean') return raw;
      const v = String(raw).trim().toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(v)) return true;
      if (['0', 'false', 'no', 'off'].includes(v)) return false;
      throw new ConfigError(`${where} must be true or false (got "${String(raw)}")`);
    }
    case 'list': {
      const items = Array.isArray(raw) ? raw.map(String) : String(raw).split(',');
      const list = Object.freeze(items.map((x) => x.trim()).filter((x) => x !== ''));
      const problem = s.check?.(list);
      if (problem) throw new ConfigError(`${where}: ${problem}`);
      return list;
    }
    case 'enum': {
      const v = String(raw).trim();
      if (!s.values.includes(v))
        throw new ConfigError(`${where} must be one of ${s.values.join(', ')} (got "${v}")`);
      return v;
    }
    default: {
      const v = String(raw);
      const problem = s.check?.(v);
      if (problem) throw new ConfigError(`${where} ${problem}`);
      return v;
    }
  }
}
