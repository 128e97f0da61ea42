// @module-tag process
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NginxHandle, nginxAvailable, startNginx } from '../helpers/nginx.js';
import { closedPort } from '../helpers/servers.js';

// deploy/nginx.conf with no node behind it: what nginx answers itself has Cardshot's shape.
const root = path.resolve(import.meta.dirname, '../..');

describe.skipIf(!nginxAvailable())('the shipped nginx when no node answers', () => {
  let nginx: NginxHandle;
  beforeAll(async () => {
    nginx = await startNginx(root, [await closedPort(), await closedPort()]);
  });
  afterAll(() => nginx?.stop());

  it('answers 502 with the JSON error body and a request id, not an HTML page', async () => {
    const res = await fetch(`${nginx.url}/render/template?template=blog&title=Hi`, {
      headers: { 'x-request-id': 'probe-no-node-1' },
    });
    expect(res.status).toBe(502);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('x-request-id')).toBe('probe-no-node-1');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('retry-after')).toBe('5');
    expect(await res.json()).toEqual({ error: 'No Cardshot node could answer; retry shortly' });
  });

  it("gives nginx's own id when the client sent none, and a JSON 413 for an absurd body", async () => {
    const res = await fetch(`${nginx.url}/render/template`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: 'x'.repeat(2 * 1024 * 1024),
    });
    expect(res.status).toBe(413);
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f]{32}$/);
    expect(await res.json()).toEqual({ error: 'Request body must be at most 1 MiB' });
  });
});
