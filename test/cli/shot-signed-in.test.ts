// @module-tag chromium
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runShot } from '../../src/cli/commands/shot.js';
import type { ShotIo } from '../../src/cli/shot/io.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { chromiumAvailable } from '../helpers/browser.js';
import {
  BASIC,
  type CredentialSite,
  SESSION,
  startCredentialSite,
  TOKEN,
} from '../helpers/credential-site.js';
import { type PageServer, startPageServer } from '../helpers/pages.js';
import { readPdf } from '../helpers/pdf-pages.js';

// `npx cardshot shot` with issue 29's flags, in-process against the real server and Chromium: a
// page behind a sign-in printed as a PDF through POST, and --response json written as a file.

/** The command's streams, recorded. */
function recorder() {
  const out: string[] = [];
  const err: string[] = [];
  const io: ShotIo = {
    stdout: { isTTY: false, write: (d) => out.push(String(d)) },
    stderr: { isTTY: false, write: (d) => err.push(String(d)) },
    readStdin: async () => '',
  };
  return { io, stdout: () => out.join(''), stderr: () => err.join('') };
}

describe.runIf(chromiumAvailable())('cardshot shot signed in, as a PDF and as JSON', () => {
  let t: TestApp;
  let pages: PageServer;
  let site: CredentialSite;
  let server: string;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-shot-'));
    pages = await startPageServer();
    site = await startCredentialSite();
    t = await startTestApp({ allowPrivateHosts: [pages.hostPort, site.hostPort, site.other.hostPort] });
    server = await t.listen();
  });
  afterAll(async () => {
    await t?.close();
    await pages?.close();
    await site?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const shot = (argv: string[], rec = recorder()) =>
    runShot([...argv, '--server', server, '--api-key', t.key.key], rec.io).then((code) => ({ code, ...rec }));

  it('--pdf with --header, --cookie and --basic-auth: the signed-in page as a PDF, sent as a POST (issue 29)', async () => {
    const file = path.join(dir, 'account.pdf');
    const args = ['--pdf', '--header', `X-Token: ${TOKEN}`, '--cookie', `session=${SESSION}`];
    const r = await shot([
      `${site.url}/account`,
      ...args,
      '--basic-auth',
      `${BASIC.username}:${BASIC.password}`,
      '-o',
      file,
    ]);
    expect(r.code, r.stderr()).toBe(0);
    expect(r.stdout()).toMatch(
      new RegExp(`^${file.replace(/[.]/g, '\\.')}: PDF, [\\d.]+ KB in [\\d.]+ s \\(MISS\\)\\n$`),
    );
    const { info } = await readPdf(await readFile(file));
    expect(info.Pages).toBe('1');
    // Signed in: the site saw every credential, through POST /render/url.
    expect(site.seen.get('/account')?.at(-1)?.['x-token']).toBe(TOKEN);
    const posts = t.logs.filter((l) => l.route === '/render/url' && l.method === 'POST');
    expect(posts.length).toBeGreaterThan(0);
    // Without them the page answers 401: the command says so and exits 1.
    const out = await shot([`${site.url}/account`, '--pdf', '-o', path.join(dir, 'out.pdf')]);
    expect(out.code).toBe(1);
    expect(out.stderr()).toContain('the page answered HTTP 401');
  }, 90_000);

  it('--response json writes the page facts to <host>.json', async () => {
    // -o naming a folder: the file inside it is named from the host, .json for a JSON answer.
    const r = await shot([`${pages.url}/split`, '--response', 'json', '--locale', 'de-DE', '-o', `${dir}/`]);
    expect(r.code, r.stderr()).toBe(0);
    const file = path.join(dir, '127.0.0.1.json');
    expect(r.stdout()).toMatch(
      new RegExp(`^${file.replace(/[.]/g, '\\.')}: JSON, [\\d.]+ K?B in [\\d.]+ s \\((MISS|HIT)\\)\\n$`),
    );
    const answer = JSON.parse(await readFile(file, 'utf8'));
    expect(answer.image).toMatchObject({ contentType: 'image/png', width: 1200, height: 630 });
    expect(answer.page.status).toBe(200);
  }, 60_000);
});
