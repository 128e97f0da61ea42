import { randomBytes } from 'node:crypto';
import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import type { Logger } from 'pino';
import { randomBase62 } from '../auth/keys.js';
import type { ServerSecrets } from '../auth/secret.js';
import { AppError } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import { type UrlGuard, UrlRefusedError } from '../net/url-guard.js';
import { type S3Clients, sealContext } from './client.js';
import { classify, DeliveryError } from './errors.js';
import type { Inflight } from './inflight.js';
import { parseTargetInput } from './input.js';
import { type KeyValues, objectKey } from './paths.js';
import type { TargetRecord, TargetStore } from './store.js';
import type { StoredObject, Uploader } from './upload.js';
import { type TargetView, targetView } from './views.js';

/** What POST /storage/:id/test answers: whether a small object could be written and deleted. */
export interface TestResult {
  ok: boolean;
  /** The storage's error code (NoSuchBucket, InvalidAccessKeyId, Timeout …) when not ok. */
  code: string | null;
  error: string | null;
  durationMs: number;
}

/** One rendered file to deliver. */
export interface Delivery {
  accountId: string;
  target: TargetRecord;
  /** `sync`: the target's syncPathTemplate; `job`: its pathTemplate. */
  kind: 'sync' | 'job';
  body: Buffer;
  contentType: string;
  /** The render's ETag (unquoted). */
  etag: string;
  /** Placeholder values besides ext, date and etag (id, name, job, index). */
  values: KeyValues;
  /** Stored as x-amz-meta-cardshot-* (ASCII; longer values are cut). */
  metadata: Record<string, string>;
}

/**
 * The delivery area's service: what the HTTP routes, the dashboard, the CLI and the job workers
 * call. Every method takes the caller's account and treats another account's target as missing
 * (404 on its own routes, 400 where a render names it), never as forbidden.
 */
export interface DeliveryService {
  create(accountId: string, input: unknown): Promise<TargetView>;
  list(accountId: string): Promise<TargetView[]>;
  get(accountId: string, id: string): Promise<TargetView>;
  remove(accountId: string, id: string): Promise<void>;
  /** Writes a small object and deletes it; the storage's error code when it cannot. */
  test(accountId: string, id: string): Promise<TestResult>;
  /**
   * The target a render or a job names (`storage`), or the account's only one; 400 when it has
   * none, several and none named, or no such target.
   */
  resolve(accountId: string, storageId: string | undefined): Promise<TargetRecord>;
  /**
   * Uploads one file (retried, bounded). `refuse`: 429 when the account has its most uploads in
   * flight (a synchronous render); `wait`: waits its turn (a job item). Throws DeliveryError.
   */
  deliver(d: Delivery, mode: 'refuse' | 'wait', signal?: AbortSignal): Promise<StoredObject>;
}

export interface DeliveryServiceDeps {
  store: TargetStore;
  secrets: Pick<ServerSecrets, 'seal'>;
  clients: S3Clients;
  uploader: Uploader;
  guard: UrlGuard;
  inflight: Inflight;
  clock: Clock;
  log: Logger;
  maxTargets: number;
  timeoutMs: number;
}

const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'image/avif': 'avif',
  'application/pdf': 'pdf',
};
const MAX_META = 512;

