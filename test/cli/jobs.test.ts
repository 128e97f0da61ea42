import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runJobs } from '../../src/cli/commands/jobs.js';
import { type ShotIo, sizeText } from '../../src/cli/shot/io.js';
import { Cardshot } from '../../src/client/cardshot.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { pngSize } from '../helpers/png.js';
import { secondAccount } from '../helpers/webhooks.js';

// `npx cardshot jobs …` in-process against a real server over HTTP (SQLite store and queue, the
// real takumi renderer): what it prints, the files it writes, and its exit status.

let t: TestApp;
let server: string;
let dir: string;
let hostileKey: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-jobs-cli-'));
  t = await startTestApp({ jobsWorkers: 2 });
  server = await t.listen();
  hostileKey = (await secondAccount(t)).key;
});
afterAll(async () => {
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The command's streams, recorded; `tty` makes stderr a terminal. */
function recorder(tty = false, stdin = '') {
  const out: string[] = [];
  const err: string[] = [];
  const io: ShotIo = {
    stdout: { isTTY: false, write: (d) => out.push(String(d)) },
    stderr: { isTTY: tty, write: (d) => err.push(String(d)) },
    readStdin: async () => stdin,
  };
  return { io, stdout: () => out.join(''), stderr: () => err.join('') };
}

const jobs = async (argv: string[], opts: { tty?: boolean; key?: string; stdin?: string } = {}) => {
  const rec = recorder(opts.tty, opts.stdin);
  const code = await runJobs([...argv, '--server', server, '--api-key', opts.key ?? t.key.key], rec.io);
  return { code, stdout: rec.stdout(), stderr: rec.stderr() };
};

/** Entries a zip says it holds: its end-of-central-directory record (the last 22 bytes, no comment). */
function zipEntries(zip: Buffer): number {
  const end = zip.subarray(zip.length - 22);
  expect(end.readUInt32LE(0)).toBe(0x06054b50);
  return end.readUInt16LE(10);
}

const CSV =
  'template,title,subtitle\nblog,First card,One\nblog,Second card,Two\nblog,"Third, with a comma",Three\n';

describe('cardshot jobs submit', () => {
  it('sends a CSV, follows it with plain lines, and saves each image as the synchronous render', async () => {
    const file = path.join(dir, 'cards.csv');
    await writeFile(file, CSV);
    const out = path.join(dir, 'cards');
    const r = await jobs(['submit', file, '--out-dir', out]);
    expect(r.code, r.stderr).toBe(0);
    const id = /^Submitted (job_\S+) with 3 items\n/.exec(r.stdout)?.[1];
    expect(id).toBeDefined();
    // No terminal: a line per change, no bar.
    expect(r.stdout).toMatch(/^completed 3\/3 done$/m);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(new RegExp(`^Job ${id} completed in [\\d.]+ s: 3 of 3 items succeeded$`, 'm'));
    expect(r.stdout).toMatch(new RegExp(`^Wrote 3 images \\([\\d.]+ KB\\) into ${out}/$`, 'm'));
    expect((await readdir(out)).sort()).toEqual(['0.png', '1.png', '2.png']);
    const client = new Cardshot({ baseUrl: server, apiKey: t.key.key });
    const sync = await client.renderTemplate({
      template: 'blog',
      title: 'Third, with a comma',
      subtitle: 'Three',
    });
    const saved = await readFile(path.join(out, '2.png'));
    expect(pngSize(saved)).toEqual({ width: 1200, height: 630 });
    expect(Buffer.compare(saved, Buffer.from(sync.image!))).toBe(0);
  }, 60_000);

  it('reports the bytes of every image it saved, downloads running at once included', async () => {
    const file = path.join(dir, 'twelve.json');
    await writeFile(
      file,
      JSON.stringify(Array.from({ length: 12 }, (_, i) => ({ template: 'saas', title: `Size ${i}` }))),
    );
    const out = path.join(dir, 'twelve');
    const r = await jobs(['submit', file, '--out-dir', out]);
    expect(r.code, r.stderr).toBe(0);
    const names = (await readdir(out)).sort();
    expect(names).toEqual(Array.from({ length: 12 }, (_, i) => `${String(i).padStart(2, '0')}.png`));
    let total = 0;
    for (const n of names) total += (await stat(path.join(out, n))).size;
    expect(r.stdout).toContain(`Wrote 12 images (${sizeText(total)}) into ${out}/\n`);
  }, 60_000);

  it('draws a bar on a terminal, and --zip saves one zip of every image', async () => {
    const file = path.join(dir, 'cards.json');
    await writeFile(
      file,
      JSON.stringify({
        items: [
          { template: 'blog', title: 'A' },
          { template: 'blog', title: 'B' },
        ],
        metadata: { batch: 7 },
      }),
    );
    const out = path.join(dir, 'zipped');
    const r = await jobs(['submit', file, '--wait', '--out-dir', out, '--zip'], { tty: true });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`\r${'█'.repeat(30)} 2/2`);
    expect(r.stdout).not.toMatch(/^(queued|running|completed) /m);
    const id = /Submitted (job_\S+)/.exec(r.stdout)![1]!;
    const zip = path.join(out, `${id}.zip`);
    expect(await readdir(out)).toEqual([`${id}.zip`]);
    expect(zipEntries(await readFile(zip))).toBe(2);
    expect(r.stdout).toMatch(new RegExp(`^Wrote ${zip} \\([\\d.]+ KB, 2 images\\)$`, 'm'));
  }, 60_000);

  it('refuses a job with a bad item with the server message, naming the item: exit 1', async () => {
    const file = path.join(dir, 'bad.json');
    await writeFile(file, JSON.stringify([{ template: 'blog', title: 'ok' }, { template: 'blog' }]));
    const r = await jobs(['submit', file, '--wait']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^cardshot jobs: item 1: title is required \(HTTP 400, req_\S+\)\n$/);
  });

  it('without --wait, prints the job and how to follow it; the same Idempotency-Key answers it again', async () => {
    const file = path.join(dir, 'once.json');
    await writeFile(file, JSON.stringify([{ template: 'blog', title: 'Once' }]));
    const first = await jobs(['submit', file, '--idempotency-key', 'cli-once']);
    expect(first.code).toBe(0);
    const id =
      /^Submitted (job_\S+) with 1 items\nFollow it: npx cardshot jobs get \1 {3}\(http:\/\/127\.0\.0\.1:\d+\/jobs\/\1\)\n$/.exec(
        first.stdout,
      )?.[1];
    expect(id, first.stdout).toBeDefined();
    const again = await jobs(['submit', file, '--idempotency-key', 'cli-once']);
    expect(again.stdout).toMatch(
      new RegExp(`^Already submitted \\(same Idempotency-Key\\): ${id} with 1 items\\n`),
    );
  });

  it('reads a JSON job from standard input with -', async () => {
    const r = await jobs(['submit', '-', '--wait'], {
      stdin: JSON.stringify([{ template: 'blog', title: 'stdin' }]),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/: 1 of 1 items succeeded$/m);
  }, 30_000);
});

describe('cardshot jobs get, list, results, cancel', () => {
  let id = '';
  beforeAll(async () => {
    const file = path.join(dir, 'two.json');
    await writeFile(
      file,
      JSON.stringify([
        { template: 'blog', title: 'One' },
        { template: 'saas', title: 'Two' },
      ]),
    );
    const r = await jobs(['submit', file, '--wait']);
    id = /Submitted (job_\S+)/.exec(r.stdout)![1]!;
  }, 30_000);

  it('get prints the job in labelled lines, or its JSON', async () => {
    const r = await jobs(['get', id]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(`^Job: {8}${id}\\nStatus: {5}completed 2/2 done\\nCreated: {4}\\d{4}-`),
    );
    expect(r.stdout).toMatch(
      /^Results: {4}http:\/\/127\.0\.0\.1:\d+\/jobs\/job_\S+\/results\.zip\?expires=\d+&signature=\S+$/m,
    );
    const j = await jobs(['get', id, '--json']);
    expect(JSON.parse(j.stdout)).toMatchObject({
      id,
      status: 'completed',
      items: 2,
      counts: { succeeded: 2, failed: 0 },
    });
  });

  it('list shows the newest job first; results lists each item', async () => {
    const l = await jobs(['list', '--limit', '1']);
    expect(l.code).toBe(0);
    expect(l.stdout.split('\n')[0]).toBe(
      `${'ID'.padEnd(id.length)}  STATUS     ITEMS  SUCCEEDED  FAILED  CREATED`,
    );
    expect(l.stdout.split('\n')[1]).toMatch(new RegExp(`^${id}  completed  2 {6}2 {10}0 {7}\\d{4}-`));
    expect(l.stdout).toMatch(/\nMore: npx cardshot jobs list --cursor \S+\n$/);
    const r = await jobs(['results', id]);
    expect(r.stdout).toMatch(
      /^INDEX {2}STATUS {5}KIND {2}RESULT\n0 {6}succeeded {2}card {2}1200×630 image\/png, [\d.]+ KB\n1 {6}succeeded/,
    );
  });

  it('cancel stops a job whose items wait: they never run', async () => {
    const file = path.join(dir, 'many.json');
    await writeFile(
      file,
      JSON.stringify(Array.from({ length: 60 }, (_, i) => ({ template: 'blog', title: `n${i}` }))),
    );
    const sub = await jobs(['submit', file]);
    const big = /Submitted (job_\S+)/.exec(sub.stdout)![1]!;
    const r = await jobs(['cancel', big]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(`^Job: {8}${big}\\nStatus: {5}canceled \\d+/60 done(, [12] running)?, \\d+ canceled\\n`),
    );
    const after = await jobs(['get', big, '--json']);
    expect(JSON.parse(after.stdout).counts.canceled).toBeGreaterThan(0);
  });

  it("answers another account's job as missing: exit 1, the server's 404", async () => {
    for (const verb of ['get', 'cancel', 'results']) {
      const r = await jobs([verb, id], { key: hostileKey });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^cardshot jobs: No such job \(HTTP 404, req_\S+\)\n$/);
    }
  });
});

describe('cardshot jobs usage', () => {
  it.each(['submit', 'get', 'list', 'results', 'cancel'])(
    'jobs %s --help prints that subcommand',
    async (verb) => {
      const rec = recorder();
      expect(await runJobs([verb, '--help'], rec.io)).toBe(0);
      expect(rec.stdout()).toMatch(new RegExp(`^ {2}npx cardshot jobs ${verb} `));
    },
  );

  it('refuses a command line that cannot work with exit 2 and the help', async () => {
    const rec = recorder();
    expect(await runJobs(['submit', '--zip', 'x.csv', '--api-key', 'k'], rec.io)).toBe(2);
    expect(rec.stderr()).toMatch(/^cardshot jobs: --zip goes with --out-dir DIR\n\nBackground jobs:/);
    const missing = await jobs(['submit', path.join(dir, 'nope.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^cardshot jobs: cannot read .*nope\.json: ENOENT\n/);
  });
});
