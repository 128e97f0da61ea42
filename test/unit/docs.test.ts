import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configTableMarkdown } from '../../src/config/docs.js';

describe('README', () => {
  it('shows the configuration table generated from the schema (run `npm run docs:config`)', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const block = readme
      .split('<!-- config-table:start -->')[1]
      ?.split('<!-- config-table:end -->')[0]
      ?.trim();
    expect(block).toBe(configTableMarkdown());
  });

  it('has a quick start of exactly two commands', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const quick = readme.split('## Quick start')[1]?.split('```bash')[1]?.split('```')[0] ?? '';
    const commands = quick
      .split('\n')
      .map((l) => l.replace(/#.*/, '').trim())
      .filter(Boolean);
    expect(commands).toEqual(['npm start', 'npm test']);
  });
});
