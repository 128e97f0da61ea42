import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runUnfurl } from '../../src/cli/commands/unfurl.js';
import type { ShotIo } from '../../src/cli/shot/io.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startUnfurlSite, type UnfurlSite } from '../helpers/unfurl-site.js';

// `npx cardshot unfurl URL` in-process against a real server over HTTP and the fixture site on
// 127.0.0.1: what a CI log shows, and the exit status at each --fail-on level.

let t: TestApp;
let server: string;
let site: UnfurlSite;

beforeAll(async () => {
  site = await startUnfurlSite();
  t = await startTestApp({ allowPrivateHosts: site.hostPorts }, { unfurlCa: site.ca });
  server = await t.listen();
}, 30_000);
afterAll(async () => {
  await t?.close();
  await site?.close();
});

const unfurl = async (argv: string[], key = t.key.key) => {
  const out: string[] = [];
  const err: string[] = [];
  const io: ShotIo = {
    stdout: { isTTY: false, write: (d) => out.push(String(d)) },
    stderr: { isTTY: false, write: (d) => err.push(String(d)) },
    readStdin: async () => '',
  };
  const code = await runUnfurl([...argv, '--server', server, '--api-key', key], io);
  return { code, stdout: out.join(''), stderr: err.join('') };
};

describe('cardshot unfurl', () => {
  it('prints each network’s card for a clean page and exits 0', async () => {
    const r = await unfurl([`${site.url}/clean`]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      `${site.url}/clean\n  HTTP 200\n\nX         large image · summary_large_image\n`,
    );
    expect(r.stdout).toContain('  title        Launch week: five new templates\n');
    expect(r.stdout).toContain('  image        1200×630 in 2:1\n');
    expect(r.stdout).not.toContain('Fixes');
    expect(r.stdout.endsWith('\n0 errors, 0 warnings, 0 notes\n')).toBe(true);
  });

  it('exits 1 on an error, with the tag to paste', async () => {
    const r = await unfurl([`${site.url}/no-image`]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('  ✗ error   No og:image: the card has no picture\n');
    // The fix names a card of the page's title, signed with the key that asked: ready to paste.
    expect(r.stdout).toMatch(
      /\nFixes\n {2}✗ og_image_missing \(every network\)\n {6}<meta property="og:image" content="http:\/\/127\.0\.0\.1:\d+\/render\/template\?template=blog&amp;title=Launch%20week%3A%20five%20new%20templates&amp;kid=key_\w+&amp;exp=\d+&amp;sig=[\w-]+">\n/,
    );
    expect(r.stdout.endsWith('\n1 error, 0 warnings, 0 notes\n')).toBe(true);
    // …and it draws: the signed URL renders the card without a key.
    const signed = /content="([^"]+)"/.exec(r.stdout)![1]!.replace(/&amp;/g, '&');
    const card = await fetch(signed);
    expect([card.status, card.headers.get('content-type')]).toEqual([200, 'image/png']);
  });

  it('lets warnings pass by default and fails on them with --fail-on warning', async () => {
    const url = `${site.url}/no-twitter-card`;
    expect((await unfurl([url])).code).toBe(0);
    const strict = await unfurl([url, '--fail-on', 'warning']);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain('  ! twitter_card_missing (x, slack, discord, telegram)\n');
  });

  it('prints the server’s report with --json', async () => {
    const r = await unfurl([`${site.url}/summary-card`, '--json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.summary).toEqual({ errors: 0, warnings: 1, infos: 0 });
    expect(report.problems[0].code).toBe('twitter_card_summary');
  });

  it('exits 2 for a command line that cannot work, 1 for a refusal', async () => {
    const none = await unfurl([]);
    expect([none.code, none.stderr.split('\n')[0]]).toEqual([
      2,
      'cardshot unfurl: unfurl needs the URL to check',
    ]);
    const level = await unfurl(['https://example.com/', '--fail-on', 'never']);
    expect([level.code, level.stderr.split('\n')[0]]).toEqual([
      2,
      'cardshot unfurl: --fail-on must be one of: error, warning, info',
    ]);
    const key = await unfurl([`${site.url}/clean`], 'cs_test_nope');
    expect(key.code).toBe(1);
    expect(key.stderr).toMatch(/^cardshot unfurl: Missing or invalid API key \(HTTP 401, req_\w+\)\n$/);
    const local = await unfurl(['http://127.0.0.1:1/']);
    expect(local.code).toBe(1);
    expect(local.stderr).toMatch(/^cardshot unfurl: url points to an address that is not allowed \(HTTP 400/);
  });
});
