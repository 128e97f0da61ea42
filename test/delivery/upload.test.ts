import { randomBytes } from 'node:crypto';
import { createServer, type RequestListener } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveSecrets } from '../../src/auth/secret.js';
import { createS3Clients, sealContext } from '../../src/delivery/client.js';
import type { TargetRecord } from '../../src/delivery/store.js';
import { createUploader, objectUrl } from '../../src/delivery/upload.js';
import { createUrlGuard } from '../../src/net/url-guard.js';
import { S3_KEY, type S3Server, startS3Server } from '../helpers/s3.js';
import { type SigV4Gate, startSigV4Gate } from '../helpers/sigv4-gate.js';

// The uploader on its own against s3rver: a large file goes up in parts (and arrives whole),
// a 5xx is retried and then reported with the storage's code, a 4xx is not retried.
let s3: S3Server;
let gate: SigV4Gate;
const secrets = deriveSecrets('x'.repeat(40));

const targetFor = (endpoint: string, extra: Partial<TargetRecord> = {}): TargetRecord => ({
  id: 'st_test',
  accountId: 'acc_test',
  name: 't',
  endpoint,
  region: 'us-east-1',
  bucket: 'big',
  prefix: '',
  pathTemplate: '{job}/{index}-{name}.{ext}',
  syncTemplate: '{date}/{id}.{ext}',
  forcePathStyle: true,
  accessKeyId: S3_KEY.accessKeyId,
  secretSealed: secrets.seal(S3_KEY.secretAccessKey, sealContext('st_test')),
  createdAt: 0,
  ...extra,
});

beforeAll(async () => {
  s3 = await startS3Server(['big']);
  gate = await startSigV4Gate(s3.port, { [S3_KEY.accessKeyId]: S3_KEY.secretAccessKey });
});
afterAll(async () => {
  await gate?.close();
  await s3?.close();
});

/** A one-byte object: what the failure tests upload. */
const TINY = { key: 'k', body: Buffer.from('x'), contentType: 'text/plain', metadata: {} };

/** A storage stand-in on a loopback port that answers every request with `handler`. */
async function localStorage(handler: RequestListener) {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    hostPort: `127.0.0.1:${port}`,
    endpoint: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

const uploaderFor = (hosts: string[], attempts = 3) => {
  const guard = createUrlGuard({ allowPrivateHosts: hosts });
  const clients = createS3Clients({ guard, unseal: secrets.unseal, timeoutMs: 10_000 });
  return {
    clients,
    uploader: createUploader({
      clients,
      guard,
      timeoutMs: 10_000,
      attempts,
      multipartBytes: 6 * 1024 * 1024,
      backoff: () => 5,
    }),
  };
};

describe('the uploader', () => {
  it('sends a file past the multipart threshold in parts; it arrives whole, typed and with metadata', async () => {
    const { clients, uploader } = uploaderFor([gate.hostPort]);
    const body = randomBytes(9 * 1024 * 1024 + 123);
    const target = targetFor(gate.endpoint);
    const seen = gate.requests.length;
    const out = await uploader.put(target, {
      key: 'parts/big.pdf',
      body,
      contentType: 'application/pdf',
      metadata: { 'cardshot-job': 'job_x' },
    });
    expect(out).toEqual({
      bucket: 'big',
      key: 'parts/big.pdf',
      url: `${gate.endpoint}/big/parts/big.pdf`,
      etag: expect.stringMatching(/^"[0-9a-f-]+"$/),
      attempts: 1,
    });
    // Created, two parts of 8 MiB at most, completed: never one 9 MiB PUT.
    const calls = gate.requests
      .slice(seen)
      .map((r) => r.replace(/uploadId=[^&]+/, 'uploadId=U').replace(/&x-id=\w+/, ''));
    expect(calls.sort()).toEqual(
      [
        'POST /big/parts/big.pdf?uploads=',
        'PUT /big/parts/big.pdf?partNumber=1&uploadId=U',
        'PUT /big/parts/big.pdf?partNumber=2&uploadId=U',
        'POST /big/parts/big.pdf?uploadId=U',
      ].sort(),
    );
    const stored = await s3.get('big', 'parts/big.pdf');
    expect(stored.body.equals(body)).toBe(true);
    expect(stored.contentType).toBe('application/pdf');
    expect(stored.metadata).toEqual({ 'cardshot-job': 'job_x' });
    clients.close();
  });

  it('retries a 5xx with back-off, then fails with its code after the last attempt', async () => {
    let calls = 0;
    const failing = await localStorage((req, res) => {
      calls++;
      req.resume();
      res.writeHead(503, { 'content-type': 'application/xml' });
      res.end(
        '<?xml version="1.0"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>',
      );
    });
    const { clients, uploader } = uploaderFor([failing.hostPort], 3);
    await expect(uploader.put(targetFor(failing.endpoint), TINY)).rejects.toMatchObject({
      code: 'SlowDown',
      message: 'SlowDown: Please reduce your request rate. (3 attempts)',
    });
    expect(calls).toBe(3);
    clients.close();
    await failing.close();
  });

  it('fails an attempt whose connection drops mid-answer at once, as a network error, and retries it', async () => {
    let calls = 0;
    const dropping = await localStorage((req, res) => {
      calls++;
      req.resume();
      req.on('end', () => {
        // The answer starts (200, 100 bytes promised), then the connection is cut.
        res.writeHead(200, { 'content-length': '100', etag: '"x"' });
        res.write('<?xml');
        setTimeout(() => res.socket?.destroy(), 20);
      });
    });
    const { clients, uploader } = uploaderFor([dropping.hostPort], 2);
    const started = Date.now();
    await expect(uploader.put(targetFor(dropping.endpoint), TINY)).rejects.toMatchObject({
      code: 'ECONNRESET',
      message: expect.stringMatching(/\(2 attempts\)$/),
    });
    expect(calls).toBe(2);
    // Not the 10 s attempt deadline: the drop ends the attempt.
    expect(Date.now() - started).toBeLessThan(5000);
    clients.close();
    await dropping.close();
  });

  it('does not retry an error the storage will repeat (NoSuchBucket)', async () => {
    const { clients, uploader } = uploaderFor([gate.hostPort], 3);
    await expect(uploader.put(targetFor(gate.endpoint, { bucket: 'nope' }), TINY)).rejects.toMatchObject({
      code: 'NoSuchBucket',
      message: 'NoSuchBucket: The specified bucket does not exist (1 attempt)',
    });
    clients.close();
  });

  it('writes virtual-hosted URLs with the bucket in the host', () => {
    expect(
      objectUrl(
        { endpoint: 'https://s3.eu-west-1.amazonaws.com', bucket: 'b', forcePathStyle: false },
        'a b/c.png',
      ),
    ).toBe('https://b.s3.eu-west-1.amazonaws.com/a%20b/c.png');
  });
});
