import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/**
 * A second queue "node" in a real child process: it opens the queue as the server would
 * (createJobQueue from the storage settings) and works one queue, printing `started <id>
 * <attempt>` when a task starts and then holding it until the process is killed. A test
 * SIGKILLs it mid-task to see the task run again elsewhere.
 */
export interface QueueNode {
  child: ChildProcess;
  /** Resolves with the first started task's id and attempt. */
  started: Promise<{ id: string; attempt: number }>;
  kill(): Promise<void>;
}

const root = fileURLToPath(new URL('../..', import.meta.url));

const entry = `
import { createJobQueue } from ${JSON.stringify(path.join(root, 'src/jobs/queue/open.ts'))};
const cfg = JSON.parse(process.env.QUEUE_NODE_CONFIG);
const queue = await createJobQueue(cfg.storage, { pollMs: 50, superviseIntervalSeconds: 1 });
await queue.createQueue(cfg.queue, cfg.policy);
await queue.work(cfg.queue, { concurrency: 1, groupLimit: () => 10 }, (task) => {
  process.stdout.write('started ' + task.id + ' ' + task.attempt + '\\n');
  return new Promise(() => {});
});
process.stdout.write('ready\\n');
`;

/** Bundles the node's entry once per test file into .tmp/ (so its packages resolve from node_modules). */
async function bundle(): Promise<string> {
  const dir = path.join(root, '.tmp');
  await mkdir(dir, { recursive: true });
  const out = path.join(dir, `queue-node-${process.pid}.mjs`);
  await build({
    stdin: { contents: entry, resolveDir: root, loader: 'ts' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    outfile: out,
    logLevel: 'silent',
  });
  return out;
}

/** Starts a queue node working `queue` with `policy` on the storage `config`. */
export async function startQueueNode(config: {
  storage: { databaseUrl: string; dataDir: string; databaseSchema: string };
  queue: string;
  policy: object;
}): Promise<QueueNode> {
  const script = await bundle();
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, QUEUE_NODE_CONFIG: JSON.stringify(config) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d) => {
    err += d;
  });
  const onExit = () => child.kill('SIGKILL');
  process.once('exit', onExit);
  const started = new Promise<{ id: string; attempt: number }>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /started (\S+) (\d+)/.exec(out);
      if (m) resolve({ id: m[1]!, attempt: Number(m[2]) });
    });
    child.once('exit', (code) => reject(new Error(`queue node exited (${code}): ${out}\n${err}`)));
  });
  started.catch(() => {});
  return {
    child,
    started,
    async kill() {
      process.off('exit', onExit);
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGKILL');
        await exited;
      }
      await rm(script, { force: true });
    },
  };
}
