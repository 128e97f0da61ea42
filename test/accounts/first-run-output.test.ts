// @module-tag process
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, serveUntilStarted } from '../helpers/node-process.js';
import { dropSchema, postgresTestUrl, uniqueSchema } from '../helpers/services.js';

// The built program, as `npm start` runs it (npm test builds first).
const root = path.resolve(import.meta.dirname, '../..');
const hasScript = existsSync('/usr/bin/script');
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-first-run-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Starts a server on a fresh data dir until it says it is serving; what it printed, then SIGTERM. */
async function firstStart(
  name: string,
  env: Record<string, string>,
  viaTerminal: boolean,
): Promise<{ out: string; dataDir: string; port: number }> {
  const cwd = path.join(dir, name);
  await mkdir(cwd, { recursive: true });
  const dataDir = path.join(cwd, 'data');
  const fullEnv = cleanEnv({
    PORT: '0',
    HOST: '127.0.0.1',
    CARDSHOT_DATA_DIR: dataDir,
    CARDSHOT_CHROMIUM_PATH: path.join(cwd, 'no-chromium'),
    ...env,
  });
  const out = await serveUntilStarted(root, { cwd, env: fullEnv, viaTerminal });
  const port = Number(/(?:"port":|127\.0\.0\.1:)(\d+)/.exec(out)?.[1]);
  return { out, dataDir, port };
}

const KEY = /API key: +(cs_development_[0-9A-Za-z]{28})/;
const pgUrl = await postgresTestUrl();
const schema = uniqueSchema();
afterAll(async () => {
  if (pgUrl) await dropSchema(pgUrl, schema);
});

describe('the first-run key, signing secret and invite link', () => {
  it('go to a 0600 file, not to stdout, when stdout is not a terminal, outside production too (nohup, systemd, docker logs keep it)', async () => {
    for (const nodeEnv of ['development', 'test']) {
      const { out, dataDir, port } = await firstStart(`pipe-${nodeEnv}`, { NODE_ENV: nodeEnv }, false);
      const file = path.join(dataDir, 'first-run.txt');
      expect((await stat(file)).mode & 0o777, nodeEnv).toBe(0o600);
      const banner = await readFile(file, 'utf8');
      expect(banner, nodeEnv).toMatch(KEY);
      expect(banner).toMatch(/Signing secret: cssig_[A-Za-z0-9_-]{43}/);
      expect(banner).toMatch(new RegExp(`http://127\\.0\\.0\\.1:${port}/dashboard/invite\\?token=csinv_`));
      // stdout says where to look, and holds none of it.
      expect(out).toContain('read them once from the file, then delete it');
      expect(out).toContain(JSON.stringify(file).slice(1, -1));
      for (const secret of ['API key:', 'cs_development_', 'cssig_', 'csinv_']) {
        expect(out, `${nodeEnv}: ${secret}`).not.toContain(secret);
      }
    }
  }, 90_000);

  it.skipIf(!hasScript)(
    'are printed on a terminal, and then no file is written',
    async () => {
      const { out, dataDir, port } = await firstStart('tty', { NODE_ENV: 'development' }, true);
      expect(out).toMatch(KEY);
      expect(out).toContain(`http://127.0.0.1:${port}/dashboard/invite?token=csinv_`);
      expect(out).toContain('printed above, once');
      expect(existsSync(path.join(dataDir, 'first-run.txt'))).toBe(false);
    },
    60_000,
  );

  it.skipIf(!pgUrl)(
    'a second first run in the same data dir (SQLite, then an empty PostgreSQL) keeps the first file and writes first-run-2.txt',
    async () => {
      const first = await firstStart('second-first-run', { NODE_ENV: 'production' }, false);
      const firstFile = path.join(first.dataDir, 'first-run.txt');
      const firstBanner = await readFile(firstFile, 'utf8');
      const firstKey = KEY.exec(firstBanner)?.[1];
      expect(firstKey, firstBanner).toBeDefined();

      const again = await firstStart(
        'second-first-run',
        { NODE_ENV: 'production', DATABASE_URL: pgUrl!, CARDSHOT_DATABASE_SCHEMA: schema },
        false,
      );
      // The first key is still there, untouched …
      expect(await readFile(firstFile, 'utf8')).toBe(firstBanner);
      // … and the new one is beside it, as private, and the log names that file.
      const secondFile = path.join(again.dataDir, 'first-run-2.txt');
      expect((await stat(secondFile)).mode & 0o777).toBe(0o600);
      const secondKey = KEY.exec(await readFile(secondFile, 'utf8'))?.[1];
      expect(secondKey).toBeDefined();
      expect(secondKey).not.toBe(firstKey);
      const line = again.out.split('\n').find((l) => l.includes('read them once from the file'));
      expect(JSON.parse(line!).file).toBe(secondFile);
    },
    90_000,
  );

  it('use CARDSHOT_PUBLIC_URL for the invite link, the dashboard and the curl command when it is set', async () => {
    const { out, dataDir, port } = await firstStart(
      'public-url',
      { NODE_ENV: 'production', CARDSHOT_PUBLIC_URL: 'https://cards.example.com/' },
      false,
    );
    const banner = await readFile(path.join(dataDir, 'first-run.txt'), 'utf8');
    expect(banner).toMatch(/^ {2}https:\/\/cards\.example\.com\/dashboard\/invite\?token=csinv_[\w-]{32}$/m);
    expect(banner).toContain('Later: https://cards.example.com/dashboard   (new link:');
    expect(banner).toMatch(
      /curl -sS -H 'x-api-key: cs_development_\w{28}' 'https:\/\/cards\.example\.com\/render\/template\?template=blog&title=Hello%20from%20Cardshot' -o card\.png/,
    );
    expect(banner).not.toContain('127.0.0.1');
    // Where this node listens is still logged as it is.
    expect(out).toContain(`Cardshot is serving on http://127.0.0.1:${port}`);
  }, 60_000);
});
