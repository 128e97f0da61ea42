import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Store, UsageRow } from '../../src/storage/store.js';
import { createUsageRecorder } from '../../src/usage/recorder.js';
import { capturedLogger } from '../helpers/logs.js';

// The database side is a stand-in here: a write that never answers and one that fails are the
// faults (the process test in shutdown.test.ts does the same with a real PostgreSQL behind a
// proxy that stops passing bytes).
let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'cardshot-spill-'));
  file = path.join(dir, 'usage-pending.json');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const hung = { addUsage: () => new Promise<void>(() => {}) } as unknown as Store;
const failing = {
  addUsage: () => Promise.reject(new Error('SQLITE_FULL: database or disk is full')),
} as unknown as Store;
function working() {
  const written: UsageRow[] = [];
  const store = {
    addUsage: async (rows: readonly UsageRow[]) => {
      written.push(...rows.map((r) => ({ ...r })));
    },
  } as unknown as Store;
  return { store, written };
}

it('a database that does not answer at close: close() returns after its time-out and the counts are saved, then written by the next recorder', async () => {
  const { log, lines } = capturedLogger();
  const rec = createUsageRecorder({
    store: hung,
    flushMs: 60_000,
    log,
    spillFile: file,
    closeTimeoutMs: 200,
  });
  rec.record('acc_a', 'template', 3);
  rec.record('acc_b', 'screenshot');
  // One batch already on its way (and never answered) when the stop comes.
  void rec.flush();
  rec.record('acc_a', 'template', 2);
  const t0 = performance.now();
  await rec.close();
  expect(performance.now() - t0).toBeLessThan(2000);
  expect(existsSync(file)).toBe(true);
  expect(lines.some((l) => l.msg === 'usage not written yet: saved for the next start to write')).toBe(true);

  const next = working();
  const rec2 = createUsageRecorder({ store: next.store, flushMs: 60_000, log, spillFile: file });
  expect(existsSync(file)).toBe(false);
  await rec2.close();
  const total = (account: string, kind: string) =>
    next.written.filter((r) => r.accountId === account && r.kind === kind).reduce((n, r) => n + r.count, 0);
  expect(total('acc_a', 'template')).toBe(5);
  expect(total('acc_b', 'screenshot')).toBe(1);
  expect(existsSync(file)).toBe(false);
});

it('a failing write (disk full) at close: saved rather than lost', async () => {
  const { log } = capturedLogger();
  const rec = createUsageRecorder({ store: failing, flushMs: 60_000, log, spillFile: file });
  rec.record('acc_a', 'cache_hit', 28);
  await rec.close();
  expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual([
    expect.objectContaining({ accountId: 'acc_a', kind: 'cache_hit', count: 28 }),
  ]);
});

it('nowhere to save them either: the counts are in the error log line', async () => {
  const { log, lines } = capturedLogger();
  const rec = createUsageRecorder({
    store: failing,
    flushMs: 60_000,
    log,
    spillFile: path.join(dir, 'no-such-dir', 'usage-pending.json'),
  });
  rec.record('acc_a', 'template', 4);
  await rec.close();
  const line = lines.find((l) => String(l.msg).startsWith('usage not written and not saved'));
  expect(line?.msg).toBe('usage not written and not saved: 4 requests were never counted');
  expect(line?.rows).toEqual([expect.objectContaining({ accountId: 'acc_a', count: 4 })]);
});

it('an unreadable saved file is left in place, not counted and not fatal', () => {
  const { log, lines } = capturedLogger();
  writeFileSync(file, '{not json');
  createUsageRecorder({ store: working().store, flushMs: 60_000, log, spillFile: file });
  expect(lines.some((l) => l.msg === 'usage saved by the last stop is unreadable; left in place')).toBe(true);
});
