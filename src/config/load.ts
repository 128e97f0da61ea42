import { readFileSync } from 'node:fs';
import { type Config, envName, type Setting, type SettingKey, settings } from './schema.js';

/** A configuration value that does not fit its setting; stops the start with a clear message. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

type Source = Record<string, string | undefined>;

/** Where a setting's effective value came from. */
export type ConfigSource = 'default' | 'file' | 'env' | 'override';

/** The effective configuration with the origin of every value (for `npx cardshot config`). */
export interface ExplainedConfig {
  config: Config;
  sources: Readonly<Record<SettingKey, ConfigSource>>;
  /** The config file that was read, or null when there was none. */
  file: string | null;
}

/**
 * Builds the frozen configuration: defaults < config file (CARDSHOT_CONFIG or
 * ./cardshot.config.json when present) < environment < explicit overrides (tests, CLI).
 * This is the only place that reads `process.env`.
 */
export function loadConfig(
  overrides: Partial<Record<SettingKey, unknown>> = {},
  env: Source = process.env,
): Config {
  return explainConfig(overrides, env).config;
}

/** Like `loadConfig`, and says where each value came from. */
export function explainConfig(
  overrides: Partial<Record<SettingKey, unknown>> = {},
  env: Source = process.env,
): ExplainedConfig {
  const { values: file, path: filePath } = readConfigFile(env.CARDSHOT_CONFIG);
  const out: Record<string, unknown> = {};
  const sources = {} as Record<SettingKey, ConfigSource>;
  for (const key of Object.keys(settings) as SettingKey[]) {
    const name = envName(key);
    let value: unknown = settings[key].default;
    let source: ConfigSource = 'default';
    if (file[key] !== undefined) {
      value = parseValue(key, file[key], `${key} in the config file`);
      source = 'file';
    }
    if (env[name] !== undefined && env[name] !== '') {
      value = parseValue(key, env[name], name);
      source = 'env';
    }
    if (overrides[key] !== undefined) {
      value = parseValue(key, overrides[key], key);
      source = 'override';
    }
    out[key] = value;
    sources[key] = source;
  }
  return { config: Object.freeze(out) as Config, sources: Object.freeze(sources), file: filePath };
}

function readConfigFile(explicit: string | undefined): {
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
    if (!Object.hasOwn(settings, key)) throw new ConfigError(`${path}: unknown setting "${key}"`);
  }
  return { values: parsed as Record<string, unknown>, path };
}

function parseValue(key: SettingKey, raw: unknown, where: string): unknown {
  const s = settings[key] as Setting;
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
