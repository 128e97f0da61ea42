// @module-tag chromium
// @module-tag process
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { listProcesses } from '../../../src/render/screenshot/engine/browser/processes.js';
import { type PageServer, startPageServer } from '../../helpers/pages.js';
import { pngSize } from '../../helpers/png.js';

// The built server exactly as `npm start` runs it: Chromium warmed after listening, a
// screenshot served, and nothing of Chromium left once SIGTERM has been handled.
const root = path.resolve(import.meta.dirname, '../../..');
let dir: string;
let pages: PageServer;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-proc-shot-'));
  pages = await startPageServer();
});
afterAll(async () => {
  await pages?.close();
  await rm(dir, { recursive: true, force: true });
});

it('warms Chromium at start, serves a screenshot, and leaves no browser process after SIGTERM', async () => {
  const child: ChildProcess = spawn(process.execPath, [path.join(root, 'dist/src/main.js')], {
    cwd: dir,
    env: {
      ...process.env,
      PORT: '0',
      NODE_ENV: 'production',
      CARDSHOT_DATA_DIR: path.join(dir, 'data'),
      CARDSHOT_ALLOW_PRIVATE_HOSTS: pages.hostPort,
    },
  });
  let out = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const until = async (pattern: RegExp) => {
    const deadline = Date.now() + 30_000;
    while (!pattern.test(out)) {
      if (Date.now() > deadline) throw new Error(`no ${pattern} in:\n${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return pattern.exec(out)!;
  };
  try {
    const port = Number((await until(/"port":(\d+)/))[1]);
    // The first start on an empty data dir makes a development key; in production it is
    // written to a file, not to stdout (the log stream).
    await until(/first-run\.txt/);
    const banner = await readFile(path.join(dir, 'data', 'first-run.txt'), 'utf8');
    const key = /API key: +(cs_development_[0-9A-Za-z]{28})/.exec(banner)![1]!;
    await until(/"msg":"screenshots ready"/);
    const browsers = listProcesses().filter((p) => p.ppid === child.pid && p.comm.startsWith('chromium'));
    expect(browsers).toHaveLength(1);

    const res = await fetch(
      `http://127.0.0.1:${port}/render/url?${new URLSearchParams({ url: `${pages.url}/split?process` })}`,
      { headers: { 'x-api-key': key } },
    );
    expect(res.status).toBe(200);
    const timing = res.headers.get('server-timing') ?? '';
    expect(timing).not.toContain('launch;');
    expect(pngSize(Buffer.from(await res.arrayBuffer()))).toEqual({ width: 1200, height: 630 });

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const group = browsers[0]!.pid;
    expect(listProcesses().filter((p) => p.pgid === group && p.state !== 'Z')).toEqual([]);
  } finally {
    child.kill('SIGKILL');
  }
});
