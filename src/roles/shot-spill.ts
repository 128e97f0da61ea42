/**
 * Large screenshot answers travel between a worker and its API node as files, not as `bytea`.
 * A 6.5 MB full-page PNG through PostgreSQL cost ~250 ms on this machine (written into the
 * UNLOGGED row, read back as 13 MB of hex text and decoded: `npm run bench:roles`); written to
 * the job results directory, which every node of a database mounts (jobs/results-volume.ts
 * checks it at start), and read back by the API node, it costs a few milliseconds. The row still
 * carries the answer's facts and wakes the API node; small answers stay in the row.
 */
import { mkdir, readdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Answers at least this large go through a file. */
export const SPILL_BYTES = 256 * 1024;
/** Files nobody collected (their API node gave up or died) go after this long. */
const ORPHAN_MS = 5 * 60_000;

const fileOf = (dir: string, id: string) => {
  // The id is the task's uuid (the worker read it from the row); nothing else names a file here.
  if (!/^[0-9a-f-]{36}$/.test(id)) throw new Error(`not a task id: ${id.slice(0, 40)}`);
  return path.join(dir, `${id}.bin`);
};

/** The worker's side: writes the body (whole or not at all: a rename) and returns its file name. */
export async function spill(dir: string, id: string, body: Buffer): Promise<void> {
  const file = fileOf(dir, id);
  await mkdir(dir, { recursive: true });
  const partial = `${file}.partial`;
  await writeFile(partial, body);
  await rename(partial, file);
}

/** The API node's side: the body, and the file gone. Throws when it is missing. */
export async function collectSpilled(dir: string, id: string): Promise<Buffer> {
  const file = fileOf(dir, id);
  const body = await readFile(file);
  await unlink(file).catch(() => {});
  return body;
}

/** Deletes a file that will not be collected (the task was abandoned or handed back). */
export async function dropSpilled(dir: string, id: string): Promise<void> {
  await unlink(fileOf(dir, id)).catch(() => {});
}

/** Deletes files older than five minutes: what API nodes that died never collected. */
export async function sweepSpilled(dir: string, now = Date.now()): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const file = path.join(dir, name);
    const info = await stat(file).catch(() => undefined);
    if (info?.isFile() && now - info.mtimeMs > ORPHAN_MS) {
      await unlink(file).catch(() => {});
      removed++;
    }
  }
  return removed;
}
