import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors.js';
import { useArtworkFixture } from '../../helpers/artwork.js';

// Issue 20: imageUrl downloads are bounded in number (per node and per account) and in bytes
// held, and every refusal is a 503 or 429 with Retry-After, never a queue of buffers.
const fixture = useArtworkFixture({ timeoutMs: 1500 });
const { artwork } = fixture;

/** What a refused fetch looks like to a client. */
async function refusal(p: Promise<unknown>) {
  const err = await p.then(
    () => new Error('expected an AppError'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  const e = err as AppError;
  return { code: e.code, message: e.message, retryAfter: e.retryAfter };
}

const ACCOUNT_BUSY = {
  code: 'rate_limited',
  message: 'Too many imageUrl downloads at once for this account (at most 2); retry shortly',
  retryAfter: 2,
};
const SERVER_BUSY = {
  code: 'unavailable',
  message: 'Too many imageUrl downloads in progress on this server; retry shortly',
  retryAfter: 2,
};

/** Lets the fetches started so far reach their download (admission happens on the next tick). */
const settle = () => new Promise((r) => setTimeout(r, 20));

// Concurrent: each test has a fetcher of its own, and three of them wait out the 1.5 s time-out.
describe.concurrent('imageUrl downloads in flight', () => {
  it('429 past the per-account limit; other accounts and joiners of a running download still go', async () => {
    const a = artwork({ maxFetchesPerAccount: 2 });
    const slow = [1, 2].map((i) =>
      a.fetch(`${fixture.fx.url}/slow?a${i}`, undefined, { account: 'a' }).catch(() => {}),
    );
    await settle();
    expect(await refusal(a.fetch(`${fixture.fx.url}/slow?a3`, undefined, { account: 'a' }))).toEqual(
      ACCOUNT_BUSY,
    );
    // Joining the same URL starts no new download.
    const joined = a.fetch(`${fixture.fx.url}/slow?a1`, undefined, { account: 'a' }).catch(() => {});
    const other = a.fetch(`${fixture.fx.url}/slow?b1`, undefined, { account: 'b' }).catch((e: unknown) => e);
    await settle();
    expect(a.stats().fetching).toBe(3);
    await Promise.all([...slow, joined]);
    // The slow fixture times out (422): the other account was admitted, not refused.
    expect(((await other) as AppError).code).toBe('unprocessable');
    expect(a.stats()).toEqual({ fetching: 0, bytesInFlight: 0 });
    // Slots are given back: the account may download again.
    const again = await a.fetch(`${fixture.fx.url}/image/png`, undefined, { account: 'a' });
    again.release();
  });

  it('503 past the per-node limit, whoever asks', async () => {
    const a = artwork({ maxFetches: 2 });
    const slow = [1, 2].map((i) =>
      a.fetch(`${fixture.fx.url}/slow?n${i}`, undefined, { account: `x${i}` }).catch(() => {}),
    );
    await settle();
    expect(await refusal(a.fetch(`${fixture.fx.url}/slow?n3`, undefined, { account: 'y' }))).toEqual(
      SERVER_BUSY,
    );
    expect(await refusal(a.fetch(`${fixture.fx.url}/slow?n4`))).toEqual(SERVER_BUSY);
    await Promise.all(slow);
    expect(a.stats()).toEqual({ fetching: 0, bytesInFlight: 0 });
  });

  it('503 when the bytes in flight cannot hold one more largest body', async () => {
    // Room for two bodies of the cap: each download sets the cap aside until it ends.
    const a = artwork({ maxBytes: 1_000_000, maxBytesInFlight: 2_000_000 });
    const slow = [1, 2].map((i) => a.fetch(`${fixture.fx.url}/slow?b${i}`).catch(() => {}));
    await settle();
    expect(a.stats()).toEqual({ fetching: 2, bytesInFlight: 2_000_000 });
    expect(await refusal(a.fetch(`${fixture.fx.url}/image/png`))).toEqual(SERVER_BUSY);
    await Promise.all(slow);
    expect(a.stats()).toEqual({ fetching: 0, bytesInFlight: 0 });
  });

  it('counts a body while anyone holds it, once, and gives it back on release', async () => {
    // Room for one body of the cap, and no more.
    const a = artwork({ maxBytes: 1_000_000, maxBytesInFlight: 1_000_000 });
    const first = await a.fetch(`${fixture.fx.url}/image/png`);
    const second = await a.fetch(`${fixture.fx.url}/image/png`); // the short cache: the same buffer
    expect(second.bytes).toBe(first.bytes);
    expect(a.stats().bytesInFlight).toBe(fixture.fx.images.png.length);
    // A body held leaves less room: no full-size download fits beside it.
    expect(await refusal(a.fetch(`${fixture.fx.url}/image/jpeg`))).toEqual(SERVER_BUSY);
    first.release();
    first.release(); // idempotent
    expect(a.stats().bytesInFlight).toBe(fixture.fx.images.png.length);
    second.release();
    expect(a.stats().bytesInFlight).toBe(0);
    (await a.fetch(`${fixture.fx.url}/image/jpeg`)).release();
  });
});
