// @module-tag process
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cardshot } from '../../src/client/index.js';
import { createUrlGuard } from '../../src/net/url-guard.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

// examples/webhook-receiver.mjs as docs/jobs.md says to run it (node, WEBHOOK_SECRET, PORT,
// OUT_DIR), against a real server: it verifies a real job.completed delivery with the
// standardwebhooks package, downloads the zip through the event's signed link without a key,
// and refuses a forged delivery with 400.

const root = path.resolve(import.meta.dirname, '../..');

/** A free port on 127.0.0.1 (the server's public URL must name it before it listens). */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as { port: number };
  await new Promise((r) => s.close(r));
  return port;
}

describe('the webhook receiver example', () => {
  let t: TestApp;
  let child: ChildProcess;
  let out = '';
  let dir: string;
  let receiverUrl = '';
  let client: Cardshot;
  let secret = '';

  const printed = async (pattern: RegExp, timeoutMs = 20_000) => {
    const end = Date.now() + timeoutMs;
    while (!pattern.test(out)) {
      if (Date.now() > end) throw new Error(`the receiver never printed ${pattern}; it printed:\n${out}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    return pattern.exec(out)!;
  };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-receiver-'));
    const receiverPort = await freePort();
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    t = await startTestApp(
      { jobsWorkers: 2, publicUrl: base },
      { webhookGuard: createUrlGuard({ allowPrivateHosts: [`127.0.0.1:${receiverPort}`] }) },
    );
    await t.app.listen({ host: '127.0.0.1', port });
    client = new Cardshot({ baseUrl: base, apiKey: t.key.key });
    receiverUrl = `http://127.0.0.1:${receiverPort}/hooks/cardshot`;
    const endpoint = await client.webhooks.create({ url: receiverUrl });
    secret = endpoint.secret;
    child = spawn(process.execPath, ['examples/webhook-receiver.mjs'], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', WEBHOOK_SECRET: secret, PORT: String(receiverPort), OUT_DIR: dir },
    });
    child.stdout!.on('data', (d) => {
      out += String(d);
    });
    child.stderr!.on('data', (d) => {
      out += String(d);
    });
    await printed(/listening on http:\/\/127\.0\.0\.1:\d+\/hooks\/cardshot/);
  }, 30_000);
  afterAll(async () => {
    child?.kill();
    await t?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('verifies job.completed and saves the zip from the signed link', async () => {
    const job = await client.jobs.submit({
      items: [
        { template: 'blog', title: 'Receiver one' },
        { template: 'saas', title: 'Receiver two' },
      ],
    });
    await printed(new RegExp(`^job\\.completed ${job.id}$`, 'm'));
    const [, file] = await printed(/^saved (\S+\.zip) \(2 images\)$/m);
    expect(file).toBe(path.join(dir, `${job.id}.zip`));
    const zip = await readFile(file!);
    expect(zip.subarray(0, 4).toString('latin1')).toBe('PK\x03\x04');
  }, 30_000);

  it('refuses a delivery signed with another secret', async () => {
    const res = await fetch(receiverUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': 'msg_forged',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': 'v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
      },
      body: JSON.stringify({ type: 'job.completed', timestamp: new Date().toISOString(), data: {} }),
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toBe('bad signature');
    await printed(/^refused a delivery: bad signature or timestamp$/m);
    expect(existsSync(path.join(dir, 'undefined.zip'))).toBe(false);
  });
});
