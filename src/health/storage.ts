import { constants, existsSync } from 'node:fs';
import { access } from 'node:fs/promises';
import { freeBytes } from '../cache/disk-space.js';
import { describeOsError, errnoCode } from '../lib/os-error.js';

const MiB = 1024 * 1024;

/**
 * The data dir check behind /readyz: the disk has at least `minFreeBytes` free (at least 1 MiB
 * when no floor is set), and the data dir and the SQLite files (when the database is SQLite)
 * can be written. Reads keep working on a full or read-only disk, so a plain database round
 * trip said "ok" while every usage write, new key and dashboard sign-in failed.
 * Resolves with a short detail; throws naming every problem.
 */
export async function checkDataDir(opts: {
  dataDir: string;
  /** The SQLite database file; its -wal and -shm files are checked with it. */
  sqliteFile?: string;
  minFreeBytes: number;
}): Promise<string> {
  const problems: string[] = [];
  const floor = Math.max(opts.minFreeBytes, MiB);
  const free = await freeBytes(opts.dataDir);
  if (free !== undefined && free < floor) {
    problems.push(
      `the data disk has ${mib(free)} MiB free, under the floor of ${mib(floor)} MiB (CARDSHOT_DISK_MIN_FREE_BYTES): usage, keys and sessions may fail to be written`,
    );
  }
  const paths = [opts.dataDir];
  if (opts.sqliteFile) {
    paths.push(
      ...[opts.sqliteFile, `${opts.sqliteFile}-wal`, `${opts.sqliteFile}-shm`].filter((f) => existsSync(f)),
    );
  }
  for (const p of paths) {
    const denied = await access(p, constants.W_OK).then(
      () => undefined,
      (err: unknown) => err,
    );
    // A data dir not created yet (PostgreSQL, CARDSHOT_SECRET set, nothing cached so far) is
    // created on first use: nothing to report.
    if (denied && errnoCode(denied) !== 'ENOENT') {
      problems.push(
        `${p} cannot be written: ${describeOsError(denied) ?? (denied as Error).message} (${errnoCode(denied)})`,
      );
    }
  }
  if (problems.length > 0) throw new Error(problems.join('; '));
  return free === undefined ? 'writable' : `writable, ${mib(free)} MiB free`;
}

function mib(bytes: number): string {
  return (bytes / MiB).toFixed(1);
}
