import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { collectSpilled, dropSpilled, spill, sweepSpilled } from '../../src/roles/shot-spill.js';

// The hand-over of large screenshot answers between a worker and its API node (shot-spill.ts).
const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});
const folder = async () => {
  const d = await mkdtemp(path.join(os.tmpdir(), 'cardshot-spill-'));
  dirs.push(d);
  return path.join(d, '.remote-shots');
};
const ID = '0f8fad5b-d9cb-469f-a165-70867728950e';

describe('screenshot answers handed over as files', () => {
  it('are written whole, read once and gone; an abandoned one is dropped', async () => {
    const dir = await folder();
    const body = Buffer.alloc(300_000, 7);
    await spill(dir, ID, body);
    expect((await collectSpilled(dir, ID)).equals(body)).toBe(true);
    expect(await readdir(dir)).toEqual([]);
    await expect(collectSpilled(dir, ID)).rejects.toThrow(/ENOENT/);
    await spill(dir, ID, body);
    await dropSpilled(dir, ID);
    expect(await readdir(dir)).toEqual([]);
  });

  it('name files by task id only, and sweep what nobody collected after five minutes', async () => {
    const dir = await folder();
    await expect(spill(dir, '../../etc/passwd', Buffer.from('x'))).rejects.toThrow('not a task id');
    await spill(dir, ID, Buffer.from('old'));
    const young = '1b4e28ba-2fa1-11d2-883f-0016d3cca427';
    await spill(dir, young, Buffer.from('new'));
    const old = new Date(Date.now() - 6 * 60_000);
    await utimes(path.join(dir, `${ID}.bin`), old, old);
    await writeFile(path.join(dir, 'stray.partial'), 'x');
    await utimes(path.join(dir, 'stray.partial'), old, old);
    expect(await sweepSpilled(dir)).toBe(2);
    expect(await readdir(dir)).toEqual([`${young}.bin`]);
    expect(await sweepSpilled(path.join(dir, 'missing'))).toBe(0);
  });
});
