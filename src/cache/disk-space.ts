import { constants } from 'node:fs';
import { access, stat, statfs } from 'node:fs/promises';
import path from 'node:path';
import { describeOsError, errnoCode } from '../lib/os-error.js';

// The disk cache's questions about the disk itself (how much room is left, why a write
// failed) live here, so disk.ts stays about the index and the write queue.

/** Bytes this user may still write on the disk holding `dir` (or its parent, before it exists). */
export async function freeBytes(dir: string): Promise<number | undefined> {
  for (let d = dir; ; d = path.dirname(d)) {
    try {
      const fs = await statfs(d);
      return fs.bavail * fs.bsize;
    } catch {
      if (path.dirname(d) === d) return undefined;
    }
  }
}

/**
 * What a failed cache write means. mkdir -p on a read-only volume fails with ENOENT (the
 * parent it needs cannot be created, and Node reports the first error), which says nothing
 * useful: the nearest existing directory is then asked whether it can be written, and its
 * answer (read-only file system, permission denied) is what the log says.
 */
export async function explainWriteError(err: unknown, dir: string): Promise<string> {
  const code = errnoCode(err);
  if (code === 'ENOENT' || code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
    for (let d = dir; ; d = path.dirname(d)) {
      const exists = await stat(d).then(
        () => true,
        () => false,
      );
      if (exists) {
        const denied = await access(d, constants.W_OK).then(
          () => undefined,
          (e: unknown) => e,
        );
        if (denied)
          return `${d}: ${describeOsError(denied) ?? (denied as Error).message} (${errnoCode(denied)})`;
        break;
      }
      if (path.dirname(d) === d) break;
    }
  }
  const words = describeOsError(err);
  const where = (err as NodeJS.ErrnoException).path;
  if (words) return `${where ? `${where}: ` : ''}${words} (${code})`;
  return err instanceof Error ? err.message : String(err);
}

/** Bytes as MiB with one decimal, for log messages. */
export function mib(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}
