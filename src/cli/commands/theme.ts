import { readFile } from 'node:fs/promises';
import { createFontService } from '../../fonts/service.js';
import { createFontStore } from '../../fonts/store.js';
import { createArtworkFetcher } from '../../render/image/artwork.js';
import { createDecodePool } from '../../render/image/decode-pool.js';
import type { Config } from '../../settings.js';
import type { Store } from '../../storage/store.js';
import { createThemeService, type StoredTheme, type ThemeInput } from '../../themes/service.js';
import { accountOption, iso, out, parseVerbArgs, UsageError, when, withAccounts } from '../admin.js';

const HELP = `Show, set or clear an account's brand theme (SQLite in the data dir, or DATABASE_URL).

  npx cardshot theme show  --account <id|email> [--json]
  npx cardshot theme set   --account <id|email> [--background '#0F172A'] [--text '#F8FAFC']
                           [--accent '#6366F1'] [--font sans|serif] [--font-family NAME]
                           [--logo-file logo.png | --logo-url https://… | --no-logo] [--json]
  npx cardshot theme clear --account <id|email> [--json]

Colours are hex (#RGB or #RRGGBB); the text colour needs 3:1 contrast with the background.
set changes only what it is given; a new theme starts from the defaults above. A logo (PNG,
JPEG, WebP, GIF or AVIF, at most CARDSHOT_THEME_LOGO_MAX_BYTES) is stored as a PNG of at most
512×512; a logo URL is fetched once, now, through the URL guard. Running servers see a change
within CARDSHOT_THEME_CACHE_SECONDS. --font-family names one of the account's uploaded fonts
(npx cardshot fonts add FILE); '' sets none.`;

/** JSON shape of a theme for --json output (the logo's bytes are not printed). */
export function themeJson(t: StoredTheme) {
  return {
    background: t.background,
    text: t.text,
    accent: t.accent,
    font: t.font,
    fontFamily: t.fontFamily ?? null,
    logo: t.logo
      ? { width: t.logo.width, height: t.logo.height, bytes: t.logo.data.length, sha256: t.logo.sha256 }
      : null,
    version: t.version,
    updatedAt: iso(t.updatedAt),
  };
}

function themeText(t: StoredTheme): string {
  const logo = t.logo ? `${t.logo.width}×${t.logo.height} PNG, ${t.logo.data.length} bytes` : 'none';
  return [
    `Background  ${t.background}`,
    `Text        ${t.text}`,
    `Accent      ${t.accent}`,
    `Font        ${t.fontFamily ? `${t.fontFamily} (uploaded; fallback ${t.font})` : t.font}`,
    `Logo        ${logo}`,
    `Version     ${t.version.slice(0, 16)}`,
    `Updated     ${when(t.updatedAt)}`,
  ].join('\n');
}

/** The change `set` asks for; a usage error when it asks for none, or for two logos. */
async function inputOf(values: ReturnType<typeof parse>['values']): Promise<ThemeInput> {
  const logos = [values['logo-file'], values['logo-url'], values['no-logo'] ? true : undefined].filter(
    (v) => v !== undefined,
  );
  if (logos.length > 1) throw new UsageError('give one of --logo-file, --logo-url and --no-logo');
  const input: ThemeInput = {};
  for (const k of ['background', 'text', 'accent', 'font'] as const) {
    if (values[k] !== undefined) input[k] = values[k];
  }
  if (values['logo-file'] !== undefined) {
    const file = await readFile(values['logo-file']).catch((err: NodeJS.ErrnoException) => {
      throw new UsageError(`--logo-file: cannot read ${values['logo-file']} (${err.code ?? err.message})`);
    });
    input.logo = { file };
  }
  if (values['logo-url'] !== undefined) input.logo = { url: values['logo-url'] };
  if (values['no-logo']) input.logo = null;
  if (values['font-family'] !== undefined) input.fontFamily = values['font-family'];
  if (Object.keys(input).length === 0) {
    throw new UsageError(
      'set needs at least one of --background, --text, --accent, --font, --font-family, --logo-file, --logo-url, --no-logo',
    );
  }
  return input;
}

/** The theme service on the CLI's own connection; logo URLs use the server's URL guard settings. */
function themesFor(
  config: Config,
  store: Parameters<typeof createThemeService>[1]['store'] & Partial<Pick<Store, 'db'>>,
) {
  const artwork = createArtworkFetcher({
    allowPrivateHosts: config.allowPrivateHosts,
    timeoutMs: config.imageTimeoutMs,
    maxBytes: config.imageMaxBytes,
    maxPixels: config.imageMaxPixels,
    cacheTtlMs: 0,
    // The server's limits: a logo the server would refuse is refused here too.
    decoder: createDecodePool({
      workers: 1,
      cpuMs: config.imageDecodeCpuMs,
      memoryBytes: config.imageDecodeMemoryBytes,
    }),
  });
  const fonts = store.db ? createFontService(config, { store: createFontStore(store.db) }) : undefined;
  const themes = createThemeService(config, { store, artwork, ...(fonts ? { fonts } : {}) });
  return {
    themes,
    close: async () => {
      await themes.close();
      await fonts?.close();
      await artwork.close();
      await artwork.decoder.close();
    },
  };
}

/** `cardshot theme …`. */
export async function runTheme(argv: string[]): Promise<number> {
  const [verb, ...rest] = argv;
  if (!verb || verb === '--help' || verb === '-h') {
    process.stdout.write(`${HELP}\n`);
    return verb ? 0 : 2;
  }
  return withAccounts(`theme ${verb}`, HELP, async (mod, config) => {
    const { values } = parse(rest);
    const json = values.json ?? false;
    const account = await accountOption(mod, values.account);
    const { themes, close } = themesFor(config, mod.store);
    try {
      switch (verb) {
        case 'show': {
          const t = await themes.read(account.id);
          out(
            json,
            { accountId: account.id, theme: t ? themeJson(t) : null },
            t ? themeText(t) : `Account ${account.id} has no theme: cards use each template's own look.`,
          );
          return 0;
        }
        case 'set': {
          const t = await themes.set(account.id, await inputOf(values));
          out(
            json,
            { accountId: account.id, theme: themeJson(t) },
            `Theme saved for ${account.email}.\n\n${themeText(t)}`,
          );
          return 0;
        }
        case 'clear': {
          const had = await themes.clear(account.id);
          out(
            json,
            { accountId: account.id, cleared: had },
            had ? `Theme removed for ${account.email}.` : `Account ${account.id} had no theme.`,
          );
          return 0;
        }
        default:
          throw new UsageError(`unknown verb "${verb}"`);
      }
    } finally {
      await close();
    }
  });
}

function parse(argv: string[]) {
  const parsed = parseVerbArgs(argv, {
    account: { type: 'string' },
    background: { type: 'string' },
    text: { type: 'string' },
    accent: { type: 'string' },
    font: { type: 'string' },
    'font-family': { type: 'string' },
    'logo-file': { type: 'string' },
    'logo-url': { type: 'string' },
    'no-logo': { type: 'boolean' },
    json: { type: 'boolean' },
  } as const);
  if (parsed.positionals.length > 0) throw new UsageError(`unexpected argument "${parsed.positionals[0]}"`);
  return parsed;
}
