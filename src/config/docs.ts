import { envName, type Setting, type SettingKey, settings } from './schema.js';

const MiB = 1024 * 1024;

/** The configuration table for the README, generated from the schema so the two cannot drift. */
export function configTableMarkdown(): string {
  const rows = (Object.keys(settings) as SettingKey[]).map((key) => {
    const s = settings[key] as Setting;
    return `| \`${envName(key)}\` | ${formatDefault(key, s)} | ${s.description} |`;
  });
  return ['| Variable | Default | Meaning |', '|---|---|---|', ...rows].join('\n');
}

function formatDefault(key: SettingKey, s: Setting): string {
  if (key === 'renderConcurrency' || key === 'screenshotConcurrency') return 'number of cores';
  switch (s.kind) {
    case 'list':
      return s.default.length ? `\`${s.default.join(',')}\`` : '(empty)';
    case 'int':
      if (/Bytes$/.test(key) && s.default >= MiB && s.default % MiB === 0) return `${s.default / MiB} MiB`;
      if (/Bytes$/.test(key) && s.default % 1_000_000 === 0) return `${s.default / 1_000_000} MB`;
      if (/Bytes$/.test(key) && s.default % 1024 === 0) return `${s.default / 1024} KiB`;
      return `\`${s.default}\``;
    default:
      return s.default === '' ? '(empty)' : `\`${String(s.default)}\``;
  }
}
