/**
 * One object to one target: the endpoint checked by the guard, then one PutObject (put-object.ts,
 * without the SDK) or the SDK's multipart Upload past `multipartBytes`, each attempt under its
 * own deadline, retried with exponential back-off while the failure is one that may pass (5xx,
 * 429, a dropped connection, a time-out).
 * What ends it is a DeliveryError carrying the storage's code.
 */
import { Upload } from '@aws-sdk/lib-storage';
import type { UrlGuard } from '../net/url-guard.js';
import type { S3Clients } from './client.js';
import { classify, DeliveryError } from './errors.js';
import { putObject } from './put-object.js';
import type { TargetRecord } from './store.js';

/** What is stored: the bytes, their type, and metadata (x-amz-meta-*). */
export interface ObjectInput {
  key: string;
  body: Buffer;
  contentType: string;
  metadata: Record<string, string>;
}

/** Where the object is. */
export interface StoredObject {
  bucket: string;
  key: string;
  /** The object's address (not signed: reading it takes the bucket's own access rules). */
  url: string;
  /** The storage's ETag of the object, quoted as S3 answers it. */
  etag: string | null;
}

export interface UploaderOptions {
  clients: S3Clients;
  guard: UrlGuard;
  timeoutMs: number;
  attempts: number;
  /** At and past this size, a multipart upload (S3 parts are at least 5 MiB). */
  multipartBytes?: number;
  /** The delay after failed attempt n (tests shorten it). */
  backoff?: (attempt: number) => number;
  /** An attempt failed and another follows (the log). */
  onRetry?: (failure: DeliveryError, attempt: number, target: TargetRecord) => void;
}

export interface Uploader {
  /** Stores the object; throws DeliveryError after the last attempt (or the first that will repeat). */
  put(
    target: TargetRecord,
    object: ObjectInput,
    signal?: AbortSignal,
  ): Promise<StoredObject & { attempts: number }>;
}

const MULTIPART_BYTES = 16 * 1024 * 1024;
const PART_BYTES = 8 * 1024 * 1024;

/** 250 ms, 500 ms, 1 s … up to 8 s, each with up to 50% jitter. */
export function defaultBackoff(attempt: number): number {
  const base = Math.min(8000, 250 * 2 ** (attempt - 1));
  return Math.round(base * (0.5 + Math.random() * 0.5));
}

export function createUploader(opts: UploaderOptions): Uploader {
  const backoff = opts.backoff ?? defaultBackoff;
  const multipart = opts.multipartBytes ?? MULTIPART_BYTES;

  const attempt = async (target: TargetRecord, object: ObjectInput, signal?: AbortSignal) => {
    const { client, agent, signer, secret } = opts.clients.get(target);
    const abort = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      abort.abort(new Error('deadline'));
    }, opts.timeoutMs);
    const forward = () => abort.abort(signal?.reason);
    signal?.addEventListener('abort', forward, { once: true });
    try {
      // An IP literal is never looked up (client.ts): the guard sees it here, every attempt.
      await opts.guard.check(target.endpoint);
      if (object.body.length >= multipart) {
        const params = {
          Bucket: target.bucket,
          Key: object.key,
          Body: object.body,
          ContentType: object.contentType,
          Metadata: object.metadata,
        };
        const upload = new Upload({ client, params, partSize: PART_BYTES, queueSize: 2 });
        const onAbort = () => void upload.abort().catch(() => {});
        abort.signal.addEventListener('abort', onAbort, { once: true });
        const done = await upload.done();
        return { etag: done.ETag ?? null };
      }
      return await putObject(target, signer, agent, object, {
        signal: abort.signal,
        timeoutMs: opts.timeoutMs,
      });
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      throw classify(err, { timedOut, timeoutMs: opts.timeoutMs, secret });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', forward);
    }
  };

  return {
    async put(target, object, signal) {
      for (let n = 1; ; n++) {
        try {
          const { etag } = await attempt(target, object, signal);
          return {
            bucket: target.bucket,
            key: object.key,
            url: objectUrl(target, object.key),
            etag,
            attempts: n,
          };
        } catch (err) {
          const failure = err instanceof DeliveryError ? err : undefined;
          if (!failure) throw err;
          if (!failure.retryable || n >= opts.attempts) {
            throw new DeliveryError(
              failure.code,
              `${failure.message.slice(failure.code.length + 2)} (${n} attempt${n === 1 ? '' : 's'})`,
              false,
              failure.detail,
            );
          }
          opts.onRetry?.(failure, n, target);
          await sleep(backoff(n), signal);
        }
      }
    },
  };
}

/** The object's address: path style (`endpoint/bucket/key`) or virtual-hosted (`bucket.endpoint/key`). */
export function objectUrl(
  target: Pick<TargetRecord, 'endpoint' | 'bucket' | 'forcePathStyle'>,
  key: string,
): string {
  const path = key.split('/').map(encodeURIComponent).join('/');
  if (target.forcePathStyle) return `${target.endpoint}/${target.bucket}/${path}`;
  const url = new URL(target.endpoint);
  return `${url.protocol}//${target.bucket}.${url.host}/${path}`;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
