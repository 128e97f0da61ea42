import { parseArgs } from 'node:util';
import type { Setting } from '../../config/setting.js';
import { maskUrl } from '../../doctor/checks.js';
import { configTableMarkdown, envName, explainConfig, type SettingKey, settings } from '../../settings.js';
import { report, table, UsageError } from '../admin.js';

const HELP = `Print the effective configuration and where each value came from.

  npx cardshot config [--json]     every setting: value (secrets masked), source (default, file, env)
  npx cardshot config --markdown   the settings table of the README

Values come from the defaults, then cardshot.config.json (or the file named by CARDSHOT_CONFIG),
then the environment, which wins.`;

/** The declaration of `key`, read as any setting so its optional fields (`secret`) can be asked. */
function settingOf(key: SettingKey): Setting {
  return settings[key];
}

/** A value safe to print: secrets never appear, URLs keep everything but their password. */
export function maskValue(key: SettingKey, value: unknown): unknown {
  if (!settingOf(key).secret) return value;
  const text = String(value);
  if (text === '') return '';
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return maskUrl(text);
  return `(set, ${text.length} characters)`;
}

/** `cardshot config`. */
export async function runConfig(argv: string[]): Promise<number> {
  try {
    const { values } = parseArgs({
      args: argv,
      options: {
        json: { type: 'boolean' },
        markdown: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (values.help) {
      process.stdout.write(`${HELP}\n`);
      return 0;
    }
    if (values.markdown) {
      process.stdout.write(`${configTableMarkdown()}\n`);
      return 0;
    }
    const { config, sources, file } = explainConfig();
    const rows = (Object.keys(settings) as SettingKey[]).map((key) => ({
      key,
      env: envName(key),
      value: maskValue(key, config[key]),
      source: sources[key],
      secret: settingOf(key).secret === true,
    }));
    if (values.json) {
      process.stdout.write(`${JSON.stringify({ file, settings: rows })}\n`);
      return 0;
    }
    const show = (v: unknown) => (Array.isArray(v) ? v.join(',') : String(v)) || '(empty)';
    process.stdout.write(
      `Config file: ${file ?? 'none (cardshot.config.json not found; CARDSHOT_CONFIG not set)'}\n\n${table([
        ['VARIABLE', 'VALUE', 'FROM'],
        ...rows.map((r) => [r.env, show(r.value), r.source === 'file' ? `file (${r.key})` : r.source]),
      ])}\n`,
    );
    return 0;
  } catch (err) {
    if (err instanceof Error && (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      return report('config', HELP, new UsageError(err.message));
    }
    return report('config', HELP, err);
  }
}
