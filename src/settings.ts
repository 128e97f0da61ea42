/**
 * The one configuration schema, assembled from the groups each area keeps beside its code. The
 * order below is the order of the README table and of `npx cardshot config`: an area's group
 * may come in runs (http, cache, dashboard) so that order stays the one users know. A new
 * setting goes in its area's `settings.ts`; this file only lists the groups.
 */
import { accountSettings } from './accounts/settings.js';
import { authSettings } from './auth/settings.js';
import { cacheSettings, redisCacheSettings } from './cache/settings.js';
import { configTableMarkdown as tableOf } from './config/docs.js';
import { type ExplainedConfig, explainSettings, loadSettings, type Overrides } from './config/load.js';
import { assembleSettings, type ConfigOf, envNameOf } from './config/setting.js';
import { type UnknownVariable, findUnknownVariables as unknownIn } from './config/unknown-env.js';
import { adminSettings, sessionSettings, signInSettings } from './dashboard/settings.js';
import { deliverySettings } from './delivery/settings.js';
import { requestSettings, serverSettings, serviceSettings } from './http/settings.js';
import { jobSettings } from './jobs/settings.js';
import { netSettings } from './net/settings.js';
import { redisSettings } from './redis/settings.js';
import { imageSettings } from './render/image/settings.js';
import { screenshotSettings } from './render/screenshot/settings.js';
import { templateSettings } from './render/template/settings.js';
import { roleSettings } from './roles/settings.js';
import { siteSettings } from './sites/settings.js';
import { storageSettings } from './storage/settings.js';
import { themeSettings } from './themes/settings.js';
import { usageSettings } from './usage/settings.js';
import { webhookSettings } from './webhooks/settings.js';

/** Every setting of every area, in the order of the README table. */
export const settings = assembleSettings(
  serverSettings,
  roleSettings,
  storageSettings,
  redisSettings,
  redisCacheSettings,
  authSettings,
  usageSettings,
  serviceSettings,
  sessionSettings,
  accountSettings,
  signInSettings,
  adminSettings,
  netSettings,
  requestSettings,
  templateSettings,
  cacheSettings,
  imageSettings,
  themeSettings,
  screenshotSettings,
  jobSettings,
  webhookSettings,
  siteSettings,
  deliverySettings,
);

export type Settings = typeof settings;
export type SettingKey = keyof Settings;

/** The validated, frozen configuration; it satisfies every area's slice (`ScreenshotConfig`, …). */
export type Config = ConfigOf<Settings>;

/** The environment variable that sets `key`. */
export function envName(key: SettingKey): string {
  return envNameOf(key, settings[key]);
}

/** The configuration from defaults < config file < environment < `overrides` (see config/load.ts). */
export function loadConfig(
  overrides?: Overrides<Settings>,
  env?: Record<string, string | undefined>,
): Config {
  return loadSettings(settings, overrides, env);
}

/** Like `loadConfig`, and says where each value came from (for `npx cardshot config`). */
export function explainConfig(
  overrides?: Overrides<Settings>,
  env?: Record<string, string | undefined>,
): ExplainedConfig<Settings> {
  return explainSettings(settings, overrides, env);
}

/** The README's configuration table (`npx cardshot config --markdown`). */
export function configTableMarkdown(): string {
  return tableOf(settings);
}

/** The CARDSHOT_* variables in `env` that no setting reads (see config/unknown-env.ts). */
export function findUnknownVariables(env?: Record<string, string | undefined>): UnknownVariable[] {
  return unknownIn(settings, env);
}
