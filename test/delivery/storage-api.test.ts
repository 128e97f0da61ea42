import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUrlGuard } from '../../src/net/url-guard.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { S3_KEY, type S3Server, startS3Server } from '../helpers/s3.js';
import { type SigV4Gate, startSigV4Gate } from '../helpers/sigv4-gate.js';
import { secondAccount } from '../helpers/webhooks.js';

// The storage targets' API against a real S3-protocol server (s3rver: S3's error codes, objects
// on disk) behind a gate that checks SigV4 signatures (s3rver checks only the access key), with a
// hostile second account.
let t: TestApp;
let s3: S3Server;
let gate: SigV4Gate;
let other: { accountId: string; key: string };
const SECRET = S3_KEY.secretAccessKey;

const target = (extra: Record<string, unknown> = {}) => ({
  endpoint: gate.endpoint,
  bucket: 'cards',
  accessKeyId: S3_KEY.accessKeyId,
  secretAccessKey: SECRET,
  ...extra,
});
const add = (body: unknown, key?: string) =>
  t.inject({
    method: 'POST',
    url: '/storage',
    payload: body as object,
    ...(key ? { headers: { 'x-api-key': key } } : {}),
  });

beforeAll(async () => {
  s3 = await startS3Server(['cards', 'other']);
  gate = await startSigV4Gate(s3.port, { [S3_KEY.accessKeyId]: S3_KEY.secretAccessKey });
  t = await startTestApp({ storageMaxTargets: 3, storageAllowPrivateHosts: [gate.hostPort] });
  other = await secondAccount(t, 'Hostile');
});
afterAll(async () => {
  await t?.close();
  await gate?.close();
  await s3?.close();
});

describe('POST /storage', () => {
  it('adds a target, answers it without the secret, and lists it', async () => {
    const res = await add(target({ prefix: 'cards', name: 'Main bucket' }));
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toEqual({
      id: expect.stringMatching(/^st_[A-Za-z0-9]{16}$/),
      name: 'Main bucket',
      endpoint: gate.endpoint,
      region: 'us-east-1',
      bucket: 'cards',
      prefix: 'cards/',
      pathTemplate: '{job}/{index}-{name}.{ext}',
      syncPathTemplate: '{date}/{id}.{ext}',
      pathStyle: true,
      accessKeyId: 'S3RVER',
      createdAt: expect.any(String),
    });
    expect(res.headers.location).toBe(`/storage/${body.id}`);
    const list = await t.inject({ method: 'GET', url: '/storage' });
    expect(list.json().targets.map((x: { id: string }) => x.id)).toContain(body.id);
    const one = await t.inject({ method: 'GET', url: `/storage/${body.id}` });
    expect(one.json()).toEqual(body);
    await t.inject({ method: 'DELETE', url: `/storage/${body.id}` });
  });

  it.each([
    [
      { bucket: 'Bad_Bucket' },
      'bucket must be 3 to 63 lower case letters, digits, dots and hyphens, starting and ending with a letter or digit',
    ],
    [{ endpoint: 'ftp://s3.example.com' }, 'endpoint must be an absolute https:// (or http://) URL'],
    [
      { endpoint: 'https://s3.example.com/bucket' },
      'endpoint must be the server address only (no path, query or #fragment); the bucket goes in bucket',
    ],
    [
      { endpoint: 'https://u:p@s3.example.com' },
      'endpoint must not carry a user name or password; send accessKeyId and secretAccessKey',
    ],
    [{ secretAccessKey: '' }, 'secretAccessKey is required'],
    [
      { pathTemplate: '{job}/{foo}.{ext}' },
      'pathTemplate: {foo} is not a placeholder; use {job}, {index}, {id}, {name}, {ext}, {date}, {etag}',
    ],
    [
      { syncPathTemplate: '{job}.{ext}' },
      "syncPathTemplate: {job} has no value for a synchronous render (it is a job's); use {id}",
    ],
    [{ prefix: '../up' }, 'prefix must not hold empty, "." or ".." path segments'],
    [
      { region: 'EU West' },
      'region must be a region name such as eu-west-1 (lower case letters, digits and -)',
    ],
    [
      { color: 'blue' },
      'Unknown field "color"; send name, endpoint, region, bucket, prefix, pathTemplate, syncPathTemplate, pathStyle, accessKeyId, secretAccessKey',
    ],
  ])('refuses %j with a clear 400', async (extra, message) => {
    const res = await add(target(extra));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: message });
  });

  it('refuses a private endpoint that the operator did not allow, and one on a private name', async () => {
    for (const endpoint of [
      'http://127.0.0.1:9000',
      'http://169.254.169.254',
      'http://10.0.0.5',
      'https://minio.internal',
    ]) {
      const res = await add(target({ endpoint }));
      expect(res.statusCode, endpoint).toBe(400);
      expect(res.json().error).toMatch(/^endpoint must (be a public address|use port 443 or 80)/);
    }
  });

  it('holds an account to its cap on targets (409)', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await add(target(), other.key)).json().id);
    const over = await add(target(), other.key);
    expect(over.statusCode).toBe(409);
    expect(over.json()).toEqual({
      error: 'This account already has 3 storage targets, the most it may have (3); delete one first',
    });
    for (const id of ids) {
      const del = await t.inject({
        method: 'DELETE',
        url: `/storage/${id}`,
        headers: { 'x-api-key': other.key },
      });
      expect(del.statusCode).toBe(204);
    }
  });

  it('needs a key: 401 without one', async () => {
    const res = await t.inject({ method: 'GET', url: '/storage', auth: false });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'Missing or invalid API key' });
  });
});

