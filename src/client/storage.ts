import { sendJson, type TransportOptions } from './transport.js';

/** A storage target as GET /storage shows it: never its secret access key. */
export interface StorageTarget {
  id: string;
  name: string;
  endpoint: string;
  region: string;
  bucket: string;
  /** Put before every key; ends with `/` unless empty. */
  prefix: string;
  /** A job item's key after the prefix (`{job}/{index}-{name}.{ext}`). */
  pathTemplate: string;
  /** A synchronous render's key after the prefix (`{date}/{id}.{ext}`). */
  syncPathTemplate: string;
  /** true: `endpoint/bucket/key`; false: `bucket.endpoint/key`. */
  pathStyle: boolean;
  accessKeyId: string;
  createdAt: string;
}

/** What POST /storage takes; only endpoint, bucket and the two keys are required. */
export interface StorageTargetInput {
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  /** Stored encrypted with the server secret; never shown again. */
  secretAccessKey: string;
  region?: string;
  name?: string;
  prefix?: string;
  pathTemplate?: string;
  syncPathTemplate?: string;
  pathStyle?: boolean;
}

/** Where a render was stored (`storage` of a JSON answer with store=s3). */
export interface StoredObject {
  bucket: string;
  key: string;
  url: string;
  etag: string | null;
}

/** What POST /storage/:id/test answers. */
export interface StorageTestResult {
  ok: boolean;
  /** The storage's error code (NoSuchBucket, InvalidAccessKeyId, SignatureDoesNotMatch, Timeout …). */
  code: string | null;
  error: string | null;
  durationMs: number;
}

type Call = { signal?: AbortSignal };
const enc = encodeURIComponent;

/** The account's S3-compatible storage targets (/storage…). Reached as `cardshot.storage`. */
export class StorageApi {
  constructor(private readonly t: TransportOptions) {}

  /** POST /storage: a new target (the endpoint must be public unless the operator allows it). */
  create(input: StorageTargetInput, call: Call = {}): Promise<StorageTarget> {
    return sendJson(this.t, 'POST', '/storage', input, call);
  }

  /** GET /storage. */
  async list(call: Call = {}): Promise<StorageTarget[]> {
    return (await sendJson<{ targets: StorageTarget[] }>(this.t, 'GET', '/storage', undefined, call)).targets;
  }

  /** GET /storage/:id. */
  get(id: string, call: Call = {}): Promise<StorageTarget> {
    return sendJson(this.t, 'GET', `/storage/${enc(id)}`, undefined, call);
  }

  /** DELETE /storage/:id (objects already stored stay in the bucket). */
  async remove(id: string, call: Call = {}): Promise<void> {
    await sendJson<void>(this.t, 'DELETE', `/storage/${enc(id)}`, undefined, call);
  }

  /** POST /storage/:id/test: writes a small object and deletes it. */
  test(id: string, call: Call = {}): Promise<StorageTestResult> {
    return sendJson(this.t, 'POST', `/storage/${enc(id)}/test`, undefined, call);
  }
}
