// @module-tag process
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors.js';
import { createArtworkFetcher } from '../../../src/render/image/artwork.js';
import { DECODE_CHILD_MARKER } from '../../../src/render/image/decode-child.js';
import {
  createDecodePool,
  DecodeLimitError,
  type ImageDecoder,
} from '../../../src/render/image/decode-pool.js';
import { scanBombJpeg } from '../../helpers/hostile-images.js';

// Faults a real decode cannot produce on demand (a child that spins, grows or stalls) come
// from fake children; the limits themselves are the real ones, on real processes.
const HANG = `${DECODE_CHILD_MARKER}\nprocess.on('message', () => { for (;;) {} });\nprocess.send({ ready: true });`;
const GROW = `${DECODE_CHILD_MARKER}
const keep = [];
process.on('message', () => setInterval(() => keep.push(Buffer.alloc(4 << 20, 1)), 2));
process.send({ ready: true });`;
const STALL = `${DECODE_CHILD_MARKER}\nprocess.on('message', () => {});\nprocess.send({ ready: true });`;
const CRASH = `${DECODE_CHILD_MARKER}\nprocess.on('message', () => process.abort());\nprocess.send({ ready: true });`;

const open: ImageDecoder[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((d) => d.close()));
});
function pool(opts: Partial<Parameters<typeof createDecodePool>[0]> = {}): ImageDecoder {
  const d = createDecodePool({ workers: 1, cpuMs: 300, memoryBytes: 32 * 1024 * 1024, ...opts });
  open.push(d);
  return d;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const red = () =>
  sharp({ create: { width: 40, height: 30, channels: 3, background: '#ff0000' } })
    .png()
    .toBuffer();

async function limitOf(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => new Error('expected a DecodeLimitError'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DecodeLimitError);
  return (err as DecodeLimitError).limit;
}

describe('the decode pool', () => {
  it('decodes in a warm child it keeps, off this process', async () => {
    const d = pool();
    const png = await red();
    expect(await d.metadata(png, {})).toEqual({ format: 'png', width: 40, height: 30 });
    const pid = d.stats().pids[0];
    const out = await d.transform(png, {}, [['resize', 20, 15], ['png']]);
    expect([out.width, out.height]).toEqual([20, 15]);
    expect((await sharp(out.data).metadata()).width).toBe(20);
    expect(d.stats()).toMatchObject({ children: 1, killed: 0, pids: [pid] });
    expect(pid).not.toBe(process.pid);
  });

  it('kills a child that spins past its CPU time, and the next job gets a new child', async () => {
    const d = pool({ childCode: HANG });
    const start = performance.now();
    expect(await limitOf(d.metadata(Buffer.from('x'), {}))).toBe('time');
    expect(performance.now() - start).toBeLessThan(3000);
    const [pid] = d.stats().pids;
    expect(d.stats()).toMatchObject({ children: 0, killed: 1 });
    expect(await limitOf(d.metadata(Buffer.from('x'), {}))).toBe('time');
    expect(d.stats().killed).toBe(2);
    expect(pid === undefined || !alive(pid)).toBe(true);
  });

  it('kills a child that grows past its memory limit', async () => {
    const d = pool({ childCode: GROW, cpuMs: 10_000 });
    expect(await limitOf(d.metadata(Buffer.from('x'), {}))).toBe('memory');
    expect(d.stats()).toMatchObject({ children: 0, killed: 1 });
  });

  it('kills a child that stalls past the wall-clock backstop', async () => {
    const d = pool({ childCode: STALL, wallMs: 300 });
    expect(await limitOf(d.metadata(Buffer.from('x'), {}))).toBe('stalled');
    expect(d.stats()).toMatchObject({ children: 0, killed: 1 });
  });

  it('runs one job per account at a time and refuses a flood with 429, while another account is served', async () => {
    const d = pool({ childCode: HANG, workers: 2, maxWaitingPerAccount: 2 });
    const mallory = [1, 2, 3].map(() =>
      d.metadata(Buffer.from('x'), {}, 'acc_mallory').catch((e: unknown) => e),
    );
    const fourth = await d.metadata(Buffer.from('x'), {}, 'acc_mallory').catch((e: unknown) => e);
    expect(fourth).toBeInstanceOf(AppError);
    expect([(fourth as AppError).code, (fourth as AppError).message]).toEqual([
      'rate_limited',
      'Too many images being decoded at once for this account; retry shortly',
    ]);
    // Mallory holds one of the two children; the victim gets the other at once.
    expect(d.stats().running).toBe(1);
    const victim = d.metadata(Buffer.from('x'), {}, 'acc_victim').catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 50));
    expect(d.stats().running).toBe(2);
    await Promise.all([...mallory, victim]);
  });

  it('fails the jobs in flight at close and refuses new ones', async () => {
    const d = pool({ childCode: STALL, wallMs: 60_000 });
    const job = d.metadata(Buffer.from('x'), {});
    await new Promise((r) => setTimeout(r, 300));
    const pid = d.stats().pids[0] as number;
    await d.close();
    await expect(job).rejects.toMatchObject({
      code: 'unavailable',
      message: 'The image decoder is shutting down; retry shortly',
    });
    await new Promise((r) => setTimeout(r, 100));
    expect(alive(pid)).toBe(false);
    await expect(d.metadata(Buffer.from('x'), {})).rejects.toMatchObject({ code: 'unavailable' });
  });
});

