/**
 * With the PostgreSQL store, any node may run an item and any node may be asked for its image,
 * so every node must see the same results directory (a shared volume: NFS, EFS, a CephFS or
 * Longhorn RWX claim). A node that writes results to a directory of its own would answer 404 or
 * a broken body for half of the images, silently; so instead it refuses to start. The
 * directory holds a random volume id (written once, atomically); the database holds the id of
 * the first directory any node used; a node whose directory holds another id (or whose marker
 * was lost) is pointed at the setting, with both ids to compare.
 */
import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../config/load.js';
import type { Store } from '../storage/store.js';

/** The marker's name in the results directory. */
export const VOLUME_FILE = '.cardshot-results-volume';
/** The database's record of the shared directory (the meta table). */
export const VOLUME_META = 'jobs_results_volume';

/** The directory's volume id, made on first use; two nodes making it at once agree on one. */
async function volumeIdOf(dir: string): Promise<string> {
  const file = path.join(dir, VOLUME_FILE);
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const id = `vol_${randomBytes(12).toString('base64url')}`;
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(tmp, `${id}\n`, { mode: 0o600 });
  try {
    // link() fails when the name exists: of two nodes on one volume, one id wins, whole.
    await link(tmp, file);
    return id;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return (await readFile(file, 'utf8')).trim();
  } finally {
    await unlink(tmp).catch(() => {});
  }
}

/**
 * Checks that `dir` is the results directory every node of this database uses (the first one
 * to start names it); throws a ConfigError naming CARDSHOT_JOBS_RESULTS_DIR when it is not.
 */
export async function checkSharedResults(
  dir: string,
  store: Pick<Store, 'claimMeta' | 'getMeta'>,
): Promise<void> {
  const mine = await volumeIdOf(dir);
  if (await store.claimMeta(VOLUME_META, mine)) return;
  const shared = await store.getMeta(VOLUME_META);
  if (shared === mine) return;
  throw new ConfigError(
    `CARDSHOT_JOBS_RESULTS_DIR: ${dir} is not the job results directory the other nodes of this database use (it holds volume ${mine}, the database's is ${shared}): with several nodes every node must mount the same shared directory there, or one node's results are missing on the others (docs/deploy.md, "Job results"). If this is that directory and its ${VOLUME_FILE} file was lost, write "${shared}" into it.`,
  );
}
