// @module-tag process
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, type NodeProcess, runNode, startNodeProcess } from '../helpers/node-process.js';

// The built program and CLI, as `npm start` and `npx cardshot` run them (npm test builds first).
const root = path.resolve(import.meta.dirname, '../..');
const cli = path.join(root, 'bin/cardshot.js');
let node: NodeProcess;

beforeAll(async () => {
  node = await startNodeProcess(root, 'links', {
    NODE_ENV: 'production',
    CARDSHOT_CHROMIUM_PATH: '/nonexistent/chromium',
  });
}, 120_000);
afterAll(async () => node?.stop());

/** The CLI on the server's data dir, WITHOUT the server's PORT or HOST (as an operator's shell would be). */
const run = (args: string[], input?: string) =>
  runNode([cli, ...args], {
    cwd: node.dataDir,
    env: cleanEnv({ CARDSHOT_DATA_DIR: node.dataDir }),
    ...(input === undefined ? {} : { input }),
  });

/** A form page's pre-session cookie and CSRF token. */
async function form(url: string): Promise<{ cookie: string; csrf: string; body: string }> {
  const page = await fetch(url);
  const cookie = page.headers
    .getSetCookie()
    .find((c) => c.startsWith('cardshot_pre='))!
    .split(';')[0]!;
  const body = await page.text();
  return { cookie, csrf: /name="_csrf" value="([^"]+)"/.exec(body)![1]!, body };
}

async function post(url: string, cookie: string, fields: Record<string, string>): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, origin: node.url },
    body: new URLSearchParams(fields),
  });
}

describe('links the CLI prints, and passwords it reads', () => {
  // Regression (issue 20 §5): links said http://localhost:3000 whatever port the server had.
  it("name the server's real address when CARDSHOT_PUBLIC_URL is unset", async () => {
    const made = await run([
      'accounts',
      'create',
      '--name',
      'L',
      '--email',
      'l@links.test',
      '--plan',
      'pro',
      '--json',
    ]);
    expect(made.code, made.stderr).toBe(0);
    expect(JSON.parse(made.stdout).inviteUrl).toMatch(
      new RegExp(`^http://127\\.0\\.0\\.1:${node.port}/dashboard/invite\\?token=csinv_[\\w-]{32}$`),
    );
    const invited = await run(['accounts', 'invite', 'l@links.test']);
    expect(invited.stdout).toContain(`  http://127.0.0.1:${node.port}/dashboard/invite?token=csinv_`);
  }, 60_000);

  // Regression (issue 20 §5): two piped lines (one per prompt) were stored as "pw\npw".
  it('set-password reads one line per prompt from a pipe', async () => {
    const differ = await run(
      ['accounts', 'set-password', 'l@links.test'],
      'a long passphrase 42\nanother 4242 xx\n',
    );
    expect([differ.code, differ.stderr]).toEqual([
      2,
      expect.stringContaining('the two passwords do not match'),
    ]);
    const set = await run(
      ['accounts', 'set-password', 'l@links.test'],
      'a long passphrase 42\na long passphrase 42\n',
    );
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toContain(`Sign in at http://127.0.0.1:${node.port}/dashboard`);
    const { cookie, csrf } = await form(`${node.url}/dashboard/sign-in`);
    const signIn = await post(`${node.url}/dashboard/sign-in`, cookie, {
      _csrf: csrf,
      email: 'l@links.test',
      password: 'a long passphrase 42',
    });
    expect(signIn.status).toBe(303);
  }, 60_000);
});

// Regression (issue 20 §5): first-run.txt kept a live pro key for ever.
describe('the first-run file', () => {
  it('says when it goes, and is deleted once its invite is used', async () => {
    const file = path.join(node.dataDir, 'first-run.txt');
    const text = await readFile(file, 'utf8');
    expect(text).toContain('Cardshot deletes this file once the dashboard invite above is used');
    expect(text).toContain('at the latest 72 hours after it was written');
    const line = node.logs().find((l) => String(l.msg).includes('read them once from the file'));
    expect(line?.msg).toContain('Cardshot deletes it once the dashboard invite is used, or after 72 hours');

    const invite = new URL(/http:\/\/\S+\/dashboard\/invite\?token=csinv_[\w-]{32}/.exec(text)![0]);
    const token = invite.searchParams.get('token')!;
    const { cookie, csrf } = await form(`${node.url}/dashboard/invite?token=${token}`);
    const accepted = await post(`${node.url}/dashboard/invite`, cookie, {
      _csrf: csrf,
      token,
      password: 'first run passphrase 7',
      confirm: 'first run passphrase 7',
    });
    expect(accepted.status).toBe(303);
    expect(existsSync(file)).toBe(false);
    await node.waitFor(/removed the first-run file/);
  }, 60_000);
});
