import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { expectError } from '../helpers/errors.js';

// A renderer that crashes is a fault the real one cannot produce on demand, so this test
// makes the real renderer throw once and checks what the client and the log see.
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('an unexpected failure', () => {
  it('answers a generic 500 without internals, logs the cause with the request id, and recovers', async () => {
    const real = t.modules.renderer.render;
    t.modules.renderer.render = async () => {
      throw new Error('native panic at /secret/path/engine.rs:42');
    };
    const res = await t.inject({
      method: 'POST',
      url: '/render/template',
      payload: { template: 'blog', title: 'Crash' },
      headers: { 'x-request-id': 'crash-1' },
    });
    t.modules.renderer.render = real;

    await expectError(res, 500, 'Internal server error');
    expect(res.body).not.toContain('secret');
    expect(res.headers['x-request-id']).toBe('crash-1');
    const logged = t.logs.find((l) => l.reqId === 'crash-1' && l.level === 50);
    expect(JSON.stringify(logged)).toContain('native panic');

    const after = await t.inject({
      method: 'POST',
      url: '/render/template',
      payload: { template: 'blog', title: 'Crash' },
    });
    expect(after.statusCode).toBe(200);
  });
});
