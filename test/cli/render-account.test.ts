import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAccounts } from '../../src/cli/commands/accounts.js';
import { runRender } from '../../src/cli/commands/render.js';
import { runTheme } from '../../src/cli/commands/theme.js';
import { scaffoldTemplate } from '../../src/cli/templates/new.js';
import { runInProcess } from '../helpers/cli-in-process.js';
import { pixelAt, pngSize } from '../helpers/png.js';

// `npx cardshot render` in this process, on a real SQLite file in a temporary data dir: an
// account's theme with --account, and CSV batches that mix templates.
let dir: string;
const saved: Record<string, string | undefined> = {};

const run = runInProcess;
const render = (args: string[]) => run(runRender, args);
const out = (name: string) => path.join(dir, name);

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-cli-render-'));
  for (const k of ['CARDSHOT_DATA_DIR', 'DATABASE_URL', 'REDIS_URL', 'CARDSHOT_TEMPLATES_DIR'])
    saved[k] = process.env[k];
  process.env.CARDSHOT_DATA_DIR = dir;
  for (const k of ['DATABASE_URL', 'REDIS_URL', 'CARDSHOT_TEMPLATES_DIR']) delete process.env[k];
  for (const [name, email] of [
    ['Acme', 'ops@acme.test'],
    ['Plain', 'plain@acme.test'],
  ]) {
    const made = await run(runAccounts, ['create', '--name', name!, '--email', email!, '--plan', 'pro']);
    expect(made.code, made.stderr).toBe(0);
  }
  const set = await run(runTheme, [
    'set',
    '--account',
    'ops@acme.test',
    '--background',
    '#FF00FF',
    '--text',
    '#FFFFFF',
  ]);
  expect(set.code, set.stderr).toBe(0);
});
afterAll(async () => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  await rm(dir, { recursive: true, force: true });
});

describe('npx cardshot render --account', () => {
  it("draws that account's theme; --no-theme and another account's card keep the template's look", async () => {
    const themed = await render([
      'blog',
      '--title',
      'Themed',
      '--account',
      'ops@acme.test',
      '-o',
      out('t.png'),
    ]);
    expect(themed.stderr).toBe('');
    expect(themed.code).toBe(0);
    expect(await pixelAt(await readFile(out('t.png')), 5, 5)).toEqual([255, 0, 255, 255]);

    // The blog's own paper, #F6F1E9.
    const paper = [0xf6, 0xf1, 0xe9, 255];
    const none = await render([
      'blog',
      '--title',
      'Themed',
      '--account',
      'ops@acme.test',
      '--no-theme',
      '-o',
      out('n.png'),
    ]);
    expect(none.code).toBe(0);
    expect(await pixelAt(await readFile(out('n.png')), 5, 5)).toEqual(paper);
    const victim = await render([
      'blog',
      '--title',
      'Themed',
      '--account',
      'plain@acme.test',
      '-o',
      out('v.png'),
    ]);
    expect(victim.code).toBe(0);
    expect(await pixelAt(await readFile(out('v.png')), 5, 5)).toEqual(paper);
    const without = await render(['blog', '--title', 'Themed', '-o', out('w.png')]);
    expect(without.code).toBe(0);
    expect(await pixelAt(await readFile(out('w.png')), 5, 5)).toEqual(paper);
  }, 30_000);

  it('an unknown account is one line and exit 1, nothing written', async () => {
    const r = await render(['blog', '--title', 'x', '--account', 'nobody@acme.test', '-o', out('x.png')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^cardshot render: .*nobody@acme\.test.*\n$/);
    await expect(readFile(out('x.png'))).rejects.toThrow(/ENOENT/);
  });

  it('the template help names --account beside --no-theme', async () => {
    const r = await render(['--help', '--template', 'blog']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^ {2}--account +id or email: draw that account's brand theme \(without it, none is drawn\)$/m,
    );
  });
});

describe('a CSV batch that mixes templates', () => {
  it("accepts an empty cell in a column the row's template does not declare; an empty declared field is still refused", async () => {
    await scaffoldTemplate('event', path.join(dir, 'templates'));
    await writeFile(
      out('mixed.csv'),
      [
        'template,title,subtitle,accent,filename',
        'blog,A post,Its subtitle,,post',
        'event,Launch,,#FF0000,launch',
        'blog,,No title,,',
        'event,Other,Not an event field,,',
      ].join('\n'),
    );
    const r = await render(['--batch', out('mixed.csv'), '--out-dir', out('cards')]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /^Rendered 2 of 4 cards into .*\/cards\/ in \d+\.\d s; 2 failed:\n {2}row 3: title must not be empty\n {2}row 4: Unknown field "subtitle"\. Allowed: .*\n$/,
    );
    expect((await readdir(out('cards'))).sort()).toEqual(['launch.png', 'post.png']);
    expect(pngSize(await readFile(out('cards/launch.png')))).toEqual({ width: 1200, height: 630 });
  }, 30_000);
});
