import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHOT_OPTIONS } from '../../src/render/screenshot/option-table.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { chromiumAvailable } from '../helpers/browser.js';
import {
  BASIC,
  type CredentialSite,
  SESSION,
  startCredentialSite,
  TOKEN,
} from '../helpers/credential-site.js';
import { csrfOf, type DashClient, signedIn } from '../helpers/dashboard.js';
import { expectError } from '../helpers/errors.js';
import { pixelAt, pngSize } from '../helpers/png.js';

// The screenshot playground's credentials (issue 29 §2) over HTTP: a control for every option of
// the table, the signed-in fieldset's inputs that no form submission can carry, the signing
// call that gets names only, and the capture call that carries the values to the render command
// (with Chromium: a page behind a sign-in captured as PNG, PDF and JSON, its secrets kept
// nowhere). The browser side is shot-playground-browser.test.ts.

let t: TestApp;
let c: DashClient;

beforeAll(async () => {
  t = await startTestApp();
  c = await signedIn(t);
});
afterAll(async () => {
  await t?.close();
});

async function userOn(plan: string): Promise<DashClient> {
  const a = await t.modules.accounts.accounts.createAccount({
    name: plan,
    email: `${plan}-${Math.random().toString(36).slice(2)}@shots.test`,
    plan,
  });
  await t.modules.accounts.accounts.createKey({ accountId: a.id, name: 'k', environment: 'production' });
  return signedIn(t, a.email);
}

