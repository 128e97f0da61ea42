import { type ChildProcess, spawn } from 'node:child_process';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  killGroup,
  listProcesses,
  liveGroupMembers,
} from '../../src/render/screenshot/engine/browser/processes.js';

/** A Cardshot server process (dist/src/main.js, as `npm start` runs it) on a free loopback port. */
export interface NodeProcess {
  name: string;
  url: string;
  port: number;
  pid: number;
  /** Its data directory (in production the first-run key is written there, not to stdout). */
  dataDir: string;
  /** Everything it printed to stdout so far (the banner, then JSON log lines). */
  out(): string;
  /** JSON log lines so far. */
  logs(): Array<Record<string, unknown>>;
  /** Resolves with the first match of `pattern` in stdout, or throws after `ms`. */
  waitFor(pattern: RegExp, ms?: number): Promise<RegExpExecArray>;
  /** SIGTERM, then SIGKILL after 10 s; its Chromium's process group is ended either way. */
  stop(): Promise<void>;
  /** SIGKILL at once (a node dying mid-work): nothing of its own shutdown runs. Its data dir stays. */
  kill(): Promise<void>;
}

/**
 * Starts a node with `env` on top of the test's environment, a fresh data dir and PORT=0;
 * with `uid`, as that user (the test runs as root), owning the data dir, which is also its HOME.
 * With `dataDir`, that one (a node started again on the state a killed one left): the caller
 * owns it, and `stop()` leaves it.
 */
export async function startNodeProcess(
  root: string,
  name: string,
  env: Record<string, string>,
  opts: { uid?: number; dataDir?: string } = {},
): Promise<NodeProcess> {
  const dataDir = opts.dataDir ?? (await mkdtemp(path.join(os.tmpdir(), `cardshot-${name}-`)));
  const removeDataDir = () =>
    opts.dataDir === undefined ? rm(dataDir, { recursive: true, force: true }) : Promise.resolve();
  const user = opts.uid === undefined ? {} : { uid: opts.uid, gid: opts.uid };
  if (opts.uid !== undefined) await chown(dataDir, opts.uid, opts.uid);
  const child: ChildProcess = spawn(process.execPath, [path.join(root, 'dist/src/main.js')], {
    cwd: dataDir,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      CARDSHOT_DATA_DIR: dataDir,
      ...(opts.uid === undefined ? {} : { HOME: dataDir }),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...user,
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    err += d;
  });
  const browserGroups = () =>
    listProcesses()
      .filter((p) => p.ppid === child.pid && p.comm.startsWith('chromium'))
      .map((p) => p.pgid);
  // Only a group that still holds Chromium: a pid freed by a clean exit may belong to
  // someone else's process by now.
  const endBrowsers = (groups: number[]) => {
    for (const g of groups) {
      if (liveGroupMembers(g).some((p) => p.comm.startsWith('chrom'))) killGroup(g);
    }
  };
  // A failing test must not leave a server (or its browser) running.
  const onExit = () => {
    endBrowsers(browserGroups());
    child.kill('SIGKILL');
  };
  process.once('exit', onExit);

  const waitFor = async (pattern: RegExp, ms = 30_000) => {
    const deadline = Date.now() + ms;
    for (;;) {
      const m = pattern.exec(out);
      if (m) return m;
      if (child.exitCode !== null) throw new Error(`${name} exited (${child.exitCode}):\n${out}\n${err}`);
      if (Date.now() > deadline) throw new Error(`${name}: no ${pattern} within ${ms} ms:\n${out}\n${err}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  let port: number;
  try {
    port = Number((await waitFor(/"port":(\d+)/))[1]);
  } catch (e) {
    onExit();
    await removeDataDir();
    throw e;
  }
  return {
    name,
    url: `http://127.0.0.1:${port}`,
    port,
    pid: child.pid!,
    dataDir,
    out: () => out,
    logs: () =>
      out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    waitFor,
    async stop() {
      const groups = browserGroups();
      if (child.exitCode === null) {
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      endBrowsers(groups);
      process.off('exit', onExit);
      await removeDataDir();
    },
    async kill() {
      const groups = browserGroups();
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGKILL');
        await exited;
      }
      endBrowsers(groups);
      process.off('exit', onExit);
    },
  };
}

/** Runs `node <args>` to its end (a CLI command), with what it printed and its exit code. */
export function runNode(
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; input?: string },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: opts.cwd, env: opts.env });
    if (opts.input !== undefined) child.stdin.end(opts.input);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Environment without the caller's Cardshot settings, so only what a test sets applies. */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) =>
        !k.startsWith('CARDSHOT_') && !['PORT', 'HOST', 'DATABASE_URL', 'REDIS_URL', 'NODE_ENV'].includes(k),
    ),
  );
  return { ...env, ...extra };
}

/**
 * Runs the built server (`dist/src/main.js` under `root`) until it says it is serving, then
 * SIGTERM; returns what it printed. `viaTerminal` runs it under `script`, which gives it a real
 * terminal, as when someone runs `npm start` by hand.
 */
export async function serveUntilStarted(
  root: string,
  opts: { cwd: string; env: NodeJS.ProcessEnv; viaTerminal: boolean },
): Promise<string> {
  const main = path.join(root, 'dist/src/main.js');
  const child: ChildProcess = opts.viaTerminal
    ? spawn('script', ['-qfec', `exec "${process.execPath}" "${main}"`, '/dev/null'], {
        cwd: opts.cwd,
        env: opts.env,
      })
    : spawn(process.execPath, [main], { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no start line: ${out}`)), 30_000);
      child.stdout!.on('data', () => {
        if (out.includes('Cardshot is serving')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  return out;
}
