/**
 * The filter lists behind blockAds and blockCookieBanners: which lists, where set-up leaves the
 * engines built from them, and loading those engines. Nothing here downloads anything: the
 * lists ship inside npm packages and `npm run setup` turns them into serialized engines
 * (build.ts); a running service only reads those files.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { FiltersEngine } from '@ghostery/adblocker';
import { AppError } from '../../../errors.js';
import { packageRoot } from '../../../version.js';

/** One engine per option, so each option can be on without the other. */
export type EngineKind = 'ads' | 'cookieBanners';

/** An AdGuard filter inside `@adguard/dnr-rulesets`, by its id in `filters_i18n.json`. */
export interface ListSource {
  id: number;
  title: string;
}

/**
 * The lists each engine is built from. AdGuard Base is EasyList plus AdGuard's English filter;
 * Tracking Protection covers analytics and trackers; Cookie Notices hides (and blocks the scripts
 * of) cookie banners the consent rules do not refuse. Regional lists are left out: they would
 * double the engine for pages most captures never see.
 */
export const LIST_SOURCES: Readonly<Record<EngineKind, readonly ListSource[]>> = {
  ads: [
    { id: 2, title: 'AdGuard Base filter' },
    { id: 3, title: 'AdGuard Tracking Protection filter' },
  ],
  cookieBanners: [{ id: 18, title: 'AdGuard Cookie Notices filter' }],
};

/** File name of each serialized engine inside the lists folder. */
export const ENGINE_FILES: Readonly<Record<EngineKind, string>> = {
  ads: 'ads.engine',
  cookieBanners: 'cookie-banners.engine',
};

export const MANIFEST_FILE = 'manifest.json';

/** What set-up built, written beside the engines (and summed up in docs/api.md). */
export interface ListsManifest {
  /** Changes whenever a package version, the engine format or the list choice changes. */
  key: string;
  builtAt: string;
  packages: Record<string, string>;
  engineVersion: number;
  lists: Array<ListSource & { engine: EngineKind; version: string; updated: string; lines: number }>;
  engines: Record<EngineKind, { bytes: number; networkFilters: number; cosmeticFilters: number }>;
}

/** Where set-up writes the engines: inside the install, beside the compiled code. */
export function defaultListsDir(): string {
  return path.join(packageRoot(), 'dist', 'blocking');
}

const NOT_BUILT = 'is not available on this server: its filter lists are not built (run `npm run setup`)';

/** The option's name as a client wrote it, for messages. */
export const OPTION_NAME: Readonly<Record<EngineKind, string>> = {
  ads: 'blockAds',
  cookieBanners: 'blockCookieBanners',
};

/**
 * Reads one serialized engine. Throws a 503 naming the option when set-up has not built it (or
 * built it for another engine version): a capture must not go ahead without the blocking asked for.
 */
export async function loadEngine(dir: string, kind: EngineKind): Promise<FiltersEngine> {
  const file = path.join(dir, ENGINE_FILES[kind]);
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (err) {
    throw new AppError('unavailable', `${OPTION_NAME[kind]} ${NOT_BUILT}`, {
      detail: `cannot read ${file}: ${(err as Error).message}`,
    });
  }
  const { FiltersEngine } = await import('@ghostery/adblocker');
  try {
    return FiltersEngine.deserialize(bytes);
  } catch (err) {
    // An engine built by another version of @ghostery/adblocker: set-up rebuilds it.
    throw new AppError('unavailable', `${OPTION_NAME[kind]} ${NOT_BUILT}`, {
      detail: `cannot load ${file}: ${(err as Error).message}`,
    });
  }
}

/** The manifest set-up wrote, or undefined when there is none (lists not built). */
export async function readManifest(dir: string): Promise<ListsManifest | undefined> {
  try {
    return JSON.parse(await readFile(path.join(dir, MANIFEST_FILE), 'utf8')) as ListsManifest;
  } catch {
    return undefined;
  }
}
