// @module-tag slow
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEXT_MAX_LENGTH } from '../../../src/render/template/files/validate.js';
import { DEFAULT_SIZE } from '../../../src/render/template/sizes.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';

// Regression (issue 26 §4): a template text field could declare 10,000 characters, and one
// such layout blocked the event loop for 1.6-1.9 s. Text is fitted on the loop, so the cap is
// what bounds the stall: here six requests with the longest text a template may take, in the
// costliest script (emoji), run while /healthz is asked every 5 ms over real HTTP. It is in the
// TIMING list (vitest.config.ts): alone, since it measures wall-clock stalls.
const STARTER = path.resolve(import.meta.dirname, '../../../src/render/template/starter/starter.tsx');
let dir: string;
let t: TestApp;
let base: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-stall-'));
  // The starter (the template `templates new` scaffolds) with its headline at the cap.
  const source = (await readFile(STARTER, 'utf8'))
    .replaceAll('__NAME__', 'long')
    .replace(/maxLength: 140/, `maxLength: ${TEXT_MAX_LENGTH}`);
  expect(source).toContain(`maxLength: ${TEXT_MAX_LENGTH}`);
  await writeFile(path.join(dir, 'long.tsx'), source);
  t = await startTestApp({ templatesDir: dir, cacheMemoryBytes: 0, cacheDiskBytes: 0 });
  base = await t.listen();
});
afterAll(async () => {
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

/** `n` code points of emoji with skin tones and spaces: the costliest text to fit, measured. */
function worstText(n: number, seed: number): string {
  const units = [...`🚀🎉👍🏽 ${seed} `];
  return Array.from({ length: n }, (_, i) => units[i % units.length]).join('');
}

/** Latencies (ms) of sequential /healthz calls until `done` settles. */
async function probe(done: Promise<unknown>): Promise<number[]> {
  let finished = false;
  void done.finally(() => {
    finished = true;
  });
  const times: number[] = [];
  while (!finished) {
    const start = performance.now();
    const res = await fetch(`${base}/healthz`);
    await res.arrayBuffer();
    times.push(performance.now() - start);
    await new Promise((r) => setTimeout(r, 5));
  }
  return times;
}

const p = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.ceil(q * xs.length) - 1] ?? 0;

describe('the longest text a template may take', () => {
  // What blocks the loop is the layout's CPU time; wall-clock on a shared 2-core machine adds
  // whatever else runs (seen at load 19: 10x). Measured in this process, one at a time.
  it('is laid out in under 100 ms of CPU time, six times over', async () => {
    const def = t.modules.registry.get('long');
    expect(def).toBeDefined();
    const cpu: number[] = [];
    for (let i = 0; i < 6; i++) {
      const fields = { title: worstText(TEXT_MAX_LENGTH, 100 + i), accent: '#6366F1' };
      // This thread's CPU alone: the process's also counts the app's start-up work on other
      // threads (one of six samples read 137–191 ms that way on 2026-11-28, whichever text it was).
      const before = process.threadCpuUsage();
      def!.build(fields, { size: DEFAULT_SIZE });
      const used = process.threadCpuUsage(before);
      cpu.push((used.user + used.system) / 1000);
    }
    console.log(
      `layout CPU ms of six ${TEXT_MAX_LENGTH}-character cards: ${cpu.map((c) => c.toFixed(0)).join('/')}`,
    );
    expect(Math.max(...cpu)).toBeLessThan(100);
  });

  it('does not stall /healthz while six worst-case layouts run', { timeout: 120_000 }, async () => {
    const idle = await probe(new Promise((r) => setTimeout(r, 500)));
    const started = performance.now();
    const renders = Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        fetch(`${base}/render/template`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': t.key.key },
          body: JSON.stringify({ template: 'long', title: worstText(TEXT_MAX_LENGTH, i) }),
        }).then(async (r) => ({ status: r.status, timing: r.headers.get('server-timing') ?? '' })),
      ),
    );
    const busy = await probe(renders);
    const results = await renders;
    const layouts = results.map((r) => Number(/layout;dur=([\d.]+)/.exec(r.timing)?.[1]));
    console.log(
      `healthz idle p99 ${p(idle, 0.99).toFixed(1)} ms; during six ${TEXT_MAX_LENGTH}-character layouts ` +
        `(${(performance.now() - started).toFixed(0)} ms, layout ${layouts.map((l) => l.toFixed(0)).join('/')} ms): ` +
        `p50 ${p(busy, 0.5).toFixed(1)}, p99 ${p(busy, 0.99).toFixed(1)}, max ${Math.max(...busy).toFixed(1)} ms over ${busy.length} probes`,
    );
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    // Probes really ran beside the renders. On an idle machine the six finish in ~130 ms, room
    // for about five probes (a CI run had exactly 5 and failed a bound of more than 5).
    expect(busy.length).toBeGreaterThanOrEqual(3);
    // The goal is 100 ms; a 2-core machine that other test files keep busy adds its own stalls
    // (the idle p99 above says how much), so the bound leaves room for that, as
    // test/ops/event-loop.test.ts does. A 10,000-character field stalled it 600-1900 ms.
    expect(p(busy, 0.99)).toBeLessThan(250);
    expect(Math.max(...layouts)).toBeLessThan(250);
  });
});
