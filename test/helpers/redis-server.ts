import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { Redis } from 'ioredis';
import { closedPort } from './servers.js';

/**
 * A private `redis-server` on a free loopback port that a test may stop, start and configure
 * (maxmemory) without touching the Redis other test runs share. In CI a missing binary fails
 * the test; elsewhere `redisServerAvailable` lets a suite skip with a message.
 */
export interface PrivateRedis {
  url: string;
  port: number;
  /** A client on it (for CONFIG SET, FLUSHALL and checks). */
  admin: Redis;
  /** Ends the server (connections drop, the port is refused). */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
  close(): Promise<void>;
}

const BIN = '/usr/bin/redis-server';

/** True when Debian's redis-server is installed (CI installs it; see .ci/run). */
export function redisServerAvailable(): boolean {
  if (existsSync(BIN)) return true;
  if (process.env.CI === 'true') throw new Error(`${BIN} is missing: CI needs it`);
  process.stderr.write(`skipping private redis-server tests: ${BIN} is missing\n`);
  return false;
}

/** Starts a private server with no persistence. */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await closedPort();
  let child: ChildProcess | undefined;

  const start = async () => {
    child = spawn(
      BIN,
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--daemonize',
        'no',
      ],
      { stdio: 'ignore' },
    );
    const probe = new Redis(port, '127.0.0.1', {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    probe.on('error', () => {});
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        await probe.connect();
        await probe.ping();
        break;
      } catch {
        if (Date.now() > deadline) throw new Error(`private redis-server on ${port} did not start`);
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    probe.disconnect();
  };

  const stop = async () => {
    const c = child;
    child = undefined;
    if (!c || c.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => c.once('exit', () => resolve()));
    c.kill('SIGKILL');
    await exited;
  };

  await start();
  const admin = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 1 });
  admin.on('error', () => {});
  // A test that throws before close() must not leave a server behind.
  const onExit = () => child?.kill('SIGKILL');
  process.once('exit', onExit);
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    admin,
    stop,
    start,
    async close() {
      admin.disconnect();
      await stop();
      process.off('exit', onExit);
    },
  };
}
