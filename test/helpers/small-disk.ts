import { execFileSync } from 'node:child_process';
import { mkdtemp, open, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/**
 * A real small file system (tmpfs) for full-disk and read-only faults: a test mounts it, fills
 * it or remounts it read-only, and unmounts it after. Needs root (CAP_SYS_ADMIN); `available`
 * says whether this machine allows it, so the tests can be skipped elsewhere.
 */
export interface SmallDisk {
  dir: string;
  /** Writes filler until the file system answers ENOSPC; returns a function that frees it. */
  fill(): Promise<() => Promise<void>>;
  readOnly(on: boolean): void;
  close(): Promise<void>;
}

export const smallDiskAvailable = (() => {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
  try {
    execFileSync('mount', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

export async function mountSmallDisk(sizeBytes: number): Promise<SmallDisk> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-disk-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes}`, 'tmpfs', dir]);
  let fillers = 0;
  return {
    dir,
    async fill() {
      const file = path.join(dir, `filler-${fillers++}`);
      const fh = await open(file, 'w');
      const chunk = Buffer.alloc(64 * 1024, 1);
      try {
        for (;;) {
          try {
            await fh.write(chunk);
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code === 'ENOSPC') break;
            throw err;
          }
        }
        // The last partial chunk too: nothing left at all.
        for (let size = 32 * 1024; size >= 512; size /= 2) {
          try {
            await fh.write(Buffer.alloc(size, 1));
          } catch {
            // ENOSPC: try a smaller one
          }
        }
      } finally {
        await fh.close();
      }
      return () => rm(file, { force: true });
    },
    readOnly(on) {
      execFileSync('mount', ['-o', `remount,${on ? 'ro' : 'rw'}`, dir]);
    },
    async close() {
      try {
        execFileSync('umount', ['-l', dir]);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}
