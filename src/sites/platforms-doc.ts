import { PLATFORMS } from './platforms.js';

const kb = (n: number) => (n >= 1024 * 1024 ? `${n / 1024 / 1024} MB` : `${n / 1024} KB`);

/** docs/unfurl.md's table of the networks, from the one table the check reads (kept in step by a test). */
export function platformTableMarkdown(): string {
  const rows = PLATFORMS.map((p) =>
    [
      p.name,
      `\`${p.userAgent}\``,
      p.robotsToken ? `\`${p.robotsToken}\`` : 'not read',
      String(p.titleMax),
      p.descriptionMax === 0 ? 'not shown' : String(p.descriptionMax),
      `${p.minImage.width}×${p.minImage.height}`,
      `${p.large.minWidth}×${p.large.minHeight}, ${p.large.aspect}:1${p.largeNeedsTwitterCard ? ', with `summary_large_image`' : ''}${p.largeNeedsLandscape ? ', landscape' : ''}`,
      `${kb(p.maxBytes)}${p.maxSide ? `, ${p.maxSide}×${p.maxSide}` : ''}`,
      p.types.map((t) => t.toUpperCase()).join(', '),
    ].join(' | '),
  );
  return [
    '| network | crawler User-Agent | robots.txt token | title cut at | description cut at | smallest image | large image from | largest image | types |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${r} |`),
  ].join('\n');
}
