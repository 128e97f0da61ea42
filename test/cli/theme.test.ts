import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAccounts } from '../../src/cli/commands/accounts.js';
import { runTheme } from '../../src/cli/commands/theme.js';
import { openStore } from '../../src/storage/open.js';
import { runInProcess } from '../helpers/cli-in-process.js';
import { scanBombJpeg, textChunkBombPng } from '../helpers/hostile-images.js';

// The command in this process, on a real SQLite file in a temporary data dir.
let dir: string;
let accountId: string;
const saved: Record<string, string | undefined> = {};

const run = runInProcess;
const theme = (args: string[]) => run(runTheme, args);

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-cli-theme-'));
  for (const k of ['CARDSHOT_DATA_DIR', 'DATABASE_URL', 'CARDSHOT_ALLOW_PRIVATE_HOSTS'])
    saved[k] = process.env[k];
  process.env.CARDSHOT_DATA_DIR = dir;
  delete process.env.DATABASE_URL;
  delete process.env.CARDSHOT_ALLOW_PRIVATE_HOSTS;
  const made = await run(runAccounts, [
    'create',
    '--name',
    'Acme',
    '--email',
    'ops@acme.test',
    '--plan',
    'pro',
    '--json',
  ]);
  expect(made.code).toBe(0);
  accountId = JSON.parse(made.stdout).id;
});
afterAll(async () => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  await rm(dir, { recursive: true, force: true });
});

describe('npx cardshot theme', () => {
  it('shows that an account has no theme yet, as text and JSON', async () => {
    expect(await theme(['show', '--account', 'ops@acme.test'])).toEqual({
      code: 0,
      stdout: `Account ${accountId} has no theme: cards use each template's own look.\n`,
      stderr: '',
    });
    const json = await theme(['show', '--account', accountId, '--json']);
    expect(JSON.parse(json.stdout)).toEqual({ accountId, theme: null });
  });

  it('sets colours, font and a logo file, writes them to the database, and shows them', async () => {
    const logo = path.join(dir, 'logo.png');
    await writeFile(
      logo,
      await sharp({ create: { width: 1000, height: 250, channels: 4, background: '#336699' } })
        .png()
        .toBuffer(),
    );
    const set = await theme([
      'set',
      '--account',
      'OPS@acme.test',
      '--background',
      '#fff',
      '--text',
      '111827',
      '--font',
      'serif',
      '--logo-file',
      logo,
      '--json',
    ]);
    expect(set.code).toBe(0);
    const body = JSON.parse(set.stdout);
    expect(body).toMatchObject({
      accountId,
      theme: {
        background: '#FFFFFF',
        text: '#111827',
        accent: '#6366F1',
        font: 'serif',
        logo: { width: 512, height: 128 },
      },
    });
    const store = await openStore({ databaseUrl: '', dataDir: dir, databaseSchema: 'public' });
    try {
      const row = await store.getTheme(accountId);
      expect(row).toMatchObject({ background: '#FFFFFF', font: 'serif', version: body.theme.version });
      expect(row?.logo?.width).toBe(512);
    } finally {
      await store.close();
    }
    const shown = await theme(['show', '--account', accountId]);
    expect(shown.stdout).toContain(
      'Background  #FFFFFF\nText        #111827\nAccent      #6366F1\nFont        serif\n',
    );
    expect(shown.stdout).toMatch(/Logo {8}512×128 PNG, \d+ bytes/);
  });

  it('changes only what it is given', async () => {
    const set = await theme(['set', '--account', accountId, '--accent', '#DC2626', '--json']);
    expect(JSON.parse(set.stdout).theme).toMatchObject({
      background: '#FFFFFF',
      accent: '#DC2626',
      font: 'serif',
      logo: { width: 512, height: 128 },
    });
    const off = await theme(['set', '--account', accountId, '--no-logo', '--json']);
    expect(JSON.parse(off.stdout).theme.logo).toBeNull();
  });

  it('refuses bad values with one line and exit 1, and command-line mistakes with exit 2', async () => {
    expect(await theme(['set', '--account', accountId, '--text', '#FAFAFA'])).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'cardshot theme set: text colour #FAFAFA on background #FFFFFF has a contrast ratio of 1.04:1; at least 3:1 is needed (WCAG large text)\n',
    });
    const font = await theme(['set', '--account', accountId, '--font', 'papyrus']);
    expect(font).toMatchObject({ code: 1, stderr: 'cardshot theme set: font must be one of: sans, serif\n' });
    const guard = await theme([
      'set',
      '--account',
      accountId,
      '--logo-url',
      'http://127.0.0.1:8080/logo.png',
    ]);
    expect(guard).toMatchObject({
      code: 1,
      stderr: 'cardshot theme set: logoUrl points to an address that is not allowed\n',
    });
    const missing = await theme(['set', '--account', accountId, '--logo-file', path.join(dir, 'nope.png')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(
      `cardshot theme set: --logo-file: cannot read ${path.join(dir, 'nope.png')} (ENOENT)`,
    );
    expect((await theme(['set', '--account', accountId])).stderr).toContain(
      'cardshot theme set: set needs at least one of --background',
    );
    expect((await theme(['show'])).stderr).toContain('cardshot theme show: --account is required');
    expect(await theme(['show', '--account', 'nobody@acme.test'])).toMatchObject({
      code: 1,
      stderr: 'cardshot theme show: No account nobody@acme.test\n',
    });
  });

  it('refuses a scan-bomb JPEG and a text-chunk PNG logo file at once, naming why (issue 26 §1)', async () => {
    const jpeg = path.join(dir, 'scan-bomb.jpg');
    const png = path.join(dir, 'text-bomb.png');
    await writeFile(jpeg, scanBombJpeg(4000, 4113));
    await writeFile(png, textChunkBombPng(25));
    const start = performance.now();
    expect(await theme(['set', '--account', accountId, '--logo-file', jpeg])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'cardshot theme set: logo has 4114 JPEG scans; at most 32 are accepted\n',
    });
    expect(await theme(['set', '--account', accountId, '--logo-file', png])).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'cardshot theme set: logo has more than 1 MB of PNG text and metadata chunks (tEXt, zTXt, iTXt, iCCP, eXIf)\n',
    });
    expect(performance.now() - start).toBeLessThan(2000);
  });

  it('clears the theme', async () => {
    expect(JSON.parse((await theme(['clear', '--account', accountId, '--json'])).stdout)).toEqual({
      accountId,
      cleared: true,
    });
    expect((await theme(['clear', '--account', accountId])).stdout).toBe(
      `Account ${accountId} had no theme.\n`,
    );
    expect(JSON.parse((await theme(['show', '--account', accountId, '--json'])).stdout)).toEqual({
      accountId,
      theme: null,
    });
  });
});
