// @module-tag process
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { killGroup, liveGroupMembers } from '../../src/render/screenshot/engine/browser/processes.js';
import { machine, machineIsOld, pinnedVersion, userPath } from '../helpers/machine-node.js';
import { cleanEnv } from '../helpers/node-process.js';

// docs/deploy.md's production start, `NODE_ENV=production HOST=127.0.0.1 PORT=3000 npm start`, on
// a fresh clone of this commit (HEAD: uncommitted changes are not in it), twice. It used to fail:
// npm ci left TypeScript out under NODE_ENV=production, and its stamp made every later start fail
// the same way. The first start is a real `npm ci`: a few minutes on 2 cores, once. Where the machine's Node is older than engines (Node 20 here), that
// first start also brings the pinned Node into the clone's .runtime/, and the server runs on it.
const root = path.resolve(import.meta.dirname, '../..');
const METRICS_TOKEN = 'production-start-test-metrics-token';
let clone: string | undefined;

afterAll(async () => {
  if (clone) await rm(clone, { recursive: true, force: true });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** `npm start` in its own process group; resolves once /healthz answers 200. */
async function start(dir: string, port: number, ms: number) {
  const child: ChildProcess = spawn('npm', ['start'], {
    cwd: dir,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: cleanEnv({
      PATH: userPath,
      CARDSHOT_METRICS_TOKEN: METRICS_TOKEN,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      CARDSHOT_FIRST_RUN_KEY: 'false',
    }),
  });
  let out = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    out += d;
  });
  const started = performance.now();
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      process.kill(-child.pid!, 'SIGTERM');
      const timer = setTimeout(() => killGroup(child.pid!), 20_000);
      await exited;
      clearTimeout(timer);
    }
    // Nothing of it (npm, node, Chromium) may outlive the stop.
    for (let i = 0; i < 50 && liveGroupMembers(child.pid!).length > 0; i++)
      await new Promise((r) => setTimeout(r, 100));
    killGroup(child.pid!);
  };
  for (;;) {
    if (child.exitCode !== null) throw new Error(`npm start exited (${child.exitCode}):\n${out}`);
    if (performance.now() - started > ms) {
      await stop();
      throw new Error(`no /healthz 200 within ${ms} ms:\n${out}`);
    }
    const res = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
    if (res?.status === 200) return { seconds: (performance.now() - started) / 1000, out: () => out, stop };
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('the production start on a fresh clone', () => {
  it(
    'npm start installs (with TypeScript), builds, serves; a second start is quick and serves too',
    async () => {
      clone = await mkdtemp(path.join(os.tmpdir(), 'cardshot-clone-'));
      const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
      execFileSync('git', ['clone', '--quiet', '--no-checkout', root, clone]);
      execFileSync('git', ['checkout', '--quiet', '--detach', head], { cwd: clone });
      const port = await freePort();

      // Generous: on an idle 2-core machine the first start takes 2-3 minutes, most of it compiling SQLite.
      const first = await start(clone, port, 15 * 60_000);
      try {
        expect(first.out()).toMatch(
          /\[setup\] installing dependencies from package-lock.json for Node.js [\d.]+ \(npm ci\)/,
        );
        expect(first.out()).toContain('[setup] building (tsc)');
        const pinned = pinnedVersion(clone);
        if (machineIsOld) {
          expect(first.out()).toContain(`[setup] Cardshot runs on Node.js ${pinned} from .runtime/`);
        }
        const metrics = await (
          await fetch(`http://127.0.0.1:${port}/metrics`, {
            headers: { authorization: `Bearer ${METRICS_TOKEN}` },
          })
        ).text();
        expect(/^cardshot_build_info\{[^}]*node="([\d.]+)"/m.exec(metrics)?.[1]).toBe(
          machineIsOld ? pinned : machine!.version,
        );
      } finally {
        await first.stop();
      }
      const second = await start(clone, port, 60_000);
      try {
        expect(second.out()).not.toContain('[setup] installing');
        expect(second.out()).not.toContain('[setup] building');
        expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      } finally {
        await second.stop();
      }
      console.log(
        `production start on a fresh clone: first ${first.seconds.toFixed(1)} s, second ${second.seconds.toFixed(1)} s`,
      );
    },
    20 * 60_000,
  );
});
