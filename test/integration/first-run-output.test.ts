import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, serveUntilStarted } from '../helpers/node-process.js';

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
});
