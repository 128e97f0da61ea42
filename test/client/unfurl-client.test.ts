import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { Cardshot, CardshotError, type UnfurlReport } from '../../src/client/index.js';
import type { UnfurlReport as ServerReport } from '../../src/sites/unfurl/types.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startUnfurlSite, type UnfurlSite } from '../helpers/unfurl-site.js';

// cardshot.unfurl() over real HTTP, and the client's own declaration of the report kept the
// same shape as the server's.

let t: TestApp;
let site: UnfurlSite;
let client: Cardshot;

beforeAll(async () => {
  site = await startUnfurlSite();
  t = await startTestApp({ allowPrivateHosts: site.hostPorts }, { unfurlCa: site.ca });
  const baseUrl = await t.listen();
  client = new Cardshot({ baseUrl, apiKey: t.key.key });
}, 30_000);
afterAll(async () => {
  await t?.close();
  await site?.close();
});

describe('Cardshot.unfurl', () => {
  it('declares the report the server sends', () => {
    expectTypeOf<ServerReport>().toMatchTypeOf<UnfurlReport>();
    expectTypeOf<UnfurlReport['platforms'][number]['card']>().toEqualTypeOf<
      ServerReport['platforms'][number]['card']
    >();
  });

  it('answers the report, and throws CardshotError with the server’s message', async () => {
    const r = await client.unfurl(`${site.url}/no-twitter-card`);
    expect(r.summary).toEqual({ errors: 0, warnings: 1, infos: 0 });
    expect(r.problems[0]).toMatchObject({
      code: 'twitter_card_missing',
      platforms: ['x', 'slack', 'discord', 'telegram'],
    });
    const err = await client.unfurl('http://10.0.0.1/').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CardshotError);
    expect((err as CardshotError).status).toBe(400);
    expect((err as CardshotError).message).toBe('url points to an address that is not allowed');
  });
});
