import { lstat, mkdtemp, readdir, readFile, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepFirstRunFiles, writeFirstRunFile } from '../../src/accounts/first-run.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-first-run-file-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the first-run file', () => {
  it('is created 0600 in a data dir that does not exist yet', async () => {
    const dataDir = path.join(dir, 'new', 'data');
    const file = await writeFirstRunFile(dataDir, 'first\n');
    expect(file).toBe(path.join(dataDir, 'first-run.txt'));
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('never replaces an earlier one: a later first run goes beside it, numbered', async () => {
    const dataDir = path.join(dir, 'again');
    expect(await writeFirstRunFile(dataDir, 'first key\n')).toBe(path.join(dataDir, 'first-run.txt'));
    const second = await writeFirstRunFile(dataDir, 'second key\n');
    expect(second).toBe(path.join(dataDir, 'first-run-2.txt'));
    expect(await writeFirstRunFile(dataDir, 'third key\n')).toBe(path.join(dataDir, 'first-run-3.txt'));
    expect(await readFile(path.join(dataDir, 'first-run.txt'), 'utf8')).toBe('first key\n');
    expect(await readFile(second, 'utf8')).toBe('second key\n');
    expect((await stat(second)).mode & 0o777).toBe(0o600);
  });

  it('does not write through a link left at its name', async () => {
    const dataDir = path.join(dir, 'linked');
    await writeFirstRunFile(dataDir, 'make the dir\n');
    await rm(path.join(dataDir, 'first-run.txt'));
    const elsewhere = path.join(dir, 'elsewhere.txt');
    await writeFile(elsewhere, 'untouched\n');
    await symlink(elsewhere, path.join(dataDir, 'first-run.txt'));
    expect(await writeFirstRunFile(dataDir, 'key\n')).toBe(path.join(dataDir, 'first-run-2.txt'));
    expect(await readFile(elsewhere, 'utf8')).toBe('untouched\n');
    expect((await lstat(path.join(dataDir, 'first-run.txt'))).isSymbolicLink()).toBe(true);
  });
});

// Regression (issue 20 §5): first-run.txt kept a live pro key for ever.
describe('sweeping first-run files', () => {
  const live = `csinv_${'a'.repeat(32)}`;
  const used = `csinv_${'b'.repeat(32)}`;
  // Stands in for the store's answer: `live` still opens the dashboard, `used` was used.
  const credentials = {
    inviteState: async (t: string): Promise<'live' | 'spent' | 'unknown'> =>
      t === live ? 'live' : t === used ? 'spent' : 'unknown',
  };

  it('removes files whose invite no longer works, and any file older than 72 hours', async () => {
    const dataDir = path.join(dir, 'sweep');
    const fresh = await writeFirstRunFile(dataDir, `link ?token=${live}\n`);
    const spent = await writeFirstRunFile(dataDir, `link ?token=${used}\n`);
    const old = await writeFirstRunFile(dataDir, `link ?token=${live}\n`);
    await writeFile(path.join(dataDir, 'notes.txt'), `?token=${used}\n`);
    const threeDays = (Date.now() - 72 * 3_600_000 - 1000) / 1000;
    await utimes(old, threeDays, threeDays);
    expect((await sweepFirstRunFiles(dataDir, credentials)).sort()).toEqual([spent, old].sort());
    expect((await readdir(dataDir)).sort()).toEqual([path.basename(fresh), 'notes.txt']);
    // An invite another database made is unknown here: kept until the 72 hours are up.
    const foreign = await writeFirstRunFile(dataDir, `link ?token=csinv_${'c'.repeat(32)}\n`);
    expect(await sweepFirstRunFiles(dataDir, credentials)).toEqual([]);
    expect(await sweepFirstRunFiles(dataDir, credentials, Date.now() + 73 * 3_600_000)).toEqual(
      [fresh, foreign].sort(),
    );
    // Once the live invite is used, its file goes at the next sweep.
    const later = await writeFirstRunFile(dataDir, `link ?token=${live}\n`);
    expect(await sweepFirstRunFiles(dataDir, { inviteState: async () => 'spent' as const })).toEqual([later]);
    expect(await sweepFirstRunFiles(path.join(dir, 'missing'), credentials)).toEqual([]);
  });
});