export function createDeliveryService(deps: DeliveryServiceDeps): DeliveryService {
  const { store, clock } = deps;

  const targetOf = async (accountId: string, id: string): Promise<TargetRecord> => {
    const t = await store.getTarget(accountId, id);
    if (!t) throw new AppError('not_found', `No storage target ${JSON.stringify(id.slice(0, 60))}`);
    return t;
  };

  return {
    async create(accountId, input) {
      const parsed = parseTargetInput(input);
      await checkEndpoint(deps.guard, parsed.endpoint, deps.log);
      const count = await store.countTargets(accountId);
      if (count >= deps.maxTargets) {
        throw new AppError(
          'conflict',
          `This account already has ${count} storage targets, the most it may have (${deps.maxTargets}); delete one first`,
        );
      }
      const id = `st_${randomBase62(16)}`;
      const target: TargetRecord = {
        id,
        accountId,
        name: parsed.name,
        endpoint: parsed.endpoint,
        region: parsed.region,
        bucket: parsed.bucket,
        prefix: parsed.prefix,
        pathTemplate: parsed.pathTemplate,
        syncTemplate: parsed.syncPathTemplate,
        forcePathStyle: parsed.pathStyle,
        accessKeyId: parsed.accessKeyId,
        secretSealed: deps.secrets.seal(parsed.secretAccessKey, sealContext(id)),
        createdAt: clock.now(),
      };
      await store.insertTarget(target);
      return targetView(target);
    },

    async list(accountId) {
      return (await store.listTargets(accountId)).map(targetView);
    },

    async get(accountId, id) {
      return targetView(await targetOf(accountId, id));
    },

    async remove(accountId, id) {
      if (!(await store.deleteTarget(accountId, id))) await targetOf(accountId, id);
      deps.clients.drop(id);
    },

    async test(accountId, id) {
      const target = await targetOf(accountId, id);
      const release = deps.inflight.tryTake(accountId);
      if (!release) throw busy();
      const started = performance.now();
      const key = `${target.prefix}.cardshot-test-${randomBytes(8).toString('hex')}`;
      try {
        await deps.uploader.put(target, {
          key,
          body: Buffer.from('Cardshot storage test: this object is deleted at once.\n'),
          contentType: 'text/plain; charset=utf-8',
          metadata: { 'cardshot-test': 'true' },
        });
        await removeObject(deps, target, key);
        return { ok: true, code: null, error: null, durationMs: Math.round(performance.now() - started) };
      } catch (err) {
        if (!(err instanceof DeliveryError)) throw err;
        deps.log.info({ target: id, code: err.code, detail: err.detail }, 'storage test failed');
        return {
          ok: false,
          code: err.code,
          error: err.message,
          durationMs: Math.round(performance.now() - started),
        };
      } finally {
        release();
      }
    },

    async resolve(accountId, storageId) {
      if (storageId !== undefined) {
        const t = await store.getTarget(accountId, storageId);
        if (!t) {
          throw new AppError(
            'bad_request',
            `storage: no target ${JSON.stringify(storageId.slice(0, 60))} on this account (see GET /storage)`,
          );
        }
        return t;
      }
      const all = await store.listTargets(accountId);
      if (all.length === 1) return all[0]!;
      if (all.length === 0) {
        throw new AppError(
          'bad_request',
          'store=s3 needs a storage target: add one with POST /storage first',
        );
      }
      throw new AppError(
        'bad_request',
        `This account has ${all.length} storage targets: name one with storage=<id> (see GET /storage)`,
      );
    },

    async deliver(d, mode, signal) {
      const release =
        mode === 'refuse'
          ? deps.inflight.tryTake(d.accountId)
          : await deps.inflight.take(d.accountId, signal);
      if (!release) throw busy();
      try {
        const ext = EXTENSIONS[d.contentType.split(';')[0]!.trim()] ?? 'bin';
        const date = new Date(clock.now()).toISOString().slice(0, 10);
        const template = d.kind === 'job' ? d.target.pathTemplate : d.target.syncTemplate;
        const key = objectKey(d.target.prefix, template, { ...d.values, ext, date, etag: d.etag });
        const metadata: Record<string, string> = { 'cardshot-etag': `"${d.etag}"` };
        for (const [k, v] of Object.entries(d.metadata)) metadata[k] = asciiMeta(v);
        const stored = await deps.uploader.put(
          d.target,
          { key, body: d.body, contentType: d.contentType, metadata },
          signal,
        );
        return { bucket: stored.bucket, key: stored.key, url: stored.url, etag: stored.etag };
      } finally {
        release();
      }
    },
  };
}

/** The failure of a synchronous render's upload, as the client sees it: 504 on a time-out, else 502. */
export function uploadFailed(err: DeliveryError): AppError {
  return new AppError(
    err.code === 'Timeout' ? 'gateway_timeout' : 'bad_gateway',
    `The render was made but could not be stored: ${err.message}`,
    { ...(err.detail ? { detail: err.detail } : {}) },
  );
}

function busy(): AppError {
  return new AppError('rate_limited', 'Too many uploads in flight for this account; try again shortly', {
    retryAfter: 1,
  });
}

/** Header-safe metadata: printable ASCII (a URL's own escapes kept), cut at MAX_META. */
function asciiMeta(value: string): string {
  const ascii = /^[\x20-\x7e]*$/.test(value) ? value : encodeURI(value);
  return ascii.slice(0, MAX_META);
}

/** Deletes the test object; a failure here is the storage's answer too. */
async function removeObject(deps: DeliveryServiceDeps, target: TargetRecord, key: string): Promise<void> {
  const { client, secret } = deps.clients.get(target);
  try {
    await client.send(new DeleteObjectCommand({ Bucket: target.bucket, Key: key }), {
      abortSignal: AbortSignal.timeout(deps.timeoutMs),
    });
  } catch (err) {
    const e = classify(err, { timedOut: false, timeoutMs: deps.timeoutMs, secret });
    throw new DeliveryError(
      e.code,
      `${e.message.slice(e.code.length + 2)} (deleting the test object)`,
      false,
    );
  }
}

/**
 * Refuses an endpoint the guard would refuse at upload time, so a mistake shows when the target
 * is made. The message stays generic (which internal names resolve is not the caller's business).
 */
async function checkEndpoint(guard: UrlGuard, endpoint: string, log: Logger): Promise<void> {
  try {
    await guard.check(endpoint);
  } catch (err) {
    if (!(err instanceof UrlRefusedError)) throw err;
    log.info({ reason: err.reason, detail: err.detail }, 'storage endpoint refused');
    const message =
      err.reason === 'port'
        ? 'endpoint must use port 443 or 80 unless the operator allows it (CARDSHOT_STORAGE_ALLOW_PRIVATE_HOSTS)'
        : 'endpoint must be a public address: Cardshot does not connect to private, loopback or link-local addresses, or names that do not resolve, unless the operator allows the host (CARDSHOT_STORAGE_ALLOW_PRIVATE_HOSTS)';
    throw new AppError('bad_request', message, { detail: err.detail });
  }
}
