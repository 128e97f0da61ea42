/**
 * The kinds of setting an area declares, and the types they give the configuration. Each area
 * keeps its group of settings beside its code (`src/<area>/settings.ts`); the composition root
 * (`src/settings.ts`) assembles the groups into the one schema. Every setting has a default, a
 * description and an environment name derived from its key (camelCase → CARDSHOT_SNAKE_CASE),
 * except the conventional names given in `env`. The README table is generated from the groups
 * (`npx cardshot config --markdown`), so describe settings there.
 */
type Kind = 'string' | 'int' | 'bool' | 'list' | 'enum';

interface SettingBase<K extends Kind, V> {
  kind: K;
  default: V;
  description: string;
  /** Conventional environment name (PORT, HOST, …); otherwise derived. */
  env?: string;
  /** Secrets are masked when the configuration is printed. */
  secret?: boolean;
  /** How the docs state a default that depends on the machine ('number of cores'). */
  defaultDoc?: string;
}
interface StringSetting extends SettingBase<'string', string> {
  /** Why the value is unusable, or undefined; checked once at start. */
  check?: (value: string) => string | undefined;
}
interface IntSetting extends SettingBase<'int', number> {
  min: number;
  max: number;
}
interface EnumSetting extends SettingBase<'enum', string> {
  values: readonly string[];
}
interface ListSetting extends SettingBase<'list', readonly string[]> {
  /** Why the items are unusable, or undefined; checked once at start. */
  check?: (items: readonly string[]) => string | undefined;
}
export type Setting = StringSetting | SettingBase<'bool', boolean> | ListSetting | IntSetting | EnumSetting;

/** An area's settings by key, declared `as const satisfies SettingsGroup` so types stay literal. */
export type SettingsGroup = Readonly<Record<string, Setting>>;

/** A setting's value type; an enum's is the union of its values ('auto' | 'on' | 'off'). */
export type ValueOf<S> = S extends { kind: 'int' }
  ? number
  : S extends { kind: 'bool' }
    ? boolean
    : S extends { kind: 'list' }
      ? readonly string[]
      : S extends { kind: 'enum'; values: readonly (infer V)[] }
        ? V
        : string;

/** The validated, frozen values of a group (or of the whole schema): what a module receives. */
export type ConfigOf<G> = { readonly [K in keyof G]: ValueOf<G[K]> };

/** Groups merged into one, each key typed by the group that declares it. */
export type Assembled<G extends readonly SettingsGroup[]> = G extends readonly [
  infer Head,
  ...infer Rest extends readonly SettingsGroup[],
]
  ? Head & Assembled<Rest>
  : unknown;

/** Bytes in a mebibyte, for the byte-sized settings. */
export const MiB = 1024 * 1024;

/** The environment variable that sets the setting `key`. */
export function envNameOf(key: string, setting: Setting): string {
  return setting.env ?? `CARDSHOT_${key.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`;
}

/**
 * The one schema from the areas' groups, in the order given (the order of the docs). A key
 * declared by two groups would silently take one definition, so it stops the start instead.
 */
export function assembleSettings<const G extends readonly SettingsGroup[]>(...groups: G): Assembled<G> {
  const schema: Record<string, Setting> = {};
  for (const group of groups) {
    for (const [key, setting] of Object.entries(group)) {
      if (Object.hasOwn(schema, key)) throw new Error(`setting ${key} is declared by two groups`);
      schema[key] = setting;
    }
  }
  // The loop copied every key of every group, which is what Assembled<G> says.
  return Object.freeze(schema) as Assembled<G>;
}
