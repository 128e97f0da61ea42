import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openAccounts } from '../../src/accounts/open.js';
import { TEMPLATE_NAMES } from '../../src/render/template/registry.js';
import { loadConfig } from '../../src/settings.js';
import { capturedLogger } from '../helpers/logs.js';
import { dropSchema, postgresTestUrl, uniqueSchema } from '../helpers/services.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function dataDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-secret-'));
  dirs.push(dir);
  return dir;
}

const pgUrl = await postgresTestUrl();
const schemas: string[] = [];
afterAll(async () => {
  if (pgUrl) for (const s of schemas) await dropSchema(pgUrl, s);
});

/** The settings of one deployment: its database, in the data dir (SQLite) or not (PostgreSQL). */
const databases: Array<[string, () => Record<string, string>]> = [['SQLite', () => ({})]];
if (pgUrl) {
  databases.push([
    'PostgreSQL',
    () => {
      const schema = uniqueSchema();
      schemas.push(schema);
      return { databaseUrl: pgUrl, databaseSchema: schema };
    },
  ]);
}

/** What a start (or any CLI command) does first: open the database with the server secret. */
async function start(dir: string, db: Record<string, string>): Promise<string> {
  const config = loadConfig({ dataDir: dir, nodeEnv: 'test', ...db }, {});
  try {
    const mod = await openAccounts(config, capturedLogger().log, { templates: TEMPLATE_NAMES });
    await mod.close();
    return 'started';
  } catch (err) {
    return (err as Error).message;
  }
}

const lost = (file: string) =>
  `${file} is missing, and the database was set up with the secret that file held (the existing keys were hashed with it): restore the file from your backup, or set CARDSHOT_SECRET to its value`;

describe.each(databases)('server secret file, %s', (_, settings) => {
  it('is generated on the first start and used by the next', async () => {
    const db = settings();
    const dir = await dataDir();
    expect(await start(dir, db)).toBe('started');
    expect(existsSync(path.join(dir, 'secret'))).toBe(true);
    expect(await start(dir, db)).toBe('started');
  });

  // Regression: with the file gone and CARDSHOT_SECRET unset, a new secret was generated, the
  // start was refused blaming CARDSHOT_SECRET, and the new file stayed behind (so the next
  // start, or a backup, took it for the real one).
  it('when lost, refuses the start naming the missing file, and writes no new one', async () => {
    const db = settings();
    const first = await dataDir();
    expect(await start(first, db)).toBe('started');
    await rm(path.join(first, 'secret'));
    // With PostgreSQL the usual way to lose it: a new, empty data dir (a container without its volume).
    const dir = db.databaseUrl ? await dataDir() : first;
    const file = path.join(dir, 'secret');
    expect(await start(dir, db)).toBe(lost(file));
    expect(existsSync(file)).toBe(false);
    expect((await readdir(dir)).filter((f) => f.startsWith('secret'))).toEqual([]);
    // The same answer every time, not a refusal about CARDSHOT_SECRET on the second start.
    expect(await start(dir, db)).toBe(lost(file));
  });
});
