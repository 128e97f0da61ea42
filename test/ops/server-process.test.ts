// @module-tag process
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runNode } from '../helpers/node-process.js';
import { pngSize } from '../helpers/png.js';
import { dropSchema, postgresTestUrl, uniqueSchema } from '../helpers/services.js';

// These run the built program exactly as `npm start` and `npx cardshot` do (npm test builds first).
const root = path.resolve(import.meta.dirname, '../..');
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-proc-'));
});
// Servers a failed test did not get to stop: ended here, so a failure leaves nothing running.
const children = new Set<ChildProcess>();
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

const run = (args: string[], env: Record<string, string> = {}, input = '') =>
  runNode(args, { cwd: dir, env: { ...process.env, ...env }, input });

describe('the server process', () => {
  const dataDir = () => path.join(dir, 'data');
  const env = () => ({
    PORT: '0',
    CARDSHOT_DATA_DIR: dataDir(),
    NODE_ENV: 'production',
    // Revocations by the CLI (another process) take effect on the next request.
    CARDSHOT_KEY_CACHE_SECONDS: '0',
  });

  async function startServer(): Promise<{ child: ChildProcess; port: number; out: () => string }> {
    const child = spawn(process.execPath, [path.join(root, 'dist/src/main.js')], {
      cwd: dir,
      env: { ...process.env, ...env() },
    });
    children.add(child);
    child.once('exit', () => children.delete(child));
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
    });
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no start line: ${out}`)), 20_000);
      child.stdout!.on('data', () => {
        const m = out.match(/"port":(\d+)/);
        if (m) {
          clearTimeout(timer);
          resolve(Number(m[1]));
        }
      });
    });
    return { child, port, out: () => out };
  }

  async function stop(child: ChildProcess): Promise<number | null> {
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    return exited;
  }

  let devKey = '';
  let firstInvite = '';

  it('a start on a taken port says so in one line, exits 1, and does not use up the first run', async () => {
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', () => r()));
    const port = (busy.address() as AddressInfo).port;
    try {
      const r = await run([path.join(root, 'dist/src/main.js')], {
        ...env(),
        HOST: '127.0.0.1',
        PORT: String(port),
      });
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        `cardshot: 127.0.0.1:${port} is already in use by another program; stop it or set PORT to a free port\n`,
      );
      expect(existsSync(path.join(dataDir(), 'first-run.txt'))).toBe(false);
    } finally {
      await new Promise<void>((r) => busy.close(() => r()));
    }
    // The next test's start is still the first run: its key and invite are shown then.
  });

  it('writes a development key once on the first start, serves a card with it, and shuts down cleanly', async () => {
    const { child, port, out } = await startServer();
    // In production stdout is the log stream: the banner goes to a file only the owner can read.
    const file = path.join(dataDir(), 'first-run.txt');
    expect(out()).toContain(JSON.stringify(file).slice(1, -1));
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const banner = await readFile(file, 'utf8');
    expect(out()).not.toContain('API key:');
    const key = banner.match(/API key: +(cs_development_[0-9A-Za-z]{28})/)?.[1];
    expect(key, banner).toBeDefined();
    devKey = key!;
    expect(banner).toContain(
      `curl -sS -H 'x-api-key: ${devKey}' 'http://127.0.0.1:${port}/render/template?template=blog&title=Hello%20from%20Cardshot' -o card.png`,
    );
    expect(banner).toMatch(/Signing secret: cssig_[A-Za-z0-9_-]{43}/);
    // …and how to sign in to the dashboard: a one-time invite link for the first account.
    firstInvite =
      banner.match(
        new RegExp(`http://127\\.0\\.0\\.1:${port}/dashboard/invite\\?token=csinv_[\\w-]{32}`),
      )?.[0] ?? '';
    expect(firstInvite, banner).not.toBe('');
    expect(banner).toContain('works once, for 72 hours');
    // The key appears in the banner only, never in a log line.
    expect(out()).toContain('first start');
    expect(out()).not.toContain(devKey);
    await rm(file); // as the operator would, once the key is copied

    const url = `http://127.0.0.1:${port}/render/template?template=blog&title=From%20a%20process`;
    expect((await fetch(url)).status).toBe(401);
    const res = await fetch(url, { headers: { 'x-api-key': devKey } });
    expect(res.status).toBe(200);
    expect(pngSize(Buffer.from(await res.arrayBuffer()))).toEqual({ width: 1200, height: 630 });

    expect(await stop(child)).toBe(0);
    expect(out()).toContain('"msg":"bye"');
  });

  it('does not print a key again on the next start, and the first key still works', async () => {
    const { child, port, out } = await startServer();
    expect(out()).not.toContain('API key:');
    expect(existsSync(path.join(dataDir(), 'first-run.txt'))).toBe(false);
    expect(out()).not.toContain('cs_development_');
    const res = await fetch(`http://127.0.0.1:${port}/render/template?template=blog&title=Again`, {
      headers: { 'x-api-key': devKey },
    });
    expect(res.status).toBe(200);

    // The CLI works on the same SQLite file while the server runs.
    const cli = path.join(root, 'bin/cardshot.js');
    const created = await run(
      [cli, 'accounts', 'create', '--name', 'Acme', '--email', 'ops@acme.test', '--plan', 'free', '--json'],
      env(),
    );
    expect(created.code, created.stderr).toBe(0);
    const account = JSON.parse(created.stdout);
    expect(account).toMatchObject({ name: 'Acme', email: 'ops@acme.test', plan: 'free' });
    const made = await run(
      [
        cli,
        'keys',
        'create',
        '--account',
        account.id,
        '--name',
        'Web',
        '--environment',
        'production',
        '--json',
      ],
      env(),
    );
    expect(made.code, made.stderr).toBe(0);
    const key = JSON.parse(made.stdout);
    expect(key.key).toMatch(/^cs_production_/);
    const signed = await run(
      [
        cli,
        'sign',
        `http://127.0.0.1:${port}/render/template?template=blog&title=Signed%20card`,
        '--key-id',
        key.id,
        '--secret',
        key.signingSecret,
      ],
      env(),
    );
    expect(signed.code, signed.stderr).toBe(0);
    const signedUrl = signed.stdout.trim();
    expect((await fetch(signedUrl)).status).toBe(200);
    // The secret can come from stdin instead of argv (shell history, the process list).
    const toSign = `http://127.0.0.1:${port}/render/template?template=blog&title=Piped`;
    const fixed = ['--key-id', key.id, '--expires', '2030-01-01'];
    const viaArgv = await run([cli, 'sign', toSign, ...fixed, '--secret', key.signingSecret], env());
    const viaStdin = await run(
      [cli, 'sign', toSign, ...fixed, '--secret', '-'],
      env(),
      `${key.signingSecret}\n`,
    );
    expect(viaStdin.code, viaStdin.stderr).toBe(0);
    expect(viaStdin.stdout).toBe(viaArgv.stdout);
    // Refused: a URL that would publish the key, and a signature that is already expired.
    const withKey = await run(
      [cli, 'sign', `${toSign}&api_key=${key.key}`, ...fixed, '--secret', key.signingSecret],
      env(),
    );
    expect(withKey.code).toBe(2);
    expect(withKey.stderr).toContain(
      'the URL carries an API key (api_key=…): remove it; a signed URL is public and must not hold the key',
    );
    expect(withKey.stdout).toBe('');
    const past = await run(
      [cli, 'sign', toSign, '--key-id', key.id, '--expires', '2020-01-01', '--secret', key.signingSecret],
      env(),
    );
    expect(past.code).toBe(2);
    expect(past.stderr).toContain('--expires must be in the future');
    const forbidden = await fetch(`http://127.0.0.1:${port}/render/template?template=saas&title=x`, {
      headers: { 'x-api-key': key.key },
    });
    expect(forbidden.status).toBe(403);

    const listed = await run([cli, 'keys', 'list', '--account', account.id], env());
    expect(listed.stdout).toMatch(
      new RegExp(
        `${key.id}\\s+Web\\s+production\\s+cs_production_\\w{4}…\\w{4}\\s+\\S+\\s+\\S+\\s+-\\s+active`,
      ),
    );
    const revoked = await run([cli, 'keys', 'revoke', key.id], env());
    expect(revoked.stdout).toBe(`Revoked key ${key.id} (Web); running servers answer 401 to it at once.\n`);
    expect((await fetch(signedUrl)).status).toBe(401);

    const usage = await run([cli, 'usage', '--account', account.id, '--days', '1', '--json'], env());
    expect(JSON.parse(usage.stdout).accountId).toBe(account.id);
    expect(await stop(child)).toBe(0);
    // Usage is flushed on shutdown.
    const after = await run([cli, 'usage', '--account', account.id, '--days', '1', '--json'], env());
    expect(JSON.parse(after.stdout).total).toMatchObject({ template: 1, error: 1 }); // the 403; a 401 belongs to no account
  }, 90_000); // eight process starts (server and CLI) on a shared 2-core machine

  it('the CLI prints invite links and sets passwords from stdin; the dashboard then signs in', async () => {
    const { child, port } = await startServer();
    const baseUrl = `http://127.0.0.1:${port}`;
    const cli = path.join(root, 'bin/cardshot.js');
    // The first start's invite link opens the set-password page (on this server's port).
    const invite = await fetch(firstInvite.replace(/^http:\/\/127\.0\.0\.1:\d+/, baseUrl));
    expect(invite.status).toBe(200);
    expect(await invite.text()).toContain('admin@localhost');

    const created = await run(
      [cli, 'accounts', 'create', '--name', 'Dash', '--email', 'dash@acme.test', '--plan', 'pro'],
      { ...env(), CARDSHOT_PUBLIC_URL: 'https://cards.acme.test' },
    );
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(
      /Dashboard invite link \(works once, until \S+\):\n\n {2}https:\/\/cards\.acme\.test\/dashboard\/invite\?token=csinv_[\w-]{32}\n/,
    );

    const short = await run([cli, 'accounts', 'set-password', 'dash@acme.test'], env(), 'short\n');
    expect(short.code).toBe(1);
    expect(short.stderr).toBe('cardshot accounts set-password: Password must be at least 10 characters\n');
    const set = await run(
      [cli, 'accounts', 'set-password', 'dash@acme.test'],
      env(),
      'a long passphrase 42\n',
    );
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toContain('Password set for dash@acme.test.');

    const page = await fetch(`${baseUrl}/dashboard/sign-in`);
    const pre = page.headers
      .getSetCookie()
      .find((c) => c.startsWith('cardshot_pre='))!
      .split(';')[0]!;
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())![1]!;
    const signIn = await fetch(`${baseUrl}/dashboard/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: pre, origin: baseUrl },
      body: new URLSearchParams({ _csrf: csrf, email: 'dash@acme.test', password: 'a long passphrase 42' }),
    });
    expect(signIn.status).toBe(303);
    const session = signIn.headers
      .getSetCookie()
      .find((c) => c.startsWith('cardshot_session='))!
      .split(';')[0]!;
    const overview = await fetch(`${baseUrl}/dashboard`, { headers: { cookie: session } });
    expect(overview.status).toBe(200);
    expect(await overview.text()).toContain('dash@acme.test');
    expect(await stop(child)).toBe(0);
  }, 90_000); // a server and three CLI processes; other suites start servers and browsers meanwhile

  it('refuses to start with a bad setting, naming the variable', async () => {
    const r = await run([path.join(root, 'dist/src/main.js')], { PORT: 'eighty' });
    expect(r.code).toBe(78);
    expect(r.stderr).toContain('PORT must be a whole number from 0 to 65535 (got "eighty")');
  });
});

describe('npx cardshot render', () => {
  const cli = path.join(root, 'bin/cardshot.js');

  it('renders one card to a file without a server', async () => {
    const r = await run([
      cli,
      'render',
      'saas',
      '--title',
      'Local render',
      '--brand',
      'Acme',
      '-o',
      'one.png',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^one\.png: \d+ bytes, 1200×630, \d+ ms\n$/);
    expect(pngSize(await readFile(path.join(dir, 'one.png')))).toEqual({ width: 1200, height: 630 });
  });

  it('explains a bad field and exits 1', async () => {
    const r = await run([cli, 'render', 'blog', '-o', 'none.png']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('cardshot render: title is required\n');
  });

  it('renders a CSV batch, reports failed rows with reasons, exits 1', async () => {
    await writeFile(
      path.join(dir, 'cards.csv'),
      'template,title,subtitle,filename\nblog,First post,Hello,first\nblog,,No title,\nproduct,"Chair, oak",Solid wood,\n',
    );
    const r = await run([cli, 'render', '--batch', 'cards.csv', '--out-dir', 'out']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /^Rendered 2 of 3 cards into out\/ in \d+\.\d s; 1 failed:\n {2}row 2: title must not be empty\n$/,
    );
    expect(pngSize(await readFile(path.join(dir, 'out/first.png')))).toEqual({ width: 1200, height: 630 });
    expect(pngSize(await readFile(path.join(dir, 'out/003-chair-oak.png')))).toEqual({
      width: 1200,
      height: 630,
    });
  });

  it('renders a JSON batch and exits 0 when every row works', async () => {
    await writeFile(
      path.join(dir, 'cards.json'),
      JSON.stringify([
        { template: 'blog', title: 'A' },
        { template: 'saas', title: 'B', brand: 'Acme' },
        { template: 'blog', title: 'C', format: 'webp', quality: 70, filename: 'c.png' },
      ]),
    );
    const r = await run([cli, 'render', '--batch', 'cards.json', '--out-dir', 'json-out']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Rendered 3 of 3 cards into json-out\/ in \d+\.\d s\n$/);
    expect((await readdir(path.join(dir, 'json-out'))).sort()).toEqual(['001-a.png', '002-b.png', 'c.webp']);
    // A row's format names its file: WebP bytes under a .webp name, not a .png one.
    const webp = await readFile(path.join(dir, 'json-out/c.webp'));
    expect(webp.subarray(0, 4).toString('latin1')).toBe('RIFF');
    expect(webp.subarray(8, 12).toString('latin1')).toBe('WEBP');
  });
});

describe('npx cardshot on PostgreSQL', async () => {
  const url = await postgresTestUrl();
  const schema = uniqueSchema();
  afterAll(async () => {
    if (url) await dropSchema(url, schema);
  });

  it.skipIf(!url)(
    'manages accounts and keys in DATABASE_URL, and refuses a node with another secret',
    async () => {
      const cli = path.join(root, 'bin/cardshot.js');
      const env = {
        DATABASE_URL: url!,
        CARDSHOT_DATABASE_SCHEMA: schema,
        CARDSHOT_SECRET: 'a'.repeat(40),
        CARDSHOT_DATA_DIR: path.join(dir, 'pg-data'),
      };
      const created = await run(
        [cli, 'accounts', 'create', '--name', 'PG', '--email', 'pg@acme.test', '--plan', 'pro', '--json'],
        env,
      );
      expect(created.code, created.stderr).toBe(0);
      const account = JSON.parse(created.stdout);
      const key = await run(
        [cli, 'keys', 'create', '--account', account.id, '--name', 'k', '--environment', 'staging', '--json'],
        env,
      );
      expect(key.code, key.stderr).toBe(0);
      const listed = JSON.parse(
        (await run([cli, 'keys', 'list', '--account', account.id, '--json'], env)).stdout,
      );
      expect(listed.keys).toEqual([
        expect.objectContaining({ id: JSON.parse(key.stdout).id, status: 'active' }),
      ]);
      expect(JSON.stringify(listed)).not.toContain(JSON.parse(key.stdout).key);

      // Rotating a key that expires in an hour with a month's grace: both keep the hour, and
      // the output says so rather than promising the month.
      const short = await run(
        [
          cli,
          'keys',
          'create',
          '--account',
          account.id,
          '--name',
          's',
          '--environment',
          'ci',
          '--expires',
          '1h',
          '--json',
        ],
        env,
      );
      const shortId = JSON.parse(short.stdout).id;
      const rotated = await run([cli, 'keys', 'rotate', shortId, '--grace', '30d'], env);
      expect(rotated.code, rotated.stderr).toBe(0);
      expect(rotated.stdout).toMatch(/The grace period ends early: the old key expires at \S+ anyway\./);
      expect(rotated.stdout).toMatch(
        /The new key keeps the old one's expiry, \S+; create a key without --expires/,
      );

      const other = await run([cli, 'accounts', 'list'], { ...env, CARDSHOT_SECRET: 'b'.repeat(40) });
      expect(other.code).toBe(78);
      expect(other.stderr).toContain('CARDSHOT_SECRET is not the secret this database was set up with');
    },
    // Seven CLI processes, each opening PostgreSQL; other suites start servers and browsers meanwhile.
    90_000,
  );
});
