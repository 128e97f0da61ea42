// @module-tag process
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configTableMarkdown } from '../../src/settings.js';

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

describe('README client example', () => {
  it('compiles under tsc --strict exactly as written, against the built client types', () => {
    const root = path.resolve(import.meta.dirname, '../..');
    const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
    const example = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toContain("from 'cardshot/client'");
    // Inside the package, so `cardshot/client` resolves through package.json's exports as it
    // does for a user who installed it.
    mkdirSync(path.join(root, '.tmp'), { recursive: true });
    const dir = mkdtempSync(path.join(root, '.tmp', 'readme-example-'));
    try {
      writeFileSync(path.join(dir, 'example.ts'), example!);
      const options = {
        strict: true,
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        noEmit: true,
        skipLibCheck: true,
        types: ['node'],
      };
      writeFileSync(
        path.join(dir, 'tsconfig.json'),
        JSON.stringify({ compilerOptions: options, files: ['example.ts'] }),
      );
      const tsc = spawnSync(
        process.execPath,
        [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', dir],
        {
          encoding: 'utf8',
        },
      );
      expect(tsc.stdout + tsc.stderr).toBe('');
      expect(tsc.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
