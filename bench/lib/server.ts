import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** A Cardshot server running as a child process, for load from this process. */
export interface ServerHandle {
  /** Base URL, always on 127.0.0.1. */
  url: string;
  pid: number;
  /** The `x-api-key` header of the account the benchmark runs as. */
  auth: Record<string, string>;
  /** Resident and peak resident memory of the child, in MiB, from /proc. */
  memory(): { rssMiB: number; hwmMiB: number };
  /** The last 4,000 characters the server wrote (its log at the level the bench set). */
  output(): string;
  /** Runs `npx cardshot <args>` against the server's data directory; returns its stdout. */
  cli(args: string[]): string;
  /** SIGTERM, wait for exit, remove the temporary data directory. */
  stop(): Promise<void>;
}

/** A TCP port nothing listens on right now (the kernel's pick). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * Starts `node <entry>` with a fresh data directory and waits until it answers HTTP. The
 * server is a separate process so its event loop, heap and RSS are not mixed with the load
 * generator's; it still shares the machine's cores, which the report says.
 */
export async function startServer(
  entry: string,
  env: Record<string, string>,
  /** Extra node flags, e.g. `--cpu-prof` (not allowed in NODE_OPTIONS). */
  nodeArgs: string[] = [],
  /** A key that already exists in the server's database (another node of the same deployment). */
  existingKey?: string,
  /** Let the bench plan use every screenshot option (a build from before options refuses the field). */
  screenshotOptions = false,
): Promise<ServerHandle> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-bench-'));
  const port = await freePort();
  // A plan the load cannot exhaust (the limiter still runs on every request, as in production),
  // and an account with a key made by the CLI, as an operator would.
  const plansFile = path.join(dataDir, 'bench-plans.json');
  await writeFile(
    plansFile,
    JSON.stringify({
      bench: {
        templates: '*',
        // One account stands for all the load: its share is the whole browser and queue.
        screenshots: {
          viewports: '*',
          concurrency: 64,
          queue: 10_000,
          ...(screenshotOptions ? { options: '*' } : {}),
        },
        rateLimit: { requests: 1_000_000, windowSeconds: 1 },
      },
    }),
  );
  const fullEnv = {
    ...process.env,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    CARDSHOT_DATA_DIR: dataDir,
    CARDSHOT_PLANS_FILE: plansFile,
    CARDSHOT_FIRST_RUN_KEY: 'false',
    ...env,
  };
  const cliPath = path.join(path.dirname(entry), 'cli', 'index.js');
  const key = existingKey ?? createKey(cliPath, fullEnv);
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, entry], {
    env: fullEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Keep the tail of the output: the only clue when the server dies mid-run.
  let tail = '';
  const keep = (d: Buffer) => {
    tail = (tail + d.toString()).slice(-4000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  let exited: number | null | undefined;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', (code) => {
      exited = code;
      resolve();
    }),
  );

  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    // Any HTTP answer (even 404) means it listens; a refused connection means not yet.
    const up = await fetch(`${url}/`).then(
      () => true,
      () => false,
    );
    if (up) break;
    if (exited !== undefined || Date.now() > deadline) {
      child.kill('SIGKILL');
      await rm(dataDir, { recursive: true, force: true });
      const why = exited !== undefined ? `exited with ${exited}` : 'did not answer within 30 s';
      throw new Error(`server ${why}:\n${tail}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }

  const pid = child.pid!;
  return {
    url,
    pid,
    auth: { 'x-api-key': key },
    memory() {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const kib = (field: string) =>
        Number(status.match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'))?.[1] ?? Number.NaN);
      return { rssMiB: kib('VmRSS') / 1024, hwmMiB: kib('VmHWM') / 1024 };
    },
    output: () => tail,
    cli(args) {
      return execFileSync(process.execPath, [cliPath, ...args], { env: fullEnv, encoding: 'utf8' });
    },
    async stop() {
      if (exited === undefined) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        await exit;
        clearTimeout(timer);
      }
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Creates the bench account and a key with `npx cardshot … --json` against the server's data dir. */
function createKey(cli: string, env: NodeJS.ProcessEnv): string {
  const json = (args: string[]) =>
    JSON.parse(execFileSync(process.execPath, [cli, ...args, '--json'], { env, encoding: 'utf8' }));
  const account = json([
    'accounts',
    'create',
    '--name',
    'Bench',
    '--email',
    'bench@localhost',
    '--plan',
    'bench',
  ]);
  return json(['keys', 'create', '--account', account.id, '--name', 'bench', '--environment', 'bench']).key;
}
