// @module-tag chromium
// @module-tag process
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { chromiumAvailable } from '../helpers/browser.js';
import { mountSmallDisk, type SmallDisk, smallDiskAvailable } from '../helpers/small-disk.js';

// /readyz tells the truth about faults a plain round trip does not see (issue 20 §4): a
// stopped Chromium, database files that cannot be written, a full data disk. Each leaves the
// node serving cards, so each is `degraded` (200) with the reason, not "ok".
const readyz = async (t: TestApp) => {
  // Results are kept for one second.
  await new Promise((r) => setTimeout(r, 1100));
  const res = await t.inject({ method: 'GET', url: '/readyz', auth: false });
  return { status: res.statusCode, body: res.json() };
};

describe.skipIf(!chromiumAvailable())('readiness with Chromium stopped', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('SIGSTOPped browser: degraded, naming the stopped pid; ok again after SIGCONT', async () => {
    await t.modules.screenshots.warm();
    const pid = t.modules.screenshots.status().browser.pid!;
    expect(pid).toBeGreaterThan(0);
    expect((await readyz(t)).body.checks.browser.status).toBe('ok');
    process.kill(pid, 'SIGSTOP');
    try {
      const r = await readyz(t);
      expect(r.status).toBe(200);
      expect(r.body.status).toBe('degraded');
      expect(r.body.checks.browser).toMatchObject({
        status: 'fail',
        critical: false,
        detail: `Chromium (pid ${pid}) is stopped (SIGSTOP or a debugger): screenshots answer 503/504 until it runs again`,
      });
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    const r = await readyz(t);
    expect(r.body.checks.browser.status).toBe('ok');
  });
});

describe('readiness with the database file unwritable', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it.skipIf(process.getuid?.() !== 0)(
    'an immutable SQLite file (chattr +i): degraded, naming the file',
    async () => {
      expect((await readyz(t)).body.status).toBe('ok');
      const file = path.join(t.config.dataDir, 'cardshot.sqlite');
      execFileSync('chattr', ['+i', file]);
      try {
        const r = await readyz(t);
        expect(r.status).toBe(200);
        expect(r.body.status).toBe('degraded');
        expect(r.body.checks.storage.status).toBe('fail');
        expect(r.body.checks.storage.detail).toBe(
          `${file} cannot be written: operation not permitted (EPERM)`,
        );
        expect(r.body.checks.database.status).toBe('ok');
      } finally {
        execFileSync('chattr', ['-i', file]);
      }
      expect((await readyz(t)).body.status).toBe('ok');
    },
  );

  it.skipIf(process.getuid?.() !== 0)(
    'a data dir that cannot be written (chattr +i): degraded, naming it',
    async () => {
      const dir = t.config.dataDir;
      execFileSync('chattr', ['+i', dir]);
      try {
        const r = await readyz(t);
        expect(r.status).toBe(200);
        expect(r.body.status).toBe('degraded');
        expect(r.body.checks.storage.detail).toBe(
          `${dir} cannot be written: operation not permitted (EPERM)`,
        );
      } finally {
        execFileSync('chattr', ['-i', dir]);
      }
    },
  );
});

describe.skipIf(!smallDiskAvailable)('readiness with the data disk full', () => {
  let t: TestApp;
  let disk: SmallDisk;
  beforeAll(async () => {
    disk = await mountSmallDisk(16 * 1024 * 1024);
    t = await startTestApp({ dataDir: disk.dir, diskMinFreeBytes: 2 * 1024 * 1024 });
  });
  afterAll(async () => {
    await t?.close();
    await disk?.close();
  });

  it('full: degraded with the free space and the floor; cards still 200; ok once space is back', async () => {
    expect((await readyz(t)).body.status).toBe('ok');
    const free = await disk.fill();
    try {
      const r = await readyz(t);
      expect(r.status).toBe(200);
      expect(r.body.status).toBe('degraded');
      expect(r.body.checks.storage.detail).toMatch(
        /^the data disk has 0\.\d MiB free, under the floor of 2\.0 MiB \(CARDSHOT_DISK_MIN_FREE_BYTES\): usage, keys and sessions may fail to be written$/,
      );
      const card = await t.inject({ method: 'GET', url: '/render/template?template=blog&title=Full%20disk' });
      expect(card.statusCode).toBe(200);
    } finally {
      await free();
    }
    expect((await readyz(t)).body.status).toBe('ok');
  });
});
