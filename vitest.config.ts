import { accessSync, constants, readdirSync, readFileSync, statfsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import type { TestSpecification } from 'vitest/node';
import { BaseSequencer } from 'vitest/node';

/**
 * Files that assert wall-clock bounds (Redis fail-over and a hung Redis cache tier within 100 ms, an event loop that never
 * stalls, two nodes sharing one capture through 100 ms Redis time-outs, a capture lock kept
 * through 50 ms ones). On a 2-core machine a Chromium suite running beside them can stall the
 * process past those bounds, so `npm test` runs them afterwards, one file at a time
 * (CARDSHOT_TEST_PHASE=timing), and the rest first.
 */
const TIMING = [
  'test/http/render-url-hostile-pages.test.ts',
  'test/cache/redis-cache.test.ts',
  'test/ratelimit/redis-failover.test.ts',
  'test/redis/redis-faults.test.ts',
  'test/storage/postgres-faults.test.ts',
  'test/cache/scale-out.test.ts',
  'test/cache/shared-flight.test.ts',
  'test/ops/event-loop.test.ts',
  'test/render/template/layout-stall.test.ts',
  'test/render/image/hostile-images-load.test.ts',
  'test/webhooks/webhook-tenancy.test.ts',
  'test/ops/node-version.test.ts',
  'test/jobs/jobs-fairness.test.ts',
  'test/roles/roles-postgres.test.ts',
  // Stops within the grace period, timed: under the first phase's load a stop once took 4.3 s
  // against a 4 s bound, and the watchdog ended one at the grace time (SIGKILL, not status 1).
  'test/ops/shutdown.test.ts',
];
const timingPhase = process.env.CARDSHOT_TEST_PHASE === 'timing';

/**
 * What a test needs beyond this process, or that it takes seconds by design. A file says it
 * with `// @module-tag chromium` (or `process`, `slow`) at its top, a single test with
 * `{ tags: ['chromium'] }`. `npm test` runs them all; `npm run test:unit`
 * (CARDSHOT_TEST_PHASE=unit) runs the rest, and test/helpers/no-processes.ts makes any process
 * started there fail, naming the tag to add.
 */
const TAGS = [
  {
    name: 'chromium',
    description: 'launches Chromium: a screenshot, the dashboard in a browser, the doctor',
  },
  {
    name: 'process',
    description:
      'starts a process: the built server, the CLI, nginx, redis-server, a helper binary, a child node',
  },
  {
    name: 'slow',
    description:
      'takes seconds however fast the machine: a real time-out waited out in full, a flood of requests, a re-measurement of the fonts',
  },
];
const NOT_UNIT = /@module-tag\s+(chromium|process|slow)\b/;
const unitPhase = process.env.CARDSHOT_TEST_PHASE === 'unit';

/** Test files with none of those module tags, so test:unit never even loads the others. */
function unitFiles(): string[] {
  const root = fileURLToPath(new URL('.', import.meta.url));
  return readdirSync(`${root}test`, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.test.ts'))
    .map((file) => `test/${file}`)
    .filter((file) => !TIMING.includes(file))
    .filter((file) => !NOT_UNIT.test(readFileSync(`${root}${file}`, 'utf8')));
}

/** /dev/shm when it is a writable tmpfs with room for the unit tier's files (1 GiB). */
function inMemoryTmp(): string | undefined {
  try {
    const fs = statfsSync('/dev/shm');
    accessSync('/dev/shm', constants.W_OK);
    return fs.bavail * fs.bsize > 2 ** 30 ? '/dev/shm' : undefined;
  } catch {
    return undefined;
  }
}
const memoryTmp = timingPhase ? undefined : inMemoryTmp();

/**
 * How the unit files run, in test:unit and in the first phase of `npm test` alike. One module
 * graph per worker instead of one per file: importing the app afresh for each of ~75 files was
 * 134 of test:unit's 139 s of imports; in the first phase, imports fell from 300 s to 142 s
 * (clean CI, 2026-11-29). Every unit file passes so, its Chromium-tagged tests too; one that
 * leaves global state behind (fake timers, listeners) would show it here.
 * Temporary data dirs go to memory where there is one: each test app's SQLite set-up and close
 * waited on fsync, about a second of the run on a busy disk.
 */
const shared = { isolate: false, ...(memoryTmp ? { env: { TMPDIR: memoryTmp } } : {}) } as const;

/**
 * The first phase of `npm test` as two projects sharing its two workers: the unit files
 * (above), and the rest, each file in a fresh module graph. A whole run without isolation saved
 * 200 s of 1,250, but the wall-clock bounds of the Chromium files then ran 20–50 % slower (two
 * missed theirs in one of two runs), so those keep theirs.
 */
const firstPhaseProjects = () => {
  const unit = unitFiles();
  return [
    { extends: true as const, test: { name: 'unit', include: unit, ...shared } },
    {
      extends: true as const,
      test: { name: 'system', include: ['test/**/*.test.ts'], exclude: [...TIMING, ...unit] },
    },
  ];
};

/**
 * The first phase's order: vitest runs one project's files after the other's, so the system
 * files' waits (time-outs, process starts, Chromium launches) left a core idle for ~25 % of
 * their 740 s. Spreading the unit files evenly among them fills those waits, as the one-project
 * run did before (the Chromium files' bounds were set under that mix). Within each project
 * vitest's own order stands: failed first, then longest (or largest) first. Measured in one
 * clean CI each: the first phase 926 → 899 s; the unit workers are made more often (imports
 * 142 → 199 s), which takes back most of what the filled waits give.
 */
class InterleavedSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const unit = sorted.filter((f) => f.project.name === 'unit');
    const system = sorted.filter((f) => f.project.name !== 'unit');
    const out: TestSpecification[] = [];
    let u = 0;
    let s = 0;
    while (u < unit.length || s < system.length) {
      // Take from whichever list is further behind its share of the whole.
      const takeSystem = u >= unit.length || (s < system.length && s / system.length <= u / unit.length);
      out.push(takeSystem ? system[s++]! : unit[u++]!);
    }
    return out;
  }
}

export default defineConfig({
  test: {
    ...(timingPhase
      ? { include: TIMING }
      : unitPhase
        ? {
            include: unitFiles(),
            tagsFilter: ['!chromium && !process && !slow'],
            setupFiles: ['test/helpers/no-processes.ts'],
            ...shared,
          }
        : { projects: firstPhaseProjects(), sequence: { sequencer: InterleavedSequencer } }),
    tags: TAGS,
    // Renders and fixture servers share 2 cores; a few files at once keeps timings honest.
    // test:unit runs three: a third of its time is waiting (time-outs, Retry-After), and a third
    // worker draws cards meanwhile (27 s with two on the idle machine, 23 s with three).
    maxWorkers: timingPhase ? 1 : unitPhase ? 3 : 2,
    fileParallelism: !timingPhase,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
