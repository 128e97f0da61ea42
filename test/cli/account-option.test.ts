import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAccounts } from '../../src/cli/commands/accounts.js';
import { runKeys } from '../../src/cli/commands/keys.js';
import { runUsage } from '../../src/cli/commands/usage.js';
import { runInProcess } from '../helpers/cli-in-process.js';

// `--account` takes an email wherever `theme --account` does: the commands in this process, on
// a real SQLite file in a temporary data dir, with a second account beside the first.
let dir: string;
const saved: Record<string, string | undefined> = {};
let acme: string;
let other: string;

const run = runInProcess;

async function createAccount(name: string, email: string): Promise<string> {
  const made = await run(runAccounts, [
    'create',
    '--name',
    name,
    '--email',
    email,
    '--plan',
    'pro',
    '--json',
  ]);
  expect(made.code, made.stderr).toBe(0);
  return JSON.parse(made.stdout).id;
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-cli-account-'));
  for (const k of ['CARDSHOT_DATA_DIR', 'DATABASE_URL', 'CARDSHOT_SECRET']) saved[k] = process.env[k];
  process.env.CARDSHOT_DATA_DIR = dir;
  delete process.env.DATABASE_URL;
  delete process.env.CARDSHOT_SECRET;
  acme = await createAccount('Acme', 'ops@acme.test');
  other = await createAccount('Other', 'other@evil.test');
});
afterAll(async () => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  await rm(dir, { recursive: true, force: true });
});

describe('--account by email', () => {
  it('keys create and keys list take the email (any case), and list only that account’s keys', async () => {
    const made = await run(runKeys, [
      'create',
      '--account',
      'OPS@Acme.test',
      '--name',
      'Website',
      '--environment',
      'production',
      '--json',
    ]);
    expect(made.code, made.stderr).toBe(0);
    const keyId = JSON.parse(made.stdout).id as string;
    expect(JSON.parse(made.stdout).accountId).toBe(acme);

    const mine = await run(runKeys, ['list', '--account', 'ops@acme.test', '--json']);
    expect(mine.code, mine.stderr).toBe(0);
    expect((JSON.parse(mine.stdout).keys as Array<{ id: string }>).map((k) => k.id)).toEqual([keyId]);
    const byId = await run(runKeys, ['list', '--account', acme, '--json']);
    expect(byId.stdout).toBe(mine.stdout);

    // The other account, by its email, sees none of them.
    expect(await run(runKeys, ['list', '--account', 'other@evil.test'])).toEqual({
      code: 0,
      stdout: 'No keys yet.\n',
      stderr: '',
    });
  });

  it('usage takes the email and reports that account’s id', async () => {
    const r = await run(runUsage, ['--account', 'other@evil.test', '--days', '1', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ accountId: other });
    const text = await run(runUsage, ['--account', 'ops@acme.test', '--days', '1']);
    expect(text.code).toBe(0);
    expect(text.stdout.split('\n')[0]).toMatch(/^DAY +\w/);
    expect(text.stdout).toMatch(/^total +0/m);
  });

  it('accounts set-plan takes the email too', async () => {
    const r = await run(runAccounts, ['set-plan', 'other@evil.test', 'free']);
    expect(r).toEqual({ code: 0, stdout: `Account ${other} is now on plan free\n`, stderr: '' });
  });

  it('an email that matches no account fails in one line, exit 1', async () => {
    expect(await run(runUsage, ['--account', 'nobody@acme.test'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'cardshot usage: No account nobody@acme.test\n',
    });
    expect(await run(runKeys, ['list', '--account', 'nobody@acme.test'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'cardshot keys list: No account nobody@acme.test\n',
    });
  });
});
