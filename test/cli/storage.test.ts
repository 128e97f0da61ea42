import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runStorage } from '../../src/cli/commands/storage.js';
import type { ShotIo } from '../../src/cli/shot/io.js';
import { Cardshot } from '../../src/client/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { S3_KEY, type S3Server, startS3Server } from '../helpers/s3.js';

// `npx cardshot storage …` and the TS client's `storage` in-process against a real server over
// HTTP and s3rver on 127.0.0.1: the secret read from stdin and never printed, the exit statuses.
let t: TestApp;
let server: string;
let s3: S3Server;

beforeAll(async () => {
  s3 = await startS3Server(['cli']);
  t = await startTestApp({ storageAllowPrivateHosts: [s3.hostPort] });
  server = await t.listen();
});
afterAll(async () => {
  await t?.close();
  await s3?.close();
});

const storage = async (argv: string[], stdin = '') => {
  const out: string[] = [];
  const err: string[] = [];
  const io: ShotIo = {
    stdout: { isTTY: false, write: (d) => out.push(String(d)) },
    stderr: { isTTY: false, write: (d) => err.push(String(d)) },
    readStdin: async () => stdin,
  };
  const code = await runStorage([...argv, '--server', server, '--api-key', t.key.key], io);
  return { code, stdout: out.join(''), stderr: err.join('') };
};

describe('cardshot storage', () => {
  it('add reads the secret from stdin, list and test work, remove removes', async () => {
    const add = await storage(
      ['add', s3.endpoint, '--bucket', 'cli', '--access-key-id', S3_KEY.accessKeyId, '--prefix', 'from-cli'],
      `${S3_KEY.secretAccessKey}\n`,
    );
    expect(add.code, add.stderr).toBe(0);
    const id = /^Target (st_\w+) → /.exec(add.stdout)?.[1];
    expect(id).toBeDefined();
    expect(add.stdout).toContain('Job items: {job}/{index}-{name}.{ext}\nRenders: {date}/{id}.{ext}');
    const list = await storage(['list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`${id}\\s+cli\\s+cli\\s+from-cli/\\s+${s3.endpoint}`));
    const test = await storage(['test', id!]);
    expect(test).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^Wrote and deleted a test object in \d+ ms\.\n$/),
    });
    expect(`${add.stdout}${list.stdout}${test.stdout}`).not.toContain(`${S3_KEY.secretAccessKey}\n`);
    const removed = await storage(['remove', id!]);
    expect(removed).toMatchObject({ code: 0, stdout: `Removed ${id}.\n` });
  });

  it('exits 1 with the storage code when the test fails, 2 without a secret', async () => {
    const add = await storage(
      ['add', s3.endpoint, '--bucket', 'absent', '--access-key-id', 'S3RVER', '--json'],
      'S3RVER',
    );
    const { id } = JSON.parse(add.stdout) as { id: string };
    const test = await storage(['test', id]);
    expect(test.code).toBe(1);
    expect(test.stdout).toBe(
      'The storage refused: NoSuchBucket: The specified bucket does not exist (1 attempt)\n',
    );
    const none = await storage(['add', s3.endpoint, '--bucket', 'cli', '--access-key-id', 'S3RVER']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('storage add reads the secret access key from standard input: pipe it in');
  });
});

describe('the TS client', () => {
  it('creates, lists, tests and removes targets; the answers carry no secret', async () => {
    const client = new Cardshot({ baseUrl: server, apiKey: t.key.key });
    const made = await client.storage.create({
      endpoint: s3.endpoint,
      bucket: 'cli',
      ...S3_KEY,
      secretAccessKey: 'S3RVER',
    });
    expect(made).not.toHaveProperty('secretAccessKey');
    expect((await client.storage.list()).map((x) => x.id)).toContain(made.id);
    expect(await client.storage.get(made.id)).toEqual(made);
    expect(await client.storage.test(made.id)).toMatchObject({ ok: true, code: null });
    await client.storage.remove(made.id);
    await expect(client.storage.get(made.id)).rejects.toMatchObject({ status: 404 });
  });
});
