/**
 * Loaded into the soak's server with `node --import` (bench only, never in production): every
 * few seconds it writes the process's own memory figures to the file named by SOAK_PROBE_FILE,
 * the ones /metrics does not carry (arrayBuffers, V8's malloced memory, libvips' operation
 * cache, RssAnon vs RssFile). SIGUSR2 writes a V8 heap snapshot next to that file, to find what
 * holds memory if RSS climbs. The variable's name avoids the CARDSHOT_ prefix so the server's
 * unknown-variable warning stays quiet.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import v8 from 'node:v8';

/** What the probe writes, all in bytes unless named otherwise. */
export interface ProbeReading {
  at: number;
  rss: number;
  rssAnon: number;
  rssFile: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  /** V8's own malloc'd memory (outside the JS heap). */
  mallocedMemory: number;
  /** libvips' operation cache: current bytes, files and items (undefined when sharp is absent). */
  sharp?: { memoryCurrent: number; memoryMax: number; files: number; items: number };
}

const file = process.env.SOAK_PROBE_FILE;
if (file) {
  // The server's own copy of sharp (the same module, so the same libvips and the same cache).
  const sharp = await import('sharp').then(
    (m) => m.default,
    () => undefined,
  );
  const kib = (status: string, field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) * 1024;
  const write = () => {
    const m = process.memoryUsage();
    const status = readFileSync('/proc/self/status', 'utf8');
    // sharp.cache() without an argument reads the figures and changes nothing.
    const c = sharp?.cache();
    const reading: ProbeReading = {
      at: Date.now(),
      rss: m.rss,
      rssAnon: kib(status, 'RssAnon'),
      rssFile: kib(status, 'RssFile'),
      heapTotal: m.heapTotal,
      heapUsed: m.heapUsed,
      external: m.external,
      arrayBuffers: m.arrayBuffers,
      mallocedMemory: v8.getHeapStatistics().malloced_memory,
      ...(c
        ? {
            sharp: {
              memoryCurrent: c.memory.current * 2 ** 20,
              memoryMax: c.memory.max * 2 ** 20,
              files: c.files.current,
              items: c.items.current,
            },
          }
        : {}),
    };
    // Written whole and renamed, so the reader never sees half a line.
    writeFileSync(`${file}.tmp`, JSON.stringify(reading));
    renameSync(`${file}.tmp`, file);
  };
  setInterval(write, 2_000).unref();
  write();
  process.on('SIGUSR2', () => {
    v8.writeHeapSnapshot(`${file}.${Date.now()}.heapsnapshot`);
  });
}
