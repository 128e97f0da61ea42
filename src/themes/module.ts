/**
 * The themes area: account brand themes over the store, logos by URL through the artwork fetcher,
 * and the accounts' uploaded fonts the themes name.
 */
import type { Logger } from 'pino';
import { type Area, startArea } from '../area.js';
import { createFontService } from '../fonts/service.js';
import { createFontStore } from '../fonts/store.js';
import type { FontStore } from '../fonts/types.js';
import type { Clock } from '../lib/clock.js';
import type { ArtworkFetcher } from '../render/image/artwork.js';
import type { Store, ThemeStore } from '../storage/store.js';
import { createThemeService, type ThemeService } from './service.js';
import type { FontConfig, ThemeConfig } from './settings.js';

/** Creates the theme service; the card routes use it as their `ThemeSource`. */
export function createThemesArea(
  config: ThemeConfig & FontConfig,
  deps: {
    /** The accounts' store; its database (`db`) also keeps the uploaded fonts. */
    store: ThemeStore & Partial<Pick<Store, 'db'>>;
    /** Fonts elsewhere than the store's database (tests). */
    fontStore?: FontStore;
    artwork: ArtworkFetcher;
    log: Logger;
    clock?: Clock;
  },
): Promise<Area<ThemeService>> {
  return startArea(deps.log, (parts) => {
    const clock = deps.clock ? { clock: deps.clock } : {};
    const fontStore = deps.fontStore ?? (deps.store.db ? createFontStore(deps.store.db) : undefined);
    const fonts = fontStore ? createFontService(config, { store: fontStore, ...clock }) : undefined;
    if (fonts) parts.add('fonts', () => fonts.close());
    const themes = createThemeService(config, {
      store: deps.store,
      artwork: deps.artwork,
      ...(fonts ? { fonts } : {}),
      ...clock,
    });
    parts.add('themes', () => themes.close());
    return { service: themes };
  });
}
