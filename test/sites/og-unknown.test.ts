import { describe, expect, it } from 'vitest';
import { isAppError } from '../../src/errors.js';
import { createOgService } from '../../src/sites/og/service.js';
import { fakeClock } from '../helpers/clock.js';

// GET /og takes no key, so made-up site ids are free to send: each id costs one database
// lookup per 5 s however often it is asked for, and a site made meanwhile is found at once.
describe('GET /og for a site id that does not exist', () => {
  it('looks the id up once per 5 s, and finds a site that was made since it was forgotten', async () => {
    const clock = fakeClock();
    let lookups = 0;
    const og = createOgService({
      store: {
        findSite: async () => {
          lookups++;
          return undefined;
        },
      },
      getAccount: async () => undefined,
      plans: new Map() as never,
      registry: () => ({}) as never,
      pages: {} as never,
      render: {} as never,
      usage: { record: () => {} },
      clock,
    });
    const ask = () =>
      og.answer('site_0123abcd', '/post', undefined, {}).then(
        () => 'found',
        (err: unknown) => (isAppError(err, 'not_found') ? err.message : String(err)),
      );
    for (let i = 0; i < 50; i++) expect(await ask()).toBe('No such site');
    expect(lookups).toBe(1);
    clock.advance(5001);
    expect(await ask()).toBe('No such site');
    expect(lookups).toBe(2);
    og.forget('site_0123abcd');
    await ask();
    expect(lookups).toBe(3);
  });
});
