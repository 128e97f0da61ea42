// @module-tag slow
import { afterAll, beforeAll, expect, it } from 'vitest';
import { AppError } from '../../../src/errors.js';
import { createArtworkFetcher } from '../../../src/render/image/artwork.js';
import { type FixtureServer, startFixtureServer } from '../../helpers/servers.js';

// Its own file so the 5 s wait runs beside the other suites instead of after them; `slow`, so
// test:unit leaves it to `npm test` (artwork.test.ts checks a short configured budget there).
let fx: FixtureServer;
beforeAll(async () => {
  fx = await startFixtureServer();
});
afterAll(() => fx.close());

it('gives up on a slow body after the default 5 s, with the default wording', async () => {
  const artwork = createArtworkFetcher({ allowPrivateHosts: [fx.hostPort] });
  const start = performance.now();
  const err = await artwork.fetch(`${fx.url}/slow`).catch((e: unknown) => e);
  const elapsed = performance.now() - start;
  expect(err).toBeInstanceOf(AppError);
  expect([(err as AppError).code, (err as AppError).message]).toEqual([
    'unprocessable',
    'imageUrl timed out after 5 s',
  ]);
  expect(elapsed).toBeGreaterThan(4900);
  expect(elapsed).toBeLessThan(5500);
  await artwork.close();
});
