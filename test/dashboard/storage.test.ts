import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { csrfOf, type DashClient, signedIn } from '../helpers/dashboard.js';
import { S3_KEY, type S3Server, startS3Server } from '../helpers/s3.js';
import { secondAccount } from '../helpers/webhooks.js';

// The Storage page over HTTP on a real app and s3rver: add (the secret never shown back), test
// (the storage's answer), delete, the forms' CSRF, and a second account that sees none of it.
let t: TestApp;
let s3: S3Server;
let c: DashClient;
let other: DashClient;
const SECRET = S3_KEY.secretAccessKey;

beforeAll(async () => {
  s3 = await startS3Server(['dash']);
  t = await startTestApp({ storageAllowPrivateHosts: [s3.hostPort] });
  c = await signedIn(t);
  const hostile = await secondAccount(t, 'Hostile');
  other = await signedIn(t, (await t.store.getAccount(hostile.accountId))!.email);
});
afterAll(async () => {
  await t?.close();
  await s3?.close();
});

describe('Storage page', () => {
  it('adds a target without echoing its secret, tests it, and deletes it', async () => {
    const page = await c.get('/dashboard/storage');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('No storage targets yet.');
    const form = {
      _csrf: csrfOf(page.body),
      endpoint: s3.endpoint,
      region: '',
      bucket: 'dash',
      prefix: 'from-dashboard',
      pathTemplate: '',
      syncPathTemplate: '',
      accessKeyId: S3_KEY.accessKeyId,
      secretAccessKey: SECRET,
    };
    const forged = await c.post('/dashboard/storage', { ...form, _csrf: 'nope' });
    expect(forged.statusCode).toBe(403);
    const added = await c.post('/dashboard/storage', form);
    expect(added.statusCode).toBe(201);
    const id = /Target (st_\w+) added\./.exec(added.body)?.[1];
    expect(id).toBeDefined();
    expect(added.body).toContain('<code>dash</code> <span class="subtle">/from-dashboard/</span>');
    expect(added.body).not.toContain(`value="${SECRET}"`);
    const tested = await c.post(`/dashboard/storage/${id}/test`, { _csrf: csrfOf(added.body) });
    expect(tested.statusCode).toBe(200);
    expect(tested.body).toMatch(new RegExp(`Target ${id}: wrote and deleted a test object in \\d+ ms\\.`));
    // The other account sees nothing and cannot test or delete it.
    expect((await other.get('/dashboard/storage')).body).not.toContain(id!);
    const csrfB = csrfOf((await other.get('/dashboard/storage')).body);
    expect((await other.post(`/dashboard/storage/${id}/test`, { _csrf: csrfB })).statusCode).toBe(404);
    expect((await other.post(`/dashboard/storage/${id}/delete`, { _csrf: csrfB })).statusCode).toBe(404);
    const gone = await c.post(`/dashboard/storage/${id}/delete`, { _csrf: csrfOf(tested.body) });
    expect(gone.statusCode).toBe(303);
    expect((await c.get('/dashboard/storage?notice=deleted')).body).toContain('No storage targets yet.');
  });

  it('shows a clear error for a bad bucket, keeping what was typed but the secret', async () => {
    const page = await c.get('/dashboard/storage');
    const res = await c.post('/dashboard/storage', {
      _csrf: csrfOf(page.body),
      endpoint: s3.endpoint,
      bucket: 'Bad_Bucket',
      accessKeyId: 'AKIA1',
      secretAccessKey: 'typed-secret-value',
    });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain(
      'Bucket must be 3 to 63 lower case letters, digits, dots and hyphens, starting and ending with a letter or digit.',
    );
    expect(res.body).toContain('value="Bad_Bucket"');
    expect(res.body).not.toContain('typed-secret-value');
  });
});
