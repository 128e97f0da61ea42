import { createCipheriv, createDecipheriv, createHmac, createSecretKey, randomBytes } from 'node:crypto';
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../config/load.js';
import { inspectDatabase } from '../storage/open.js';
import type { StorageConfig } from '../storage/settings.js';
import type { AuthConfig } from './settings.js';

/**
 * Everything derived from the one server secret. Sub-keys are separated by purpose so that a
 * key hash can never double as a signing secret.
 */
export interface ServerSecrets {
  /** Hex HMAC-SHA-256 of an API key: what the database stores and looks keys up by. */
  hashKey(key: string): string;
  /** The signing secret of a key id, shown once beside the key; recomputed, never stored. */
  signingSecret(keyId: string): string;
  /** Hex HMAC-SHA-256 of a session id, invite token or form token: what the database stores. */
  hashToken(token: string): string;
  /** The CSRF token bound to a session id (or a pre-session id): recomputed, never stored. */
  csrfToken(boundTo: string): string;
  /** Hex HMAC-SHA-256 of a value a rate-limit key must not show (an email): unguessable without the secret. */
  limiterKey(value: string): string;
  /** Hex HMAC-SHA-256 of a screenshot's credentials: their part of a cache key, never them in clear. */
  credentialsMac(value: string): string;
  /**
   * Encrypts a secret the service must use again later (a webhook signing secret), bound to
   * `context` (the row it belongs to), so a sealed value copied to another row does not open.
   */
  seal(plaintext: string, context: string): string;
  /** The plaintext of `seal(plaintext, context)`; throws when it was sealed under another secret or context. */
  unseal(sealed: string, context: string): string;
  /** Identifies the secret without revealing it: lets a database refuse a node with another secret. */
  readonly fingerprint: string;
}

const MIN_LENGTH = 32;

/** Derives the secrets from `secret` (at least 32 characters). */
export function deriveSecrets(secret: string): ServerSecrets {
  const sub = (purpose: string) => createHmac('sha256', secret).update(purpose).digest();
  // HMAC keys as key objects, made once: a raw Buffer key is imported again on every call
  // (measured ~0.05 ms of each API request's key check, which hashes the presented key).
  const hmacKey = (purpose: string) => createSecretKey(sub(purpose));
  const hashKey = hmacKey('cardshot/api-key-hash/v1');
  const signing = hmacKey('cardshot/url-signing/v1');
  const tokenHash = hmacKey('cardshot/token-hash/v1');
  const csrf = hmacKey('cardshot/csrf/v1');
  const limiter = hmacKey('cardshot/limiter-key/v1');
  const credentials = hmacKey('cardshot/screenshot-credentials/v1');
  const sealing = sub('cardshot/seal/v1');
  const fingerprint = sub('cardshot/fingerprint/v1').toString('base64url').slice(0, 22);
  return {
    hashKey: (key) => createHmac('sha256', hashKey).update(key).digest('hex'),
    signingSecret: (keyId) => `cssig_${createHmac('sha256', signing).update(keyId).digest('base64url')}`,
    hashToken: (token) => createHmac('sha256', tokenHash).update(token).digest('hex'),
    csrfToken: (boundTo) => createHmac('sha256', csrf).update(boundTo).digest('base64url'),
    limiterKey: (value) => createHmac('sha256', limiter).update(value).digest('hex'),
    credentialsMac: (value) => createHmac('sha256', credentials).update(value).digest('hex'),
    seal: (plaintext, context) => seal(sealing, plaintext, context),
    unseal: (sealed, context) => unseal(sealing, sealed, context),
    fingerprint,
  };
}

const SEAL_VERSION = 'v1';

/**
 * AES-256-GCM with a random 96-bit nonce; `context` is authenticated data. Stored as
 * `v1.<nonce>.<ciphertext>.<tag>` (base64url), so a later key or cipher can be told apart.
 */
function seal(key: Buffer, plaintext: string, context: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const parts = [iv, body, cipher.getAuthTag()].map((b) => b.toString('base64url'));
  return [SEAL_VERSION, ...parts].join('.');
}

function unseal(key: Buffer, sealed: string, context: string): string {
  const [version, iv, body, tag] = sealed.split('.');
  if (version !== SEAL_VERSION || iv === undefined || body === undefined || tag === undefined) {
    throw new Error('not a sealed value of this version');
  }
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
}

/**
 * The secret from CARDSHOT_SECRET, or else from `<dataDir>/secret`, generated (256 random bits,
 * file mode 0600) on the first start. `created` tells the caller a new secret was made. A
 * database already set up with a secret never gets a new one: the start is refused instead.
 */
export async function loadServerSecret(
  config: Pick<AuthConfig, 'secret'> & Pick<StorageConfig, 'dataDir' | 'databaseUrl' | 'databaseSchema'>,
): Promise<{ secret: string; source: 'env' | 'file'; created: boolean }> {
  if (config.secret !== '') {
    if (config.secret.length < MIN_LENGTH) {
      throw new ConfigError(`CARDSHOT_SECRET must be at least ${MIN_LENGTH} characters`);
    }
    return { secret: config.secret, source: 'env', created: false };
  }
  const file = path.join(config.dataDir, 'secret');
  try {
    return { secret: await readSecretFile(file), source: 'file', created: false };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  // A missing file means a first start only if the database has never seen a secret. Otherwise
  // the file was lost, and a new secret would be refused later anyway (no existing key verifies
  // under it) while staying behind on disk, to be backed up in place of the real one.
  if ((await inspectDatabase(config)).secretFingerprint !== undefined) {
    throw new ConfigError(
      `${file} is missing, and the database was set up with the secret that file held (the existing keys were hashed with it): restore the file from your backup, or set CARDSHOT_SECRET to its value`,
    );
  }
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  const secret = randomBytes(32).toString('base64url');
  // Written whole under a temporary name, then linked into place: when two processes start
  // together, one link wins and the other reads a complete file, never a half-written one.
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(tmp, `${secret}\n`, { mode: 0o600 });
  try {
    await link(tmp, file);
    return { secret, source: 'file', created: true };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return { secret: await readSecretFile(file), source: 'file', created: false };
  } finally {
    await unlink(tmp).catch(() => {});
  }
}

async function readSecretFile(file: string): Promise<string> {
  const secret = (await readFile(file, 'utf8')).trim();
  if (secret.length < MIN_LENGTH) {
    throw new ConfigError(`${file} must hold a secret of at least ${MIN_LENGTH} characters`);
  }
  return secret;
}
