import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveSecrets, loadServerSecret } from '../../src/auth/secret.js';
import { Cardshot, CardshotError } from '../../src/client/index.js';
import { createItemCredentials } from '../../src/jobs/credentials.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { BASIC, SESSION, TOKEN } from '../helpers/credential-site.js';
import { expectError } from '../helpers/errors.js';
import { dropSchema, postgresTestUrl, uniqueSchema } from '../helpers/services.js';

// Job items that carry credentials (issue 29 §2), without a browser: no worker runs, so what is
// stored can be looked at before, and after, the job ends. On both stores: the SQLite file's
// bytes and the PostgreSQL table's rows hold them sealed only; a cancel clears them; the
// retention sweep and the account's deletion take the rows away.
const pgUrl = await postgresTestUrl();

const CREDS = {
  headers: { 'X-Token': TOKEN },
  cookies: [{ name: 'session', value: SESSION, httpOnly: true }],
  basicAuth: BASIC,
  userAgent: 'CardshotTest/1.0 (signed-in)',
};
const SECRETS = [SESSION, TOKEN, BASIC.password, Buffer.from(`ada:${BASIC.password}`).toString('base64')];
const shot = (extra: Record<string, unknown> = {}) => ({
  url: 'http://127.0.0.1:9/account',
  ...CREDS,
  ...extra,
});
const json = <T = Record<string, unknown>>(res: { body: string }) => JSON.parse(res.body) as T;

interface Target {
  name: string;
  overrides: () => Record<string, unknown>;
  /** Every byte the store holds for the jobs, as text. */
  bytes(t: TestApp): Promise<string>;
  cleanup(): Promise<void>;
}

const schema = uniqueSchema();
const targets: Target[] = [
  {
    name: 'SQLite',
    overrides: () => ({}),
    async bytes(t) {
      // The database file and its write-ahead log, as they are on disk.
      const dir = t.config.dataDir;
      const files = (await readdir(dir)).filter((f) => f.startsWith('cardshot.sqlite'));
      const all = await Promise.all(files.map((f) => readFile(path.join(dir, f))));
      return Buffer.concat(all).toString('latin1');
    },
    cleanup: async () => {},
  },
  ...(pgUrl
    ? [
        {
          name: 'PostgreSQL',
          overrides: () => ({ databaseUrl: pgUrl, databaseSchema: schema }),
          async bytes() {
            const client = new pg.Client({ connectionString: pgUrl });
            await client.connect();
            try {
              const rows = await client.query(
                `SELECT j::text AS row FROM "${schema}".job_items j UNION ALL SELECT j::text FROM "${schema}".jobs j`,
              );
              return rows.rows.map((r: { row: string }) => r.row).join('\n');
            } finally {
              await client.end();
            }
          },
          async cleanup() {
            await dropSchema(pgUrl, schema);
            await dropSchema(pgUrl, `${schema}_pgboss`);
          },
        },
      ]
    : []),
];