describe('screenshot playground: every option, credentials never in a URL', () => {
  it('has a control for every option of the table; the credential inputs have no name and show only with script', async () => {
    const body = (await c.get('/dashboard/playground/screenshot')).body;
    for (const spec of SHOT_OPTIONS) {
      if (spec.type === 'credential') continue;
      expect(body, spec.name).toMatch(
        new RegExp(`<(input|select|textarea) id="shot-${spec.name}" name="${spec.name}"`),
      );
    }
    const fieldset =
      /<fieldset class="options credentials" id="shot-credentials" data-credentials hidden>[\s\S]*?<\/fieldset>/.exec(
        body,
      )?.[0] ?? '';
    expect(fieldset).toContain('<div class="cred-rows" data-rows="header">');
    expect(fieldset).toContain('<div class="cred-rows" data-rows="cookie">');
    expect(fieldset).toContain('data-credential="basicAuth.username"');
    expect(fieldset).toContain(
      'type="password" aria-label="Basic auth password" placeholder="password" autocomplete="off" maxlength="256" data-credential="basicAuth.password"',
    );
    expect(fieldset).toContain('data-credential="userAgent"');
    // Nothing in it is a named form field: the form's GET (without script) cannot carry one.
    expect(fieldset).not.toMatch(/\sname=/);
    expect(fieldset.match(/<input /g)?.length).toBe(7);
    expect(fieldset.match(/autocomplete="off"/g)?.length).toBe(7);
  });

  it('the signing call gets names only and answers a POST curl with the values left out, and no signed URL', async () => {
    const csrf = csrfOf((await c.get('/dashboard/playground/screenshot')).body);
    const res = await t.app.inject({
      method: 'POST',
      url: '/dashboard/playground/screenshot/preview',
      cookies: c.cookies,
      headers: { 'x-csrf-token': csrf },
      payload: {
        url: 'https://example.com/account',
        format: 'pdf',
        credentialNames: {
          headers: ['X-Token', 'bad name'],
          cookies: ['session'],
          basicAuth: true,
          userAgent: false,
        },
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    const answer = res.json();
    expect(answer.signedUrl).toBe('');
    expect(answer.signedHint).toContain('No signed URL: a URL cannot carry headers, cookies or a password.');
    expect(answer.curl).toBe(
      [
        `curl -sS -H "x-api-key: $CARDSHOT_KEY" -H 'Content-Type: application/json' \\`,
        "  'http://localhost/render/url' -o page.pdf --data-binary @- <<'JSON'",
        JSON.stringify(
          {
            url: 'https://example.com/account',
            format: 'pdf',
            headers: { 'X-Token': '…' },
            cookies: [{ name: 'session', value: '…' }],
            basicAuth: { username: '…', password: '…' },
          },
          null,
          2,
        ),
        'JSON',
      ].join('\n'),
    );
  });

  it('the capture call needs the CSRF header and a session, and answers the API’s 400s as JSON', async () => {
    const csrf = csrfOf((await c.get('/dashboard/playground/screenshot')).body);
    const call = (headers: Record<string, string>, payload: object, cookies = c.cookies) =>
      t.app.inject({
        method: 'POST',
        url: '/dashboard/playground/screenshot/capture',
        cookies,
        headers,
        payload,
      });
    await expectError(
      await call({}, { url: 'https://example.com/', headers: { 'X-Token': 'tok-SECRET-1' } }),
      403,
      expect.stringContaining('This form has expired'),
    );
    await expectError(
      await call({ 'x-csrf-token': csrf }, { url: 'https://example.com/' }, {}),
      401,
      'Your session has ended; sign in again',
    );
    // The API's own messages, naming the header, never its value.
    await expectError(
      await call(
        { 'x-csrf-token': csrf },
        { url: 'https://example.com/', headers: { Host: 'tok-SECRET-2' } },
      ),
      400,
      'headers: "Host" cannot be set (it belongs to the connection, not the page)',
    );
    await expectError(
      await call({ 'x-csrf-token': csrf }, { url: 'https://example.com/', cookies: 'session=tok-SECRET-3' }),
      400,
      expect.stringContaining('cookies'),
    );
    await expectError(
      await call(
        { 'x-csrf-token': csrf },
        { url: 'ftp://example.com/', basicAuth: { username: 'a', password: 'b' } },
      ),
      400,
      'url must be an absolute http or https URL (for example https://example.com/)',
    );
    // The API's body bound: 1 MB of cookies is a 413, as from POST /render/url.
    const cookies = Array.from({ length: 1000 }, (_, i) => ({ name: `c${i}`, value: 'v'.repeat(1000) }));
    await expectError(
      await call({ 'x-csrf-token': csrf }, { url: 'https://example.com/', cookies }),
      413,
      'Request body must be at most 160 KiB',
    );
    expect(JSON.stringify(t.logs)).not.toMatch(/tok-SECRET/);
  });

  it('refuses on the plan what the API refuses (403 for a viewport outside it)', async () => {
    const free = await userOn('free');
    const csrf = csrfOf((await free.get('/dashboard/playground/screenshot')).body);
    await expectError(
      await t.app.inject({
        method: 'POST',
        url: '/dashboard/playground/screenshot/capture',
        cookies: free.cookies,
        headers: { 'x-csrf-token': csrf },
        payload: { url: 'https://example.com/', viewport: 'mobile', userAgent: 'x' },
      }),
      403,
      'Viewport "mobile" is not available on your plan; use og',
    );
  });
});

describe.skipIf(!chromiumAvailable())('screenshot playground capture with credentials (Chromium)', () => {
  let site: CredentialSite;
  let app: TestApp;
  let client: DashClient;
  const creds = {
    headers: { 'X-Token': TOKEN },
    cookies: [{ name: 'session', value: SESSION }],
    basicAuth: BASIC,
  };
  beforeAll(async () => {
    site = await startCredentialSite();
    app = await startTestApp({ allowPrivateHosts: [site.hostPort, site.other.hostPort] });
    client = await signedIn(app);
  });
  afterAll(async () => {
    await app?.close();
    await site?.close();
  });
  const capture = async (payload: object) => {
    const csrf = csrfOf((await client.get('/dashboard/playground/screenshot')).body);
    return app.app.inject({
      method: 'POST',
      url: '/dashboard/playground/screenshot/capture',
      cookies: client.cookies,
      headers: { 'x-csrf-token': csrf },
      payload,
    });
  };

  it('captures the page signed in as an image, a PDF and JSON; none of the secrets is stored or logged', {
    tags: ['chromium'],
    timeout: 90_000,
  }, async () => {
    const signedOut = await capture({ url: `${site.url}/account` });
    expect(signedOut.statusCode).toBe(200);
    expect(signedOut.headers['x-target-status']).toBe('401');
    expect(await pixelAt(signedOut.rawPayload, 10, 10)).toEqual([255, 0, 0, 255]);

    const png = await capture({ url: `${site.url}/account`, viewport: 'desktop', ...creds });
    expect(png.statusCode, png.body.slice(0, 200)).toBe(200);
    expect(png.headers['content-type']).toBe('image/png');
    expect(png.headers['x-target-status']).toBe('200');
    expect(png.headers['x-cache']).toBe('MISS');
    expect(png.headers['cache-control']).toBe('no-store');
    expect(pngSize(png.rawPayload)).toEqual({ width: 1280, height: 800 });
    expect(await pixelAt(png.rawPayload, 10, 10)).toEqual([0, 255, 0, 255]);

    const pdf = await capture({ url: `${site.url}/account`, format: 'pdf', ...creds });
    expect(pdf.statusCode, pdf.body.slice(0, 200)).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.headers['x-pdf-pages']).toBe('1');
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');

    const json = await capture({
      url: `${site.url}/account`,
      viewport: 'desktop',
      response: 'json',
      ...creds,
    });
    expect(json.statusCode, json.body).toBe(200);
    expect(json.headers['content-type']).toBe('application/json; charset=utf-8');
    const answer = json.json();
    // The same image as the PNG answer above: its ETag.
    expect(answer.image.etag).toBe(png.headers.etag);
    expect(answer.image).toMatchObject({ url: null, contentType: 'image/png', width: 1280, height: 800 });
    expect(answer.page).toMatchObject({ status: 200, finalUrl: `${site.url}/account` });

    // Counted as the account's captures, like the API's.
    await app.modules.usage.flush();
    const [today] = (await app.modules.accounts.accounts.usage(app.account.id, 1)).slice(-1);
    expect(today!.counts.screenshot).toBeGreaterThanOrEqual(3);

    // Nowhere on the server: not the logs, not a file of the data dir (the SQLite database, its
    // WAL, the capture cache).
    const secrets = [
      TOKEN,
      SESSION,
      BASIC.password,
      Buffer.from(`${BASIC.username}:${BASIC.password}`).toString('base64'),
    ];
    const logs = JSON.stringify(app.logs);
    for (const secret of secrets) expect(logs).not.toContain(secret);
    for (const file of await filesUnder(app.config.dataDir)) {
      // A cache file being written may be renamed away meanwhile: what is left is read.
      const bytes = await readFile(file).catch(() => Buffer.alloc(0));
      for (const secret of secrets) expect(bytes.includes(secret), `${secret} in ${file}`).toBe(false);
    }
  });
});

/** Every file under `dir`, recursively. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}
