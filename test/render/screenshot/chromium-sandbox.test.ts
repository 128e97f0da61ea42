// @module-tag chromium
import { execFileSync } from 'node:child_process';
import { readFileSync, readlinkSync, statSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listProcesses } from '../../../src/render/screenshot/engine/browser/processes.js';
import { settings } from '../../../src/settings.js';
import { expectError } from '../../helpers/errors.js';
import { type NodeProcess, runNode, startNodeProcess } from '../../helpers/node-process.js';
import { type PageServer, startPageServer } from '../../helpers/pages.js';
import { pixelAt, pngSize } from '../../helpers/png.js';

// The built server as an unprivileged user (nobody, when the suite runs as root as in CI):
// Chromium then runs with its own sandbox, which is checked from /proc, not from our logs.
const root = path.resolve(import.meta.dirname, '../../..');
const NOBODY = 65534;
const uid = process.getuid?.() === 0 ? NOBODY : undefined;
let pages: PageServer;
let scratch: string;

beforeAll(async () => {
  pages = await startPageServer();
  scratch = await mkdtemp(path.join(os.tmpdir(), 'cardshot-sandbox-'));
  await chmod(scratch, 0o755);
});
afterAll(async () => {
  await pages?.close();
  await rm(scratch, { recursive: true, force: true });
});

/** A process's arguments, space-separated (Chromium's children rewrite theirs into one string). */
const cmdline = (pid: number) => ` ${readFileSync(`/proc/${pid}/cmdline`, 'latin1').replace(/\0/g, ' ')} `;
const userNamespace = (pid: number) => readlinkSync(`/proc/${pid}/ns/user`);

/** The server's browser process and every live process in its group. */
function browserOf(server: NodeProcess) {
  const all = listProcesses();
  const browser = all.find((p) => p.ppid === server.pid && p.comm.startsWith('chrom'));
  if (!browser) throw new Error('no browser process');
  return { browser, group: all.filter((p) => p.pgid === browser.pgid && p.state !== 'Z') };
}

async function screenshot(server: NodeProcess, query: string) {
  const banner = readFileSync(path.join(server.dataDir, 'first-run.txt'), 'utf8');
  const key = /API key: +(cs_development_[0-9A-Za-z]{28})/.exec(banner)![1]!;
  const url = `${pages.url}/split?${query}`;
  return fetch(`${server.url}/render/url?${new URLSearchParams({ url })}`, { headers: { 'x-api-key': key } });
}

const env = () => ({ NODE_ENV: 'production', CARDSHOT_ALLOW_PRIVATE_HOSTS: pages.hostPort });
type Ready = { checks: { browser: { detail: string } } };
const owner = (pid: number) => statSync(`/proc/${pid}`).uid;
const environ = (pid: number) => readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').filter(Boolean);
/** Settings Chromium must never see: the suite checks its processes' environments for them. */
const SECRETS = {
  CARDSHOT_SECRET: 'c2FuZGJveC10ZXN0LXNlY3JldC0wMTIzNDU2Nzg5YWJjZGVm',
  CARDSHOT_METRICS_TOKEN: 'sandbox-metrics-token-0123456789',
};

/** What every sandboxed capture must show in /proc, whoever the service runs as. */
function expectSandboxed(server: NodeProcess) {
  const { browser, group } = browserOf(server);
  let seen = 0;
  for (const p of group) {
    let facts: { args: string; uid: number; env: string[] };
    try {
      facts = { args: cmdline(p.pid), uid: owner(p.pid), env: environ(p.pid) };
    } catch {
      continue; // a helper process that ended meanwhile
    }
    seen++;
    expect(facts.args).not.toContain(' --no-sandbox ');
    expect(facts.uid).not.toBe(0);
    // Only what Chromium needs: none of the service's settings or secrets.
    const names = facts.env.map((e) => e.slice(0, e.indexOf('=')));
    const leaked = names.filter(
      (n) => n.startsWith('CARDSHOT_') || n === 'DATABASE_URL' || n === 'REDIS_URL',
    );
    expect(leaked).toEqual([]);
  }
  expect(seen).toBeGreaterThan(2);
  // Read once per process: a spare renderer may end between the listing and the read.
  const renderers = group.flatMap((p) => {
    try {
      return cmdline(p.pid).includes(' --type=renderer ') ? [{ pid: p.pid, ns: userNamespace(p.pid) }] : [];
    } catch {
      return [];
    }
  });
  expect(renderers.length).toBeGreaterThan(0);
  for (const r of renderers) expect(r.ns).not.toBe(userNamespace(browser.pid));
  return { browser, group };
}

