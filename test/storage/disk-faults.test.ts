// @module-tag process
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { report } from '../../src/cli/admin.js';
import { openStore } from '../../src/storage/open.js';
import type { Store, UsageRow } from '../../src/storage/store.js';
import { createUsageRecorder } from '../../src/usage/recorder.js';
import { capturedLogger } from '../helpers/logs.js';
import { cleanEnv, runNode } from '../helpers/node-process.js';
import { mountSmallDisk, type SmallDisk, smallDiskAvailable } from '../helpers/small-disk.js';

// The SQLite store on a real full (tmpfs) disk: writes fail with the real cause.
let disk: SmallDisk | undefined;
let store: Store | undefined;
afterEach(async () => {
  await store?.close().catch(() => {});
  await disk?.close();
  store = undefined;
  disk = undefined;
});

const rows = (accountId: string, n: number): UsageRow[] =>
  Array.from({ length: n }, (_, i) => ({
    accountId,
    day: `2026-01-${String((i % 28) + 1).padStart(2, '0')}`,
    kind: (['template', 'screenshot', 'cache_hit', 'error'] as const)[i % 4]!,
    count: 1,
  }));

describe.skipIf(!smallDiskAvailable)('SQLite on a full disk', () => {
  it('a usage write fails naming the full disk (not "cannot rollback - no transaction is active")', async () => {
    disk = await mountSmallDisk(4 * 1024 * 1024);
    store = await openStore({ databaseUrl: '', dataDir: disk.dir, databaseSchema: 'public' });
    for (let a = 0; a < 5; a++) {
      await store.createAccount({
        id: `acct_${a}`,
        name: 'A',
        email: `a${a}@example.com`,
        plan: 'free',
        createdAt: 1,
      });
    }
    const free = await disk.fill();
    let error: unknown;
    for (let a = 0; a < 5 && error === undefined; a++) {
      await store.addUsage(rows(`acct_${a}`, 2000)).catch((err: unknown) => {
        error = err;
      });
    }
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).not.toMatch(/cannot rollback/);
    expect((error as { code?: string }).code).toBe('SQLITE_FULL');
    // The CLI's report of that same error (a `keys create` while the server holds the
    // database open, so it opens fine and the insert fails) is one line, not a raw stack.
    const printed: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      printed.push(String(chunk));
      return true;
    });
    let code: number;
    try {
      code = report('keys create', 'help', error);
    } finally {
      spy.mockRestore();
    }
    expect(code).toBe(1);
    expect(printed).toEqual([
      'cardshot keys create: the disk holding the SQLite database is full (SQLITE_FULL)\n',
    ]);
    // The usage recorder's log says so in words, and keeps the counts for the next try.
    const { log, lines } = capturedLogger();
    const recorder = createUsageRecorder({ store, flushMs: 60_000, log });
    for (let i = 0; i < 3000; i++) recorder.record('acct_1', 'template');
    for (let a = 0; a < 5; a++) for (const r of rows(`acct_${a}`, 500)) recorder.record(r.accountId, r.kind);
    await recorder.flush();
    const warned = lines.find((l) => String(l.msg).startsWith('usage write failed'));
    expect(warned?.msg).toBe(
      'usage write failed: the disk holding the SQLite database is full (SQLITE_FULL); will retry with the next batch',
    );
    // Space back: the same write goes through (the failed one left nothing half-done).
    await free();
    await store.addUsage(rows('acct_0', 10));
    expect((await store.usage('acct_0', '2026-01-01', '2026-01-31')).length).toBeGreaterThan(0);
  });
});

const root = path.resolve(import.meta.dirname, '../..');
const cli = path.join(root, 'dist/src/cli/index.js');

describe.skipIf(!smallDiskAvailable)('the CLI on a full disk', () => {
  it('cardshot keys create prints one line naming the full disk, no stack, exit 69', async () => {
    disk = await mountSmallDisk(4 * 1024 * 1024);
    const env = cleanEnv({ CARDSHOT_DATA_DIR: disk.dir });
    const created = await runNode(
      [
        cli,
        'accounts',
        'create',
        '--name',
        'Full',
        '--email',
        'full@example.com',
        '--plan',
        'free',
        '--json',
      ],
      { cwd: root, env },
    );
    expect(created.code, created.stderr).toBe(0);
    const accountId = JSON.parse(created.stdout).id as string;
    const keysCreate = () =>
      runNode([cli, 'keys', 'create', '--account', accountId, '--name', 'k', '--environment', 'test'], {
        cwd: root,
        env,
      });
    await disk.fill();
    const res = await keysCreate();
    // The database cannot even be opened for writing (SQLite cannot size its -shm file): 69,
    // EX_UNAVAILABLE, as for an unreachable database (a retry once space is freed succeeds).
    expect(res.code, res.stderr).toBe(69);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(
      /^cardshot keys create: CARDSHOT_DATA_DIR: cannot open the SQLite database: the disk holding \S+cardshot\.sqlite is full \(SQLITE_IOERR\w*\)\n$/,
    );
  });
});
