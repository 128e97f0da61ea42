import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors.js';
import type { PreparedArtwork } from '../../../src/render/image/artwork-image.js';
import { createPreparedCache } from '../../../src/render/image/prepared-cache.js';

const target = { width: 10, height: 10, fit: 'cover' as const };
const art = (size: number): PreparedArtwork => ({ data: Buffer.alloc(size), width: 10, height: 10 });

/** A preparer that counts its calls. */
function counting(make: () => Promise<PreparedArtwork>) {
  const f = Object.assign(
    () => {
      f.calls++;
      return make();
    },
    { calls: 0 },
  );
  return f;
}

describe('the prepared-artwork cache', () => {
  it('prepares one image once per target, whoever asks, and joins a preparation in flight', async () => {
    const cache = createPreparedCache({ maxBytes: 1_000_000, maxBytesPerAccount: 250_000 });
    const prepare = counting(async () => art(1000));
    const bytes = Buffer.from('image');
    const [a, b] = await Promise.all([
      cache.get(bytes, target, { account: 'acc_a' }, prepare),
      cache.get(bytes, target, { account: 'acc_b' }, prepare),
    ]);
    expect(a).toBe(b);
    expect(await cache.get(bytes, target, { account: 'acc_b' }, prepare)).toBe(a);
    expect(prepare.calls).toBe(1);
    await cache.get(bytes, { ...target, fit: 'contain' }, {}, prepare);
    expect(prepare.calls).toBe(2);
  });

  it('remembers the image’s own refusal (422), not a busy queue (429, 503)', async () => {
    const cache = createPreparedCache({ maxBytes: 1_000_000, maxBytesPerAccount: 250_000 });
    const refused = new AppError('unprocessable', 'imageUrl took too long to decode (more than 1 s of CPU)');
    const bad = counting(() => Promise.reject(refused));
    for (let i = 0; i < 3; i++)
      await expect(cache.get(Buffer.from('bomb'), target, {}, bad)).rejects.toBe(refused);
    expect(bad.calls).toBe(1);
    const busy = counting(() => Promise.reject(new AppError('rate_limited', 'busy')));
    for (let i = 0; i < 3; i++)
      await expect(cache.get(Buffer.from('x'), target, {}, busy)).rejects.toThrow('busy');
    expect(busy.calls).toBe(3);
  });

  it('keeps at most an account’s share: past it, its new images are prepared but not kept', async () => {
    const cache = createPreparedCache({ maxBytes: 400_000, maxBytesPerAccount: 100_000 });
    const prepare = counting(async () => art(40_000));
    for (let i = 0; i < 5; i++)
      await cache.get(Buffer.from(`m${i}`), target, { account: 'acc_mallory' }, prepare);
    // Two fit in 100 kB (with their overhead); the victim's image still fits beside them.
    expect(cache.stats().entries).toBe(2);
    await cache.get(Buffer.from('v'), target, { account: 'acc_victim' }, prepare);
    expect(cache.stats().entries).toBe(3);
    const before = prepare.calls;
    await cache.get(Buffer.from('m0'), target, { account: 'acc_mallory' }, prepare);
    await cache.get(Buffer.from('m4'), target, { account: 'acc_mallory' }, prepare);
    expect(prepare.calls - before).toBe(1);
  });
});