describe('artwork behind the structure check (what no check foresaw)', () => {
  it('a scan bomb let through is stopped by the CPU limit: 422, the child replaced', async () => {
    const decoder = pool({ cpuMs: 1000, memoryBytes: 64 * 1024 * 1024 });
    const a = createArtworkFetcher({
      allowPrivateHosts: [],
      decoder,
      structure: { maxJpegScans: 1_000_000 },
    });
    // 4000×4000 with 4,000 scans: about 4 s of CPU in sharp here (32 MB of coefficients).
    const bomb = scanBombJpeg(4000, 4000);
    const err = await a.prepare(bomb, { width: 300, height: 200, fit: 'cover' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect([(err as AppError).code, (err as AppError).message]).toEqual([
      'unprocessable',
      'imageUrl took too long to decode (more than 1 s of CPU)',
    ]);
    expect(decoder.stats().killed).toBe(1);
    // Refused once by content hash: the same bytes are not decoded again.
    const again = performance.now();
    await expect(a.prepare(bomb, { width: 300, height: 200, fit: 'cover' })).rejects.toBe(err);
    expect(performance.now() - again).toBeLessThan(100);
    expect(decoder.stats().killed).toBe(1);
    const ok = await a.prepare(await red(), { width: 300, height: 200, fit: 'cover' });
    expect([ok.width, ok.height]).toEqual([300, 200]);
    await a.close();
  });

  it('a stalled child is a 503 (not the image’s fault, not remembered); a crashed one a 422', async () => {
    const png = await red();
    const target = { width: 30, height: 30, fit: 'cover' as const };
    const stalled = createArtworkFetcher({
      allowPrivateHosts: [],
      decoder: pool({ childCode: STALL, wallMs: 300 }),
    });
    for (let i = 0; i < 2; i++) {
      await expect(stalled.prepare(png, target)).rejects.toMatchObject({
        code: 'unavailable',
        message: 'The image decoder is busy; retry shortly',
        retryAfter: 1,
      });
    }
    const crashed = createArtworkFetcher({ allowPrivateHosts: [], decoder: pool({ childCode: CRASH }) });
    await expect(crashed.prepare(png, target)).rejects.toMatchObject({
      code: 'unprocessable',
      message: 'imageUrl could not be decoded as PNG',
    });
    await stalled.close();
    await crashed.close();
  });

  it('decodes one image once per target size (prepared cache by content hash)', async () => {
    const decoder = pool();
    let jobs = 0;
    const counting: ImageDecoder = {
      ...decoder,
      metadata: (...args) => {
        jobs++;
        return decoder.metadata(...args);
      },
    };
    const a = createArtworkFetcher({ allowPrivateHosts: [], decoder: counting });
    const png = await red();
    const first = await a.prepare(png, { width: 100, height: 100, fit: 'cover' }, { account: 'acc_a' });
    const second = await a.prepare(
      Buffer.from(png),
      { width: 100, height: 100, fit: 'cover' },
      { account: 'acc_b' },
    );
    expect(second.data.equals(first.data)).toBe(true);
    expect(jobs).toBe(1);
    await a.prepare(png, { width: 100, height: 50, fit: 'cover' });
    expect(jobs).toBe(2);
    await a.close();
  });
});