// Each test starts a server (or two) and runs `cardshot doctor`, which launches Chromium itself.
describe("Chromium's sandbox", { timeout: 120_000 }, () => {
  it('is on when the service is not root: renderers live in their own user namespace', async () => {
    const server = await startNodeProcess(root, 'sandbox', { ...env(), ...SECRETS }, { uid });
    try {
      await server.waitFor(/"msg":"screenshots ready"/);
      const res = await screenshot(server, 'sandboxed');
      expect(res.status).toBe(200);
      const png = Buffer.from(await res.arrayBuffer());
      expect(pngSize(png)).toEqual({ width: 1200, height: 630 });
      expect(await pixelAt(png, 300, 315)).toEqual([255, 0, 0, 255]);

      expectSandboxed(server);

      const ready = await fetch(`${server.url}/readyz`).then((r) => r.text());
      expect(ready).toContain('sandboxed');
      expect(server.out()).not.toContain('sandbox could not start');
    } finally {
      await server.stop();
    }
  });

  it.skipIf(process.getuid?.() !== 0)(
    "as root, Chromium runs as the user set-up made, sandboxed, and sees none of the service's settings",
    async () => {
      const server = await startNodeProcess(root, 'sandbox-root', { ...env(), ...SECRETS });
      try {
        await server.waitFor(/"msg":"screenshots ready"/);
        const res = await screenshot(server, 'as-user');
        expect(res.status).toBe(200);
        const png = Buffer.from(await res.arrayBuffer());
        expect(await pixelAt(png, 300, 315)).toEqual([255, 0, 0, 255]);
        const { group } = expectSandboxed(server);
        const chromiumUid = Number(execFileSync('id', ['-u', 'cardshot-chromium'], { encoding: 'utf8' }));
        for (const p of group) {
          const uid = (() => {
            try {
              return owner(p.pid);
            } catch {
              return chromiumUid; // ended meanwhile
            }
          })();
          expect(uid).toBe(chromiumUid);
        }
        const ready = await fetch(`${server.url}/readyz`).then((r) => r.json() as Promise<Ready>);
        expect(ready.checks.browser.detail).toMatch(
          /^Chromium running \(pid \d+, sandboxed, as cardshot-chromium\)/,
        );
        expect(server.out()).not.toContain('WARNING');
      } finally {
        await server.stop();
      }
      // Root still ends them: nothing of the browser outlives the stop.
      expect(listProcesses().filter((p) => p.comm.startsWith('chrom') && p.ppid === server.pid)).toEqual([]);
    },
  );

  it.skipIf(process.getuid?.() !== 0)(
    'as root without that user: runs unsandboxed, and says so everywhere',
    async () => {
      const missing = { CARDSHOT_CHROMIUM_USER: 'cardshot-no-such-user' };
      const server = await startNodeProcess(root, 'sandbox-nouser', { ...env(), ...missing });
      try {
        await server.waitFor(/"msg":"screenshots ready"/);
        expect((await screenshot(server, 'nouser')).status).toBe(200);
        const warning =
          'Chromium runs as root WITHOUT its sandbox: the user cardshot-no-such-user (CARDSHOT_CHROMIUM_USER) does not exist; run `npm run setup` as root to create it';
        const logged = server.logs().find((l) => String(l.msg).startsWith('SECURITY WARNING'));
        expect(logged).toMatchObject({ level: 50, msg: `SECURITY WARNING: ${warning} (docs/security.md)` });
        const ready = await fetch(`${server.url}/readyz`).then((r) => r.json() as Promise<Ready>);
        expect(ready.checks.browser.detail).toContain(`WITHOUT its sandbox: ${warning}`);
      } finally {
        await server.stop();
      }
      const doctor = await runNode([path.join(root, 'dist/src/cli/index.js'), 'doctor'], {
        cwd: scratch,
        env: { ...process.env, CARDSHOT_DATA_DIR: path.join(scratch, 'doctor-nouser'), ...missing },
      });
      expect(doctor.stdout).toMatch(
        /! chromium: .* WITHOUT its sandbox .*; Chromium runs as root WITHOUT its sandbox/,
      );
    },
  );

  it.skipIf(process.getuid?.() !== 0)(
    'doctor as root: passes as the user, fails "on" without it, with the fix',
    async () => {
      const good = await runNode([path.join(root, 'dist/src/cli/index.js'), 'doctor'], {
        cwd: scratch,
        env: {
          ...process.env,
          CARDSHOT_DATA_DIR: path.join(scratch, 'doctor-ok'),
          CARDSHOT_CHROMIUM_SANDBOX: 'on',
        },
      });
      expect(good.stdout).toMatch(/✓ chromium: .* started headless as cardshot-chromium with its sandbox/);

      const res = await runNode([path.join(root, 'dist/src/cli/index.js'), 'doctor'], {
        cwd: scratch,
        env: {
          ...process.env,
          CARDSHOT_DATA_DIR: path.join(scratch, 'doctor'),
          CARDSHOT_CHROMIUM_SANDBOX: 'on',
          CARDSHOT_CHROMIUM_USER: 'cardshot-no-such-user',
        },
      });
      expect(res.code).toBe(1);
      expect(res.stdout).toContain(
        '✗ chromium: CARDSHOT_CHROMIUM_SANDBOX=on, but the service runs as root and the user cardshot-no-such-user (CARDSHOT_CHROMIUM_USER) does not exist; run `npm run setup` as root to create it',
      );
      expect(res.stdout).toContain(
        'fix: run `npm run setup` as root (it creates the user cardshot-no-such-user)',
      );
    },
  );

  it('where it cannot start, auto runs without it and says so; on refuses to run without it', async () => {
    // A kernel that refuses the sandbox cannot be had on demand: this wrapper fails the way
    // Chromium does there unless it is told --no-sandbox, and otherwise runs the real browser.
    const wrapper = path.join(scratch, 'no-userns-chromium');
    await writeFile(
      wrapper,
      `#!/bin/sh\ncase " $* " in *" --no-sandbox "* | *" --version "*) exec ${settings.chromiumPath.default} "$@" ;; esac\necho "No usable sandbox!" >&2\nexit 1\n`,
    );
    await chmod(wrapper, 0o755);

    const auto = await startNodeProcess(
      root,
      'sandbox-auto',
      { ...env(), CARDSHOT_CHROMIUM_PATH: wrapper },
      { uid },
    );
    try {
      await auto.waitFor(/"msg":"screenshots ready"/);
      // An error-level line, not a quiet info.
      expect(auto.logs().find((l) => String(l.msg).startsWith('SECURITY WARNING'))).toMatchObject({
        level: 50,
        msg: "SECURITY WARNING: Chromium's sandbox could not start here; running without it (docs/security.md; CARDSHOT_CHROMIUM_SANDBOX=off skips the attempt)",
      });
      const res = await screenshot(auto, 'fallback');
      expect(res.status).toBe(200);
      expect(cmdline(browserOf(auto).browser.pid)).toContain(' --no-sandbox ');
      const ready = await fetch(`${auto.url}/readyz`).then((r) => r.json() as Promise<Ready>);
      expect(ready.checks.browser.detail).toContain(
        'WITHOUT its sandbox: the sandbox could not start here (',
      );
    } finally {
      await auto.stop();
    }
    const doctor = await runNode([path.join(root, 'dist/src/cli/index.js'), 'doctor'], {
      cwd: scratch,
      env: {
        ...process.env,
        CARDSHOT_DATA_DIR: path.join(scratch, 'doctor-nouserns'),
        CARDSHOT_CHROMIUM_PATH: wrapper,
      },
    });
    expect(doctor.stdout).toMatch(/! chromium: .* WITHOUT its sandbox .*; the sandbox could not start here/);

    const strict = await startNodeProcess(
      root,
      'sandbox-on',
      { ...env(), CARDSHOT_CHROMIUM_PATH: wrapper, CARDSHOT_CHROMIUM_SANDBOX: 'on' },
      { uid },
    );
    try {
      await strict.waitFor(/"port":\d+/);
      const res = await screenshot(strict, 'strict');
      await expectError(
        res,
        503,
        'Screenshots are temporarily unavailable: the browser could not be started',
      );
    } finally {
      await strict.stop();
    }
  });
});
