/** The themes area: account brand themes over the store, logos by URL through the artwork fetcher. */
import type { Logger } from 'pino';
import { type Area, startArea } from '../area.js';
import type { Clock } from '../lib/clock.js';
import type { ArtworkFetcher } from '../render/image/artwork.js';
import type { ThemeStore } from '../storage/store.js';
import { createThemeService, type ThemeService } from './service.js';
import type { ThemeConfig } from './settings.js';

/** Creates the theme service; the card routes use it as their `ThemeSource`. */
export function createThemesArea(
  config: ThemeConfig,
  deps: { store: ThemeStore; artwork: ArtworkFetcher; log: Logger; clock?: Clock },
): Promise<Area<ThemeService>> {
  return startArea(deps.log, (parts) => {
    const themes = createThemeService(config, {
      store: deps.store,
      artwork: deps.artwork,
      ...(deps.clock ? { clock: deps.clock } : {}),
    });
    parts.add('themes', () => themes.close());
    return { service: themes };
  });
}
