import { envNameOf, MiB, type Setting, type SettingsGroup } from './setting.js';

/** The configuration table for the README, generated from the schema so the two cannot drift. */
export function configTableMarkdown(schema: SettingsGroup): string {
  const rows = Object.entries(schema).map(
    ([key, s]) => `| \`${envNameOf(key, s)}\` | ${formatDefault(key, s)} | ${s.description} |`,
  );
  return ['| Variable | Default | Meaning |', '|---|---|---|', ...rows].join('\n');
}

function formatDefault(key: string, s: Setting): string {
  if (s.defaultDoc !== undefined) return s.defaultDoc;
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
