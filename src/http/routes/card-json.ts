/**
 * response=json on the card routes (issue 31 §3 needs it for store=s3): instead of the image,
 * what it is, a signed URL of the same card that expires in an hour, and with store=s3 where it
 * was stored. The shape of the screenshot's `image` (shot-json.ts), without page facts.
 */
import type { ServerSecrets } from '../../auth/secret.js';
import { encodeRfc3986, signUrl } from '../../auth/signing.js';
import type { StoredObject } from '../../delivery/upload.js';
import { AppError } from '../../errors.js';
import { IMAGE_URL_SECONDS, sizeOf } from './shot-json.js';

/** `response` taken out of a card request: whether it asks for JSON (400 for another value). */
export function takeResponse<T>(input: T): { rest: T; json: boolean } {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    return { rest: input, json: false };
  const { response, ...rest } = input as Record<string, unknown>;
  if (response === undefined) return { rest: input, json: false };
  if (response !== 'json' && response !== 'image') {
    throw new AppError('bad_request', 'response must be image (the default) or json');
  }
  return { rest: rest as T, json: response === 'json' };
}

/** The card's fields as a GET query, or null when one is not a plain value (an object, a list). */
export function cardParams(fields: Record<string, unknown>): Array<[string, string]> | null {
  const out: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(fields)) {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      out.push([name, String(value)]);
    } else if (value !== undefined && value !== null) return null;
  }
  return out;
}

/** The JSON answer's body. */
export async function cardJsonAnswer(
  card: { body: Buffer; etag: string; contentType: string; format: 'png' | 'jpeg' | 'webp' | 'avif' },
  where: { params: Array<[string, string]> | null; base: string },
  signer: { keyId: string; secrets: ServerSecrets },
  storage: StoredObject | undefined,
  now = Date.now(),
): Promise<Buffer> {
  const url = where.params
    ? signUrl(
        `${where.base}/render/template?${where.params.map(([n, v]) => `${n}=${encodeRfc3986(v)}`).join('&')}`,
        {
          keyId: signer.keyId,
          signingSecret: signer.secrets.signingSecret(signer.keyId),
          expiresAt: Math.floor(now / 1000) + IMAGE_URL_SECONDS,
        },
      )
    : null;
  const answer = {
    image: {
      url,
      contentType: card.contentType,
      ...(await sizeOf(card.body, card.format)),
      bytes: card.body.length,
      etag: `"${card.etag}"`,
    },
    ...(storage ? { storage } : {}),
  };
  return Buffer.from(JSON.stringify(answer));
}
