import { readFileSync, readlinkSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settings } from '../../src/config/schema.js';
import { listProcesses } from '../../src/render/screenshot/processes.js';
import { type NodeProcess, runNode, startNodeProcess } from '../helpers/node-process.js';
import { type PageServer, startPageServer } from '../helpers/pages.js';
import { pixelAt, pngSize } from '../helpers/png.js';

// The built server as an unprivileged user (nobody, when the suite runs as root as in CI):
// Chromium then runs with its own sandbox, which is checked from /proc, not from our logs.
const root = path.resolve(import.meta.dirname, '../..');
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

describe("Chromium's sandbox", () => {
  it('is on when the service is not root: renderers live in their own user namespace', async () => {
    const server = await startNodeProcess(root, 'sandbox', env(), { uid });
    try {
      await server.waitFor(/"msg":"screenshots ready"/);
      const res = await screenshot(server, 'sandboxed');
      expect(res.status).toBe(200);
      const png = Buffer.from(await res.arrayBuffer());
      expect(pngSize(png)).toEqual({ width: 1200, height: 630 });
      expect(await pixelAt(png, 300, 315)).toEqual([255, 0, 0, 255]);

      const { browser, group } = browserOf(server);
      expect(cmdline(browser.pid)).not.toContain(' --no-sandbox ');
      const renderers = group.filter((p) => cmdline(p.pid).includes(' --type=renderer '));
      expect(renderers.length).toBeGreaterThan(0);
      for (const r of renderers) expect(userNamespace(r.pid)).not.toBe(userNamespace(browser.pid));

      const ready = await fetch(`${server.url}/readyz`).then((r) => r.text());
      expect(ready).toContain('sandboxed');
      expect(server.out()).not.toContain('sandbox could not start');
    } finally {
      await server.stop();
    }
  });

  it.skipIf(process.getuid?.() !== 0)('doctor fails "on" as root, with the fix', async () => {
    const res = await runNode([path.join(root, 'dist/src/cli/index.js'), 'doctor'], {
      cwd: scratch,
      env: {
        ...process.env,
        CARDSHOT_DATA_DIR: path.join(scratch, 'doctor'),
        CARDSHOT_CHROMIUM_SANDBOX: 'on',
      },
    });
    expect(res.code).toBe(1);
    expect(res.stdout).toContain(
      "✗ chromium: CARDSHOT_CHROMIUM_SANDBOX=on, but the service runs as root and Chromium's sandbox cannot start as root; run as an unprivileged user or set it to auto",
    );
    expect(res.stdout).toContain('fix: run Cardshot as an unprivileged user');
  });

  it('where it cannot start, auto runs without it and says so; on refuses to run without it', async () => {
    // A kernel that refuses the sandbox cannot be had on demand: this wrapper fails the way
    // Chromium does there unless it is told --no-sandbox, and otherwise runs the real browser.
    const wrapper = path.join(scratch, 'no-userns-chromium');
    await writeFile(
      wrapper,
      `#!/bin/sh\ncase " $* " in *" --no-sandbox "*) exec ${settings.chromiumPath.default} "$@" ;; esac\necho "No usable sandbox!" >&2\nexit 1\n`,
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
      expect(auto.out()).toContain("Chromium's sandbox could not start here; running without it");
      const res = await screenshot(auto, 'fallback');
      expect(res.status).toBe(200);
      expect(cmdline(browserOf(auto).browser.pid)).toContain(' --no-sandbox ');
      expect(await fetch(`${auto.url}/readyz`).then((r) => r.text())).toContain('without its sandbox');
    } finally {
      await auto.stop();
    }

    const strict = await startNodeProcess(
      root,
      'sandbox-on',
      { ...env(), CARDSHOT_CHROMIUM_PATH: wrapper, CARDSHOT_CHROMIUM_SANDBOX: 'on' },
      { uid },
    );
    try {
      await strict.waitFor(/"port":\d+/);
      const res = await screenshot(strict, 'strict');
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({
        error: 'Screenshots are temporarily unavailable: the browser could not be started',
      });
    } finally {
      await strict.stop();
    }
  });
});
