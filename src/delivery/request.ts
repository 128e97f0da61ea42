/**
 * `store=s3` (and `storage=<target id>`) on a synchronous render: read and taken out of the
 * request before the render's own parser sees it, so they never reach a cache key or an ETag.
 */
import { AppError } from '../errors.js';

/** The fields this module reads from a render's query or body. */
export const STORE_FIELDS = ['store', 'storage'] as const;

/** What a render asked: store it (in `storage`, or the account's only target), or not. */
export type StoreRequest = { storage?: string } | null;

const TARGET_ID = /^st_[A-Za-z0-9]{1,40}$/;

/**
 * The request without `store` and `storage`, and what they asked. 400 for a store other than
 * s3, a storage without store, or store without response=json (the answer is the location).
 */
export function takeStoreRequest<T>(
  input: T,
  json: (rest: Record<string, unknown>) => boolean,
): { rest: T; store: StoreRequest } {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    return { rest: input, store: null };
  const { store, storage, ...rest } = input as Record<string, unknown>;
  if (store === undefined && storage === undefined) return { rest: input, store: null };
  if (storage !== undefined && store === undefined) {
    throw bad('storage names the target of store=s3: add store=s3, or leave storage out');
  }
  if (store !== 's3') throw bad('store must be s3 (an S3-compatible target added with POST /storage)');
  if (storage !== undefined && (typeof storage !== 'string' || !TARGET_ID.test(storage))) {
    throw bad('storage must be a storage target id (st_…, see GET /storage)');
  }
  if (!json(rest)) {
    throw bad(
      'store=s3 needs response=json: the answer is the stored object\'s location ({"storage": {bucket, key, url, etag}}), not the image',
    );
  }
  return { rest: rest as T, store: storage === undefined ? {} : { storage: storage as string } };
}

function bad(message: string): AppError {
  return new AppError('bad_request', message);
}
