import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { platformTableMarkdown } from '../../src/sites/platforms-doc.js';

// docs/unfurl.md shows the networks' rules from the same table the check reads.
describe('docs/unfurl.md', () => {
  it('holds the table of src/sites/platforms.ts between its markers', () => {
    const doc = readFileSync(new URL('../../docs/unfurl.md', import.meta.url), 'utf8');
    const start = '<!-- platforms:start -->\n';
    const end = '\n<!-- platforms:end -->';
    const table = doc.slice(doc.indexOf(start) + start.length, doc.indexOf(end));
    expect(table).toBe(platformTableMarkdown());
  });
});
