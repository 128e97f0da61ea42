import { lstat, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFirstRunFile } from '../../src/accounts/first-run.js';

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
