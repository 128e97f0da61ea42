/**
 * PutObject without the SDK: AWS's published SigV4 algorithm with node:crypto, sent with
 * node:http over the target's guarded keep-alive agent (client.ts), so every connection still
 * asks the URL guard. Measured on the delivery bench (docs/benchmarks.md): the SDK's middleware
 * stack, endpoint rules and XML serializer cost ~1 ms of event-loop time per object, as much as
 * the rest of a job item's bookkeeping; this path costs a tenth of it. Multipart uploads and
 * DeleteObject stay on the SDK (rare, and many requests' state to get right).
 *
 * A failure is thrown in the SDK's shape (`name` = the storage's error code, `$metadata`
 * with the status), so errors.ts classifies both paths alike.
 */
import { createHash, createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { TargetRecord } from './store.js';

/** What one PUT needs of its target. */
export type PutTarget = Pick<
  TargetRecord,
  'endpoint' | 'region' | 'bucket' | 'forcePathStyle' | 'accessKeyId'
>;

/** Longest error answer read (S3's are a few hundred bytes; a proxy's HTML page is cut). */
const MAX_ERROR_BODY = 16 * 1024;

/** An answer other than 2xx, shaped like the SDK's service exceptions. */
export class StorageAnswerError extends Error {
  readonly $metadata: { httpStatusCode: number };
  readonly $fault: 'client' | 'server';

  constructor(code: string, message: string, status: number) {
    super(message);
    this.name = code;
    this.$metadata = { httpStatusCode: status };
    this.$fault = status >= 500 ? 'server' : 'client';
  }
}

/** A signer for one target's key: its day's signing key is derived once, not per request. */
export function createSigner(target: PutTarget, secret: string) {
  let day = '';
  // A KeyObject, not a Buffer: createHmac checks a Buffer key's type the slow way (~10 µs a call
  // against ~1 µs, measured on Node 24).
  let key: KeyObject | undefined;
  const keyFor = (d: string): KeyObject => {
    if (d !== day || !key) {
      let k = createHmac('sha256', `AWS4${secret}`).update(d).digest();
      for (const part of [target.region, 's3', 'aws4_request'])
        k = createHmac('sha256', k).update(part).digest();
      key = createSecretKey(k);
      day = d;
    }
    return key;
  };
  return {
    /** The Authorization header of a request whose canonical parts are given. */
    authorization(p: {
      method: string;
      path: string;
      amzDate: string;
      headers: Record<string, string>;
      payloadHash: string;
    }): string {
      const names = Object.keys(p.headers).sort();
      const canonicalHeaders = names
        .map((n) => `${n}:${p.headers[n]!.trim().replace(/\s+/g, ' ')}\n`)
        .join('');
      const signed = names.join(';');
      const canonical = `${p.method}\n${p.path}\n\n${canonicalHeaders}\n${signed}\n${p.payloadHash}`;
      const d = p.amzDate.slice(0, 8);
      const scope = `${d}/${target.region}/s3/aws4_request`;
      const toSign = `AWS4-HMAC-SHA256\n${p.amzDate}\n${scope}\n${sha256(canonical)}`;
      const signature = createHmac('sha256', keyFor(d)).update(toSign).digest('hex');
      return `AWS4-HMAC-SHA256 Credential=${target.accessKeyId}/${scope}, SignedHeaders=${signed}, Signature=${signature}`;
    },
  };
}

export type Signer = ReturnType<typeof createSigner>;

/** Uploads one object with a single signed PUT; resolves with the storage's ETag. */
export function putObject(
  target: PutTarget,
  signer: Signer,
  agent: http.Agent,
  object: { key: string; body: Buffer; contentType: string; metadata: Record<string, string> },
  opts: { signal: AbortSignal; timeoutMs: number },
): Promise<{ etag: string | null }> {
  const endpoint = new URL(target.endpoint);
  const keyPath = object.key.split('/').map(escapeSegment).join('/');
  const host = target.forcePathStyle ? endpoint.host : `${target.bucket}.${endpoint.host}`;
  const path = target.forcePathStyle ? `/${escapeSegment(target.bucket)}/${keyPath}` : `/${keyPath}`;
  const amzDate = new Date().toISOString().replace(/[-:]|\.\d{3}/g, '');
  const payloadHash = createHash('sha256').update(object.body).digest('hex');
  const headers: Record<string, string> = {
    host,
    'content-type': object.contentType,
    'content-length': String(object.body.length),
    'x-amz-content-sha256': payloadHash,
    'x-amz-date': amzDate,
  };
  for (const [k, v] of Object.entries(object.metadata)) headers[`x-amz-meta-${k.toLowerCase()}`] = v;
  headers.authorization = signer.authorization({ method: 'PUT', path, amzDate, headers, payloadHash });

  const send = endpoint.protocol === 'https:' ? https.request : http.request;
  return new Promise((resolve, reject) => {
    const req = send(
      {
        agent,
        protocol: endpoint.protocol,
        hostname: target.forcePathStyle ? endpoint.hostname : `${target.bucket}.${endpoint.hostname}`,
        port: endpoint.port || undefined,
        method: 'PUT',
        path,
        headers,
        signal: opts.signal,
        // The socket's idle time (the attempt's own deadline is upload.ts's).
        timeout: opts.timeoutMs,
      },
      (res) => {
        // A connection dropped (or the deadline's abort) mid-answer fails the attempt, never hangs it.
        res.on('error', reject);
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) {
          const etag = res.headers.etag ?? null;
          // Read to the end, so the socket goes back to the agent for the next object.
          res.on('end', () => resolve({ etag })).resume();
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          if (size < MAX_ERROR_BODY) chunks.push(c);
          size += c.length;
        });
        res.on('end', () => reject(answerError(status, Buffer.concat(chunks).toString('utf8'))));
      },
    );
    req.on('timeout', () => {
      const err = new Error(`no answer within ${opts.timeoutMs} ms`);
      err.name = 'TimeoutError';
      req.destroy(err);
    });
    req.on('error', reject);
    req.end(object.body);
  });
}

/** The storage's error from its XML answer (`<Code>`, `<Message>`); `Unknown` when it has none. */
function answerError(status: number, body: string): StorageAnswerError {
  const code = /<Code>([^<]{1,100})<\/Code>/.exec(body)?.[1];
  const message = /<Message>([^<]{0,1000})<\/Message>/.exec(body)?.[1];
  return new StorageAnswerError(code ?? 'Unknown', message ? unescapeXml(message) : '', status);
}

function unescapeXml(s: string): string {
  return s.replace(/&(lt|gt|quot|apos|amp);/g, (_m, e: string) => XML_ENTITIES[e] ?? '');
}
const XML_ENTITIES: Record<string, string> = { lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' };

/** One path segment as SigV4 canonicalizes it (RFC 3986: encodeURIComponent plus !'()*). */
function escapeSegment(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function sha256(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}
