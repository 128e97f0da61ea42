import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';

/** glibc malloc's own account of a process, in MiB, read with gdb (bench only). */
export interface MallocReport {
  arenas: number;
  /** Bytes malloc holds from the system in its arenas (the `system current` total). */
  arenaMiB: number;
  /** Of those, free chunks malloc keeps instead of giving them back. */
  freeMiB: number;
  /** Large blocks served by mmap (given back on free). */
  mmapMiB: number;
  /** The process's RSS before and after `malloc_trim(0)`. */
  rssBeforeMiB: number;
  rssAfterMiB: number;
}

const rssMiB = (pid: number) =>
  Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Number.NaN) / 1024;

/**
 * Attaches gdb to `pid` for a second: `malloc_info` into `xmlFile`, then `malloc_trim(0)`. What
 * the trim gives back was free memory glibc kept (fragmentation or arenas), not live objects: the
 * line between an allocator holding memory and a leak. Undefined when gdb is missing or cannot
 * attach (ptrace not allowed).
 */
export function readMalloc(pid: number, xmlFile: string): MallocReport | undefined {
  const rssBeforeMiB = rssMiB(pid);
  try {
    execFileSync(
      'gdb',
      [
        '-p',
        String(pid),
        '-batch',
        '-ex',
        `call (int)malloc_info(0, (void*)fopen("${xmlFile}", "w"))`,
        '-ex',
        'call (int)fflush(0)',
        '-ex',
        'call (int)malloc_trim(0)',
      ],
      { stdio: 'ignore', timeout: 60_000 },
    );
    const xml = readFileSync(xmlFile, 'utf8');
    rmSync(xmlFile, { force: true });
    // The summary after the last </heap>: totals over every arena.
    const tail = xml.slice(xml.lastIndexOf('</heap>'));
    const total = (type: string, attr = 'size') =>
      Number(new RegExp(`<total type="${type}" count="\\d+" ${attr}="(\\d+)"`).exec(tail)?.[1] ?? 0);
    const system = Number(/<system type="current" size="(\d+)"/.exec(tail)?.[1] ?? Number.NaN);
    const MiB = 2 ** 20;
    return {
      arenas: (xml.match(/<heap nr=/g) ?? []).length,
      arenaMiB: system / MiB,
      freeMiB: (total('fast') + total('rest')) / MiB,
      mmapMiB: total('mmap') / MiB,
      rssBeforeMiB,
      rssAfterMiB: rssMiB(pid),
    };
  } catch {
    return undefined;
  }
}

/** One line for the soak's summary. */
export function describeMalloc(m: MallocReport | undefined): string {
  if (!m) return 'glibc malloc: not read (gdb missing or not allowed to attach)\n';
  return `glibc malloc: ${m.arenas} arenas hold ${m.arenaMiB.toFixed(0)} MiB, ${m.freeMiB.toFixed(0)} MiB of it free chunks; ${m.mmapMiB.toFixed(0)} MiB in mmap blocks. malloc_trim(0): RSS ${m.rssBeforeMiB.toFixed(0)} → ${m.rssAfterMiB.toFixed(0)} MiB\n`;
}