describe.each(targets)('item credentials on $name', (target) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ ...target.overrides(), jobsWorkers: 0 });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await target.cleanup();
  });

  const submit = (payload: unknown) => t.inject({ method: 'POST', url: '/jobs', payload: payload as object });
  const sealedOf = async (jobId: string) => {
    const rows = await sql<{ idx: number; request: string; credentials_sealed: string | null }>`
      SELECT idx, request, credentials_sealed FROM job_items WHERE job_id = ${jobId} ORDER BY idx`.execute(
      t.store.db,
    );
    return rows.rows;
  };

  it('stores them sealed, apart from the request, and shows them nowhere', async () => {
    const res = await submit({ items: [shot(), { url: 'http://127.0.0.1:9/plain' }] });
    expect(res.statusCode, res.body).toBe(202);
    const { id } = json<{ id: string }>(res);
    const rows = await sealedOf(id);
    expect(rows[0]!.credentials_sealed).toMatch(/^v1\./);
    expect(rows[1]!.credentials_sealed).toBeNull();
    // The request the worker parses again holds the options, not the credentials.
    expect(JSON.parse(rows[0]!.request)).toEqual({ url: 'http://127.0.0.1:9/account' });
    const stored = await target.bytes(t);
    for (const secret of SECRETS) expect(stored).not.toContain(secret);
    const items = await t.inject({ method: 'GET', url: `/jobs/${id}/items` });
    const answers = [res.body, items.body, (await t.inject({ method: 'GET', url: `/jobs/${id}` })).body];
    for (const secret of SECRETS) expect(answers.join('\n')).not.toContain(secret);
    expect(JSON.stringify(t.logs)).not.toContain(SESSION);
  });

  it('opens only for its own item: the worker gets back exactly what was sent', async () => {
    const { id } = json<{ id: string }>(await submit({ items: [shot(), shot()] }));
    const [a, b] = await sealedOf(id);
    const secrets = deriveSecrets((await loadServerSecret(t.config)).secret);
    const opener = createItemCredentials(secrets);
    expect(opener.open(id, 0, a!.credentials_sealed!)).toEqual({
      headers: [['X-Token', TOKEN]],
      cookies: [{ name: 'session', value: SESSION, httpOnly: true }],
      basicAuth: BASIC,
      userAgent: CREDS.userAgent,
    });
    // Item 1's sealed value copied onto item 0 does not open.
    expect(() => opener.open(id, 0, b!.credentials_sealed!)).toThrow(
      "the item's credentials cannot be opened: the server secret changed since the job was submitted",
    );
  });

  it('a cancel clears them; the retention sweep and the account deletion take the rows', async () => {
    const { id } = json<{ id: string }>(await submit({ items: [shot(), shot()] }));
    expect((await t.inject({ method: 'DELETE', url: `/jobs/${id}` })).statusCode).toBe(200);
    expect((await sealedOf(id)).map((r) => r.credentials_sealed)).toEqual([null, null]);

    const kept = json<{ id: string }>(await submit({ items: [shot()] })).id;
    await sql`UPDATE jobs SET expires_at = 1 WHERE id = ${kept}`.execute(t.store.db);
    await t.modules.jobs.service.sweep();
    expect(await sealedOf(kept)).toEqual([]);

    const other = await t.modules.accounts.accounts.createAccount({
      name: 'Leaving',
      email: `leaving-${Date.now()}@example.com`,
      plan: 'pro',
    });
    const key = (
      await t.modules.accounts.accounts.createKey({ accountId: other.id, name: 'k', environment: 'test' })
    ).key;
    const res = await t.inject({
      method: 'POST',
      url: '/jobs',
      headers: { 'x-api-key': key },
      payload: { items: [shot()] },
    });
    const gone = json<{ id: string }>(res).id;
    expect(await sealedOf(gone)).toHaveLength(1);
    await sql`DELETE FROM accounts WHERE id = ${other.id}`.execute(t.store.db);
    expect(await sealedOf(gone)).toEqual([]);
  });
});

describe('refusals', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ jobsWorkers: 0 });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('checks each item with POST /render/url own words, naming the item and never the value', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/jobs',
      payload: {
        items: [
          shot(),
          shot({ headers: { Host: 'evil.example' } }),
          shot({ cookies: [{ name: 'a', value: `${SESSION}; x=y` }] }),
          shot({ basicAuth: { username: 'a:b', password: BASIC.password } }),
          { template: 'blog', title: 'A card', headers: { 'X-Token': TOKEN } },
        ],
      },
    });
    await expectError(
      res,
      400,
      'item 1: headers: "Host" cannot be set (it belongs to the connection, not the page); ' +
        'item 2: cookies[0].value must not contain spaces, quotes, commas, semicolons, backslashes or control characters; ' +
        'item 3: basicAuth.username must not contain ":"; ' +
        'item 4: Unknown field "headers". Allowed: template, title, subtitle, brand, imageUrl, size, theme, format, quality',
    );
    for (const secret of SECRETS) expect(res.body).not.toContain(secret);
  });

  it('the TypeScript client submits them as JSON items', async () => {
    const baseUrl = await t.listen();
    const client = new Cardshot({ baseUrl, apiKey: t.key.key });
    const job = await client.jobs.submit({ items: [{ url: 'http://127.0.0.1:9/account', ...CREDS }] });
    expect(job).toMatchObject({ status: 'queued', items: 1, created: true });
    const refused = await client.jobs
      .submit({ items: [{ url: 'http://127.0.0.1:9/account', headers: { Host: 'evil.example' } }] })
      .catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(CardshotError);
    expect((refused as CardshotError).message).toBe(
      'item 0: headers: "Host" cannot be set (it belongs to the connection, not the page)',
    );
  });

  it('a CSV header naming a credential is refused: CSV cannot carry them', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/jobs',
      headers: { 'content-type': 'text/csv' },
      payload: `url,cookies\nhttps://example.com/,session=${SESSION}\n`,
    });
    await expectError(
      res,
      400,
      'The CSV header names cookies: credentials (headers, cookies, basicAuth, userAgent) cannot be given in a CSV body; submit the job as JSON ({"items": [...]}) to sign a screenshot in',
    );
    expect(res.body).not.toContain(SESSION);
  });
});