describe('the secret access key', () => {
  it('is stored sealed, and never answered or logged', async () => {
    const secret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
    const res = await add(target({ secretAccessKey: secret }));
    expect(res.statusCode).toBe(201);
    const id = res.json().id as string;
    const test = await t.inject({ method: 'POST', url: `/storage/${id}/test` });
    // The wrong secret: the storage refuses the signature, and the message carries no secret.
    expect(test.json()).toMatchObject({ ok: false, code: 'SignatureDoesNotMatch' });
    const answers = [res.body, test.body, (await t.inject({ method: 'GET', url: '/storage' })).body];
    for (const body of answers) expect(body).not.toContain(secret);
    expect(JSON.stringify(t.logs)).not.toContain(secret);
    const rows = await t.store.db
      .withTables<{ storage_targets: { id: string; secret_sealed: string } }>()
      .selectFrom('storage_targets')
      .selectAll()
      .where('id', '=', id)
      .execute();
    expect(JSON.stringify(rows)).not.toContain(secret);
    expect(rows[0]!.secret_sealed).toMatch(/^v1\./);
    await t.inject({ method: 'DELETE', url: `/storage/${id}` });
  });
});

describe('POST /storage/:id/test', () => {
  it('writes and deletes a small object on a working target', async () => {
    const id = (await add(target({ prefix: 'probe' }))).json().id as string;
    const res = await t.inject({ method: 'POST', url: `/storage/${id}/test` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true, code: null, error: null, durationMs: expect.any(Number) });
    expect((await s3.keys('cards')).filter((k) => k.startsWith('probe/'))).toEqual([]);
    await t.inject({ method: 'DELETE', url: `/storage/${id}` });
  });

  it.each([
    [{ bucket: 'missing-bucket' }, 'NoSuchBucket'],
    [{ accessKeyId: 'NOBODY' }, 'InvalidAccessKeyId'],
    [{ secretAccessKey: 'not-the-secret' }, 'SignatureDoesNotMatch'],
  ])("reports the storage's error code for %j", async (extra, code) => {
    const id = (await add(target(extra))).json().id as string;
    const res = await t.inject({ method: 'POST', url: `/storage/${id}/test` });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      ok: false,
      code,
      error: expect.stringMatching(new RegExp(`^${code}: .+ \\(1 attempt\\)$`)),
      durationMs: expect.any(Number),
    });
    await t.inject({ method: 'DELETE', url: `/storage/${id}` });
  });
});

describe('tenancy', () => {
  it("account B can neither see, test, delete nor render into A's target", async () => {
    const id = (await add(target())).json().id as string;
    const asB = { 'x-api-key': other.key };
    for (const [method, url] of [
      ['GET', `/storage/${id}`],
      ['DELETE', `/storage/${id}`],
      ['POST', `/storage/${id}/test`],
    ] as const) {
      const res = await t.inject({ method, url, headers: asB });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json()).toEqual({ error: `No storage target "${id}"` });
    }
    expect((await t.inject({ method: 'GET', url: '/storage', headers: asB })).json()).toEqual({
      targets: [],
    });
    const render = await t.inject({
      method: 'POST',
      url: '/render/template',
      headers: asB,
      payload: { template: 'blog', title: 'Into A', response: 'json', store: 's3', storage: id },
    });
    expect(render.statusCode).toBe(400);
    expect(render.json()).toEqual({ error: `storage: no target "${id}" on this account (see GET /storage)` });
    // Still A's, still there.
    expect((await t.inject({ method: 'GET', url: `/storage/${id}` })).statusCode).toBe(200);
    await t.inject({ method: 'DELETE', url: `/storage/${id}` });
  });
});

describe('DNS rebinding', () => {
  it('a name that was public when the target was made and is loopback at upload is refused at connect', async () => {
    let answer = '93.184.215.14';
    const guard = createUrlGuard({
      allowPrivateHosts: [],
      allowedPorts: [80, 443, gate.port],
      lookup: async () => [{ address: answer, family: 4 }],
    });
    const rebound = await startTestApp({}, { storageGuard: guard, storageBackoff: () => 1 });
    try {
      const made = await rebound.inject({
        method: 'POST',
        url: '/storage',
        payload: target({ endpoint: `http://s3.rebind.example:${gate.port}` }),
      });
      expect(made.statusCode).toBe(201);
      answer = '127.0.0.1';
      const before = await s3.keys('cards');
      const res = await rebound.inject({ method: 'POST', url: `/storage/${made.json().id}/test` });
      expect(res.json()).toMatchObject({ ok: false, code: 'EndpointRefused' });
      expect(await s3.keys('cards')).toEqual(before);
    } finally {
      await rebound.close();
    }
  });
});
