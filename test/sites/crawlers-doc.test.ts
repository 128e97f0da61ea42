import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SIZE_NAMES, SIZES } from '../../src/render/template/sizes.js';
import { CRAWLER_SIZES, crawlerTableMarkdown, sizeForAgent } from '../../src/sites/og/crawlers.js';
import { PLATFORMS } from '../../src/sites/platforms.js';

// docs/sites.md shows the crawler → size table from the table /og reads.
describe('docs/sites.md', () => {
  it('holds the table of src/sites/og/crawlers.ts between its markers', () => {
    const doc = readFileSync(new URL('../../docs/sites.md', import.meta.url), 'utf8');
    const start = '<!-- crawlers:start -->\n';
    const end = '\n<!-- crawlers:end -->';
    const table = doc.slice(doc.indexOf(start) + start.length, doc.indexOf(end));
    expect(table).toBe(crawlerTableMarkdown((s) => `${SIZES[s].width}×${SIZES[s].height}`));
  });
});

describe('sizes by crawler', () => {
  it("gives every network of the unfurl table the size of its row (the unfurl table's User-Agents)", () => {
    const expected: Record<string, string> = {
      x: 'twitter',
      linkedin: 'linkedin',
      facebook: 'og',
      slack: 'og',
      discord: 'og',
      whatsapp: 'og',
      imessage: 'og',
      telegram: 'og',
      mastodon: 'og',
    };
    for (const p of PLATFORMS) expect(sizeForAgent(p.userAgent, SIZE_NAMES), p.id).toBe(expected[p.id]);
  });

  it("falls back to og, or the template's first size, when the template lacks the crawler's", () => {
    expect(sizeForAgent('Twitterbot/1.0', ['og', 'square'])).toBe('og');
    expect(sizeForAgent('Twitterbot/1.0', ['square', 'story'])).toBe('square');
    expect(sizeForAgent(undefined, SIZE_NAMES)).toBe('og');
    expect(CRAWLER_SIZES.length).toBeGreaterThanOrEqual(10);
  });
});
