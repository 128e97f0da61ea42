import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pngSize } from '../helpers/png.js';

// These run the built program exactly as `npm start` and `npx cardshot` do (npm test builds first).
const root = path.resolve(import.meta.dirname, '../..');
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-proc-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function run(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, args, { cwd: dir, env: { ...process.env, ...env } });
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

describe('the server process', () => {
  let child: ChildProcess;
  let out = '';

  it('starts, serves a card, and shuts down cleanly on SIGTERM', async () => {
    child = spawn(process.execPath, [path.join(root, 'dist/src/main.js')], {
      cwd: dir,
      env: { ...process.env, PORT: '0', CARDSHOT_DATA_DIR: path.join(dir, 'data'), NODE_ENV: 'production' },
    });
    child.stdout!.on('data', (d) => {
      out += d;
    });
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no start line: ${out}`)), 20_000);
      child.stdout!.on('data', () => {
        const m = out.match(/"port":(\d+)/);
        if (m) {
          clearTimeout(timer);
          resolve(Number(m[1]));
        }
      });
    });
    const res = await fetch(
      `http://127.0.0.1:${port}/render/template?template=blog&title=From%20a%20process`,
    );
    expect(res.status).toBe(200);
    expect(pngSize(Buffer.from(await res.arrayBuffer()))).toEqual({ width: 1200, height: 630 });

    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(out).toContain('"msg":"bye"');
  });

  it('refuses to start with a bad setting, naming the variable', async () => {
    const r = await run([path.join(root, 'dist/src/main.js')], { PORT: 'eighty' });
    expect(r.code).toBe(78);
    expect(r.stderr).toContain('PORT must be a whole number from 0 to 65535 (got "eighty")');
  });
});

describe('npx cardshot render', () => {
  const cli = path.join(root, 'bin/cardshot.js');

  it('renders one card to a file without a server', async () => {
    const r = await run([
      cli,
      'render',
      'saas',
      '--title',
      'Local render',
      '--brand',
      'Acme',
      '-o',
      'one.png',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^one\.png: \d+ bytes, 1200×630, \d+ ms\n$/);
    expect(pngSize(await readFile(path.join(dir, 'one.png')))).toEqual({ width: 1200, height: 630 });
  });

  it('explains a bad field and exits 1', async () => {
    const r = await run([cli, 'render', 'blog', '-o', 'none.png']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('cardshot render: title is required\n');
  });

  it('renders a CSV batch, reports failed rows with reasons, exits 1', async () => {
    await writeFile(
      path.join(dir, 'cards.csv'),
      'template,title,subtitle,filename\nblog,First post,Hello,first\nblog,,No title,\nproduct,"Chair, oak",Solid wood,\n',
    );
    const r = await run([cli, 'render', '--batch', 'cards.csv', '--out-dir', 'out']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /^Rendered 2 of 3 cards into out\/ in \d+\.\d s; 1 failed:\n {2}row 2: title must not be empty\n$/,
    );
    expect(pngSize(await readFile(path.join(dir, 'out/first.png')))).toEqual({ width: 1200, height: 630 });
    expect(pngSize(await readFile(path.join(dir, 'out/003-chair-oak.png')))).toEqual({
      width: 1200,
      height: 630,
    });
  });

  it('renders a JSON batch and exits 0 when every row works', async () => {
    await writeFile(
      path.join(dir, 'cards.json'),
      JSON.stringify([
        { template: 'blog', title: 'A' },
        { template: 'saas', title: 'B', brand: 'Acme' },
      ]),
    );
    const r = await run([cli, 'render', '--batch', 'cards.json', '--out-dir', 'json-out']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Rendered 2 of 2 cards into json-out\/ in \d+\.\d s\n$/);
  });
});
