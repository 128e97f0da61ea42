import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';

/**
 * s3rver checks the access key of a SigV4 request but not its signature ("V4 signatures have
 * incomplete support"), so a wrong secret would pass. This gate in front of it recomputes each
 * request's SigV4 signature with the real secret (AWS's published algorithm: canonical request,
 * string to sign, HMAC chain) and answers S3's own 403 SignatureDoesNotMatch error when it
 * differs; a request that verifies is passed to s3rver unchanged.
 */
export interface SigV4Gate {
  port: number;
  endpoint: string;
  hostPort: string;
  /** Every request seen, as `METHOD /path?query`. */
  requests: string[];
  close(): Promise<void>;
}

/** Passes `req` to the server on 127.0.0.1:`upstreamPort` unchanged, and its answer back. */
export function forwardTo(upstreamPort: number, req: IncomingMessage, res: ServerResponse): void {
  const up = request(
    { host: '127.0.0.1', port: upstreamPort, method: req.method, path: req.url, headers: req.headers },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  up.on('error', () => res.destroy());
  req.pipe(up);
}

export async function startSigV4Gate(
  upstreamPort: number,
  secrets: Record<string, string>,
): Promise<SigV4Gate> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const verdict = verify(req, secrets);
    if (verdict !== 'ok') {
      req.resume();
      res.writeHead(403, { 'content-type': 'application/xml' });
      res.end(
        `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match the signature you provided. Check your key and signing method.</Message></Error>`,
      );
      return;
    }
    forwardTo(upstreamPort, req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    endpoint: `http://127.0.0.1:${port}`,
    hostPort: `127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const enc = (s: string) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** 'ok' (or a key s3rver refuses itself), or why not; unsigned requests are refused too. */
function verify(req: IncomingMessage, secrets: Record<string, string>): 'ok' | string {
  const auth = req.headers.authorization ?? '';
  const m =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]+)$/.exec(
      auth,
    );
  if (!m) return 'no SigV4 header';
  const [, keyId, day, region, service, signedHeaders, signature] = m as unknown as string[];
  const secret = secrets[keyId!];
  // An unknown key is s3rver's to refuse (InvalidAccessKeyId, as S3 does).
  if (secret === undefined) return 'ok';
  const url = new URL(req.url ?? '/', 'http://x');
  const query = [...url.searchParams.entries()]
    .map(([k, v]) => [enc(k), enc(v)] as const)
    .sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : 1) : a[0] < b[0] ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const names = signedHeaders!.split(';');
  const headers = names
    .map((n) => {
      const v = req.headers[n];
      return `${n}:${(Array.isArray(v) ? v.join(',') : (v ?? '')).trim().replace(/\s+/g, ' ')}\n`;
    })
    .join('');
  const payload = String(req.headers['x-amz-content-sha256'] ?? 'UNSIGNED-PAYLOAD');
  const canonical = [req.method, url.pathname, query, headers, signedHeaders, payload].join('\n');
  const date = String(req.headers['x-amz-date'] ?? '');
  const scope = `${day}/${region}/${service}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', date, scope, createHash('sha256').update(canonical).digest('hex')].join(
    '\n',
  );
  let key: Buffer = createHmac('sha256', `AWS4${secret}`).update(day!).digest();
  for (const part of [region!, service!, 'aws4_request'])
    key = createHmac('sha256', key).update(part).digest();
  const expected = createHmac('sha256', key).update(toSign).digest('hex');
  return expected === signature ? 'ok' : 'signature differs';
}
