import { AppError } from '../errors.js';
import { parsePrefix, parseTemplate } from './paths.js';

/** A new storage target as POST /storage sends it. */
export interface TargetInput {
  name: string;
  endpoint: string;
  region: string;
  bucket: string;
  prefix: string;
  pathTemplate: string;
  syncPathTemplate: string;
  pathStyle: boolean;
  accessKeyId: string;
  secretAccessKey: string;
}

const FIELDS = new Set([
  'name',
  'endpoint',
  'region',
  'bucket',
  'prefix',
  'pathTemplate',
  'syncPathTemplate',
  'pathStyle',
  'accessKeyId',
  'secretAccessKey',
]);

const EXAMPLE =
  '{"endpoint": "https://s3.eu-west-1.amazonaws.com", "region": "eu-west-1", "bucket": "my-cards", "accessKeyId": "…", "secretAccessKey": "…"}';
// S3's bucket naming rules (3–63 characters, lower case, digits, dots and hyphens).
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const REGION = /^[a-z0-9-]{1,64}$/;
// Printable ASCII without spaces: what a SigV4 credential can carry.
const CREDENTIAL = /^[\x21-\x7e]+$/;

/** Checks POST /storage's body; 400 naming the field and the fix (the secret never in a message). */
export function parseTargetInput(body: unknown): TargetInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw bad(`Send a JSON object: ${EXAMPLE}`);
  }
  const f = body as Record<string, unknown>;
  const stray = Object.keys(f).find((k) => !FIELDS.has(k));
  if (stray !== undefined) {
    throw bad(`Unknown field ${JSON.stringify(stray.slice(0, 40))}; send ${[...FIELDS].join(', ')}`);
  }
  const bucket = parseBucket(f.bucket);
  return {
    name: parseName(f.name, bucket),
    endpoint: parseEndpoint(f.endpoint),
    region: parseRegion(f.region),
    bucket,
    prefix: parsePrefix(f.prefix),
    pathTemplate: parseTemplate(f.pathTemplate, 'pathTemplate', 'job'),
    syncPathTemplate: parseTemplate(f.syncPathTemplate, 'syncPathTemplate', 'sync'),
    pathStyle: parsePathStyle(f.pathStyle),
    accessKeyId: parseCredential(f.accessKeyId, 'accessKeyId'),
    secretAccessKey: parseCredential(f.secretAccessKey, 'secretAccessKey'),
  };
}

function parseName(value: unknown, bucket: string): string {
  if (value === undefined) return bucket;
  if (typeof value !== 'string' || value.trim() === '' || value.length > 100) {
    throw bad('name must be a label of 1 to 100 characters');
  }
  return value.trim();
}

/** The S3 API's base URL: http(s), no credentials, path, query or fragment. */
export function parseEndpoint(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw bad('endpoint is required: the S3 API address, such as https://s3.eu-west-1.amazonaws.com');
  }
  if (value.length > 2048) throw bad('endpoint must be at most 2048 characters');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw bad('endpoint must be an absolute https:// (or http://) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw bad('endpoint must be an absolute https:// (or http://) URL');
  }
  if (url.username !== '' || url.password !== '') {
    throw bad('endpoint must not carry a user name or password; send accessKeyId and secretAccessKey');
  }
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '') {
    throw bad(
      'endpoint must be the server address only (no path, query or #fragment); the bucket goes in bucket',
    );
  }
  return url.origin;
}

function parseRegion(value: unknown): string {
  if (value === undefined || value === '') return 'us-east-1';
  if (typeof value !== 'string' || !REGION.test(value)) {
    throw bad('region must be a region name such as eu-west-1 (lower case letters, digits and -)');
  }
  return value;
}

function parseBucket(value: unknown): string {
  if (typeof value !== 'string' || value === '') throw bad('bucket is required: the bucket to write to');
  if (!BUCKET.test(value) || value.includes('..')) {
    throw bad(
      'bucket must be 3 to 63 lower case letters, digits, dots and hyphens, starting and ending with a letter or digit',
    );
  }
  return value;
}

function parsePathStyle(value: unknown): boolean {
  if (value === undefined) return true;
  if (typeof value !== 'boolean') {
    throw bad(
      'pathStyle must be true (https://endpoint/bucket/key, the default) or false (https://bucket.endpoint/key)',
    );
  }
  return value;
}

function parseCredential(value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '') throw bad(`${field} is required`);
  if (value.length > 256 || !CREDENTIAL.test(value)) {
    throw bad(`${field} must be 1 to 256 printable characters without spaces`);
  }
  return value;
}

function bad(message: string): AppError {
  return new AppError('bad_request', message);
}
