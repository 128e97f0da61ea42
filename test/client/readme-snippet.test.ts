// @module-tag chromium
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { chromiumAvailable } from '../helpers/browser.js';
import { runNode } from '../helpers/node-process.js';
import { type PageServer, startPageServer } from '../helpers/pages.js';
import { pngSize } from '../helpers/png.js';

// The README's client example, run the way the README says, in the project a newcomer makes
// (`npm init -y`: a CommonJS package), against a test server. It once used top-level await in
// a file that package runs as CommonJS. Only the server's address and the page it screenshots
// are swapped for local ones: tests send traffic to 127.0.0.1 only.

const root = path.resolve(import.meta.dirname, '../..');
const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
const section = readme.split('## From TypeScript or JavaScript')[1]!.split('\n## ')[0]!;

describe.runIf(chromiumAvailable())('the README client example', () => {
  let t: TestApp;
  let pages: PageServer;
  let server: string;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cardshot-readme-client-'));

  beforeAll(async () => {
    pages = await startPageServer();
    t = await startTestApp({ allowPrivateHosts: [pages.hostPort] });
    server = await t.listen();
  });
  afterAll(async () => {
    await t?.close();
    await pages?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs as written in a fresh `npm init -y` project, saved under the name the README gives', async () => {
    const file = /Save this as `([^`]+)`/.exec(section)?.[1];
    expect(file).toBe('card.mjs');
    expect(section).toContain('`npm install ../cardshot`');
    const npm = (args: string[]) => {
      const r = spawnSync('npm', [...args, '--offline', '--no-audit', '--no-fund'], {
        cwd: dir,
        encoding: 'utf8',
      });
      expect(r.status, r.stderr).toBe(0);
    };
    npm(['init', '-y']);
    expect(JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')).type ?? 'commonjs').toBe(
      'commonjs',
    );
    npm(['install', path.relative(dir, root)]);

    const example = /```ts\n([\s\S]*?)```/.exec(section)![1]!;
    const local = example
      .replace("baseUrl: 'http://localhost:3000'", `baseUrl: '${server}'`)
      .replaceAll("'https://example.com/'", `'${pages.url}/split'`);
    expect(local).not.toContain('localhost:3000');
    expect(local).not.toContain('example.com/');
    writeFileSync(path.join(dir, file!), local);

    const r = await runNode([file!], {
      cwd: dir,
      env: { ...process.env, CARDSHOT_KEY: t.key.key, CARDSHOT_SIGNING_SECRET: t.key.signingSecret },
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')).toEqual([
      'image/webp 630 false',
      expect.stringMatching(/^400 bad_request title must not be empty req_\w+ undefined$/),
      '',
    ]);
    expect(pngSize(readFileSync(path.join(dir, 'card.png')))).toEqual({ width: 1200, height: 630 });
  }, 120_000);
});
