import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { closedPort } from './servers.js';

/** Debian's nginx, installed by `npm test`'s set-up (scripts/setup.mjs --test). */
export const NGINX = '/usr/sbin/nginx';

/** True when nginx is installed; in CI a missing nginx fails the suite instead. */
export function nginxAvailable(): boolean {
  if (existsSync(NGINX)) return true;
  if (process.env.CI === 'true') throw new Error(`${NGINX} is missing: CI needs it (npm test installs it)`);
  process.stderr.write(`skipping nginx tests: ${NGINX} is missing (npm test installs it with apt)\n`);
  return false;
}

/**
 * The production file with only what must differ on loopback replaced: its own pid and temp
 * paths in `dir`, one worker, the listen port, and the upstream servers. Each replacement must
 * find its line, so a change to deploy/nginx.conf that the test can no longer follow fails
 * loudly rather than testing something else.
 */
export function loopbackVariant(
  production: string,
  opts: { dir: string; port: number; nodes: number[] },
): string {
  let text = production;
  const replace = (pattern: RegExp, by: string, what: string) => {
    if (!pattern.test(text)) throw new Error(`deploy/nginx.conf: no ${what} line to replace`);
    text = text.replace(pattern, by);
  };
  replace(/^user .*;$/m, '# user: the test runs workers as the default user', 'user');
  replace(/^pid .*;$/m, `pid ${opts.dir}/nginx.pid;`, 'pid');
  replace(/^worker_processes .*;$/m, 'worker_processes 1;', 'worker_processes');
  // /dev/stdout and /dev/stderr cannot be opened when they are sockets (as Node's child pipes are).
  replace(/^error_log \/dev\/stderr (.*);$/m, `error_log ${opts.dir}/error.log $1;`, 'error_log');
  replace(/^(\s*)access_log \/dev\/stdout (.*);$/m, `$1access_log ${opts.dir}/access.log $2;`, 'access_log');
  replace(/^(\s*)listen 80;$/m, `$1listen 127.0.0.1:${opts.port};`, 'listen');
  const servers = /^(\s*)server api1:3000 (.*);\n\s*server api2:3000 .*;$/m;
  const m = servers.exec(text);
  if (!m) throw new Error('deploy/nginx.conf: no upstream server lines to replace');
  const [, indent, params] = m;
  text = text.replace(servers, opts.nodes.map((p) => `${indent}server 127.0.0.1:${p} ${params};`).join('\n'));
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
    .map((t) => `  ${t}_temp_path ${opts.dir}/${t};`)
    .join('\n');
  replace(/^http \{$/m, `http {\n${temp}`, 'http {');
  return text;
}

/** nginx as a foreground child on a free loopback port, with its access log collected. */
export interface NginxHandle {
  url: string;
  port: number;
  /** Access-log lines so far (deploy/nginx.conf logs `upstream=<addr>` for each request). */
  accessLog(): string[];
  stop(): Promise<void>;
}

/**
 * Starts nginx on deploy/nginx.conf's loopback variant in front of `nodes` (ports); `edit`
 * changes the rendered file (bench/scale.ts compares proxy buffering on and off).
 */
export async function startNginx(
  root: string,
  nodes: number[],
  edit: (conf: string) => string = (c) => c,
): Promise<NginxHandle> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-nginx-'));
  // Workers run as an unprivileged user when the master is root: they must write here.
  await chmod(dir, 0o777);
  for (const t of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) await mkdir(path.join(dir, t));
  const port = await closedPort();
  const conf = loopbackVariant(await readFile(path.join(root, 'deploy/nginx.conf'), 'utf8'), {
    dir,
    port,
    nodes,
  });
  await writeFile(path.join(dir, 'nginx.conf'), edit(conf));
  const child: ChildProcess = spawn(
    NGINX,
    ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-e', path.join(dir, 'error.log'), '-g', 'daemon off;'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let err = '';
  child.stderr!.on('data', (d) => {
    err += d;
  });
  // SIGTERM, not SIGKILL: nginx's master then stops its workers; killed outright it would
  // leave them running, orphaned.
  const kill = () => child.kill('SIGTERM');
  process.once('exit', kill);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    const up = await fetch(`${url}/nginx-probe`).then(
      () => true,
      () => false,
    );
    if (up) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      kill();
      const log = await readFile(path.join(dir, 'error.log'), 'utf8').catch(() => '');
      throw new Error(`nginx did not start: ${err}${log}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    port,
    accessLog: () =>
      readFileSync(path.join(dir, 'access.log'), 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== ''),
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGQUIT'); // graceful: finishes requests in flight
        const timer = setTimeout(kill, 5000);
        await exited;
        clearTimeout(timer);
      }
      process.off('exit', kill);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
