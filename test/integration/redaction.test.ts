import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey } from '../../src/auth/keys.js';
import { signUrl } from '../../src/auth/signing.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

// Keys never reach a log line: every way a key can arrive, valid or not, then every captured line is searched.
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ logLevel: 'debug' });
});
afterAll(async () => t.close());

describe('logs', () => {
  it('never contain an API key, a signing secret or a signature, from the header, the query or a signed URL', async () => {
    const wrong = generateKey('production').key;
    const signed = signUrl('/render/template?template=blog&title=Logged', {
      keyId: t.key.record.id,
      signingSecret: t.key.signingSecret,
      expiresAt: Math.floor(Date.now() / 1000) + 60,
    });
    const sig = new URL(signed, 'http://x').searchParams.get('sig')!;
    const responses = await Promise.all([
      t.inject({ method: 'GET', url: '/render/template?template=blog&title=Logged' }),
      t.inject({
        method: 'GET',
        url: `/render/template?template=blog&title=Logged&api_key=${t.key.key}`,
        auth: false,
      }),
      t.inject({
        method: 'GET',
        url: `/render/template?template=blog&title=Logged&api_key=${wrong}`,
        auth: false,
      }),
      t.inject({
        method: 'GET',
        url: '/render/template?template=blog&title=Logged',
        headers: { 'x-api-key': wrong },
      }),
      t.inject({ method: 'GET', url: signed, auth: false }),
      t.inject({ method: 'GET', url: `${signed.slice(0, -3)}AAA`, auth: false }),
      t.inject({
        method: 'POST',
        url: `/render/template?api_key=${t.key.key}`,
        payload: { template: 'nope' },
      }),
    ]);
    expect(responses.map((r) => r.statusCode)).toEqual([200, 200, 401, 401, 200, 401, 400]);
    const text = JSON.stringify(t.logs);
    expect(t.logs.filter((l) => l.msg === 'request')).toHaveLength(7);
    for (const secret of [t.key.key, wrong, t.key.signingSecret, sig]) expect(text).not.toContain(secret);
    expect(text).toContain('api_key=[REDACTED]');
    expect(text).toContain('sig=[REDACTED]');
  });
});
