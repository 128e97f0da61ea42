/**
 * response=json (issue 29 §4): instead of the image, what it is and what the page is, with a
 * signed image URL that expires in an hour. The page facts come from the capture (read from the
 * rendered page, cached with the image), so a cached answer costs no browser.
 */
import sharp from 'sharp';
import type { AuthContext } from '../../auth/authenticate.js';
import type { ServerSecrets } from '../../auth/secret.js';
import { encodeRfc3986, signUrl } from '../../auth/signing.js';
import type { StoredObject } from '../../delivery/upload.js';
import { SHOT_CONTENT_TYPES } from '../../render/screenshot/options.js';
import type { ScreenshotRequest } from '../../render/screenshot/request.js';
import { imageEtag } from '../../render/screenshot/service/entries.js';
import type { ShotResult } from '../../render/screenshot/types.js';

/** How long the image URL of a JSON answer may be used. */
export const IMAGE_URL_SECONDS = 3600;

/** The image's size in pixels (null for a PDF, which has pages, not pixels). */
export async function sizeOf(body: Buffer, format: ShotResult['format']) {
  if (format === 'pdf') return { width: null, height: null };
  if (format === 'png') return { width: body.readUInt32BE(16), height: body.readUInt32BE(20) };
  const meta = await sharp(body).metadata();
  return { width: meta.width ?? null, height: meta.height ?? null };
}

/**
 * The image URL: the same request as a GET without `response`, signed with the caller's key for
 * an hour. A capture made with credentials has none: a URL cannot carry them (that is the point).
 */
function imageUrl(
  params: ReadonlyArray<readonly [string, string]> | null,
  base: string,
  auth: Pick<AuthContext, 'keyId'>,
  secrets: ServerSecrets,
  now: number,
): string | null {
  if (!params) return null;
  const query = params
    .filter(([n]) => n !== 'response')
    .map(([n, v]) => `${n}=${encodeRfc3986(v)}`)
    .join('&');
  return signUrl(`${base}/render/url?${query}`, {
    keyId: auth.keyId,
    signingSecret: secrets.signingSecret(auth.keyId),
    expiresAt: Math.floor(now / 1000) + IMAGE_URL_SECONDS,
  });
}

/** The JSON answer's body. */
export async function jsonAnswer(
  result: ShotResult & { kind: 'png' },
  req: ScreenshotRequest,
  where: { params: ReadonlyArray<readonly [string, string]> | null; base: string },
  /** The key the image URL is signed with: the caller's. */
  auth: Pick<AuthContext, 'keyId'>,
  secrets: ServerSecrets,
  now = Date.now(),
  /** With store=s3: where the capture was uploaded. */
  storage?: StoredObject,
): Promise<Buffer> {
  const facts = result.page;
  const answer = {
    image: {
      url: imageUrl(req.credentials ? null : where.params, where.base, auth, secrets, now),
      contentType: SHOT_CONTENT_TYPES[result.format],
      ...(await sizeOf(result.body, result.format)),
      bytes: result.body.length,
      etag: `"${imageEtag(result.body, req.options)}"`,
    },
    page: {
      finalUrl: result.finalUrl ?? req.url,
      status: result.targetStatus,
      title: facts?.title ?? null,
      description: facts?.description ?? null,
      lang: facts?.lang ?? null,
      canonical: facts?.canonical ?? null,
      themeColor: facts?.themeColor ?? null,
      icons: facts?.icons ?? [],
      openGraph: facts?.openGraph ?? {},
      twitter: facts?.twitter ?? {},
    },
    ...(storage ? { storage } : {}),
    timings: Object.fromEntries(
      Object.entries(result.timings).map(([k, v]) => [k, Math.round((v ?? 0) * 10) / 10]),
    ),
  };
  return Buffer.from(JSON.stringify(answer));
}
