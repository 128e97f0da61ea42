import { type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type ErrorCode } from '../errors.js';
import { newRequestId } from './request-id.js';

/** The ONLY mapping from error codes to HTTP statuses. */
export const STATUS: Readonly<Record<ErrorCode, number>> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  expectation_failed: 417,
  unprocessable: 422,
  rate_limited: 429,
  header_too_large: 431,
  client_closed: 499,
  internal: 500,
  bad_gateway: 502,
  unavailable: 503,
  gateway_timeout: 504,
};

/**
 * Turns anything thrown into an AppError. Fastify's own errors (body parsing, limits) get
 * messages that say what to fix; anything unknown becomes a generic 500 so no stack trace or
 * internal detail ever reaches a client.
 */
export function toAppError(err: unknown, bodyLimit: number): AppError {
  if (err instanceof AppError) return err;
  const fe = err as Partial<FastifyError> & { type?: string };
  switch (fe.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('unsupported_media_type', 'Content-Type must be application/json');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large', `Request body must be at most ${formatBytes(bodyLimit)}`);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('bad_request', 'Request body is empty; send a JSON object');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('bad_request', 'Request body is not valid JSON');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('bad_request', 'Content-Length does not match the body');
  }
  // Fastify's JSON parser reports malformed JSON as a SyntaxError with statusCode 400.
  if (err instanceof SyntaxError && fe.statusCode === 400) {
    return new AppError('bad_request', 'Request body is not valid JSON');
  }
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    return new AppError('bad_request', 'Bad request', { detail: fe.message });
  }
  return new AppError('internal', 'Internal server error', { cause: err });
}

/** Sends `{ "error": message }` with the mapped status and no caching. */
export function sendError(reply: FastifyReply, err: AppError): FastifyReply {
  reply.code(STATUS[err.code]);
  reply.header('Cache-Control', 'no-store');
  if (err.retryAfter !== undefined) reply.header('Retry-After', retryAfterHeader(err.retryAfter));
  for (const [k, v] of Object.entries(err.headers ?? {})) reply.header(k, v);
  // Error bodies replace whatever a handler had set up for a PNG.
  reply.removeHeader('ETag');
  reply.removeHeader('Content-Disposition');
  reply.type('application/json; charset=utf-8');
  return reply.send({ error: err.message });
}

/** The Retry-After value for a wait of `seconds`: whole seconds, at least one. */
export function retryAfterHeader(seconds: number): string {
  return String(Math.max(1, Math.ceil(seconds)));
}

/**
 * Logs an error on its way to the client: a 500 with its cause, a refusal that has a detail
 * for operators at info (the client sees only the message), anything else not at all.
 */
export function logAppError(log: FastifyBaseLogger, appErr: AppError, err: unknown): void {
  if (appErr.code === 'internal') log.error({ err }, 'unhandled error');
  else if (appErr.detail) log.info({ code: appErr.code, detail: appErr.detail }, appErr.message);
}

/** Installs the error handler and the 404/405 handler on `app`. */
export function installErrorHandling(app: FastifyInstance, bodyLimit: number): void {
  app.setErrorHandler((err: unknown, req: FastifyRequest, reply: FastifyReply) => {
    // A route may take more than the server's default (POST /render/url: a stylesheet and cookies).
    const appErr = toAppError(err, req.routeOptions?.bodyLimit ?? bodyLimit);
    logAppError(req.log, appErr, err);
    return sendError(reply, appErr);
  });

  app.setNotFoundHandler((req: FastifyRequest, reply: FastifyReply) => {
    const path = req.url.split('?')[0] ?? '/';
    const allowed = allowedMethods(app, path);
    // A route that exists for this method and still found nothing (a missing static file)
    // is a 404, not a 405 that names the method just used.
    if (allowed.length > 0 && !allowed.includes(req.method)) {
      return sendError(
        reply,
        new AppError(
          'method_not_allowed',
          `Method ${req.method} is not allowed on ${path}; use ${allowed.join(' or ')}`,
          {
            headers: { Allow: allowed.join(', ') },
          },
        ),
      );
    }
    return sendError(reply, new AppError('not_found', `No route for ${req.method} ${truncate(path, 200)}`));
  });
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

function allowedMethods(app: FastifyInstance, path: string): string[] {
  return METHODS.filter((method) => app.findRoute({ method, url: path }) !== null);
}

function truncate(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n)}…` : s;
}

/** 16384 → "16 KiB". */
export function formatBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}

/**
 * Errors Node's HTTP parser reports before Fastify sees a request (malformed request line,
 * oversized headers, a body that never arrives): answered with the same `{ "error" }` shape,
 * written straight to the socket, which is then closed.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const appErr =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? new AppError('header_too_large', 'Request headers are too large')
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new AppError('request_timeout', 'The request did not arrive in time')
        : new AppError('bad_request', 'Malformed HTTP request');
  writeRawError(socket, appErr);
}

/** The status, headers and body of `err` for an answer written without Fastify. */
function rawError(err: AppError): { status: number; headers: Record<string, string>; body: string } {
  const body = JSON.stringify({ error: err.message });
  return {
    status: STATUS[err.code],
    body,
    headers: {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': String(Buffer.byteLength(body)),
      'Cache-Control': 'no-store',
      // docs/api.md promises one on every answer, this one written before any route ran too.
      'X-Request-Id': newRequestId(),
      'X-Content-Type-Options': 'nosniff',
      ...err.headers,
      Connection: 'close',
    },
  };
}

/**
 * Writes `err` as a whole HTTP/1.1 answer straight to `socket` and closes it: for answers
 * given outside Fastify (parser errors, CONNECT), in the same `{ "error" }` shape.
 */
export function writeRawError(socket: Duplex, err: AppError): void {
  const { status, headers, body } = rawError(err);
  socket.end(
    [
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
      '',
      body,
    ].join('\r\n'),
  );
}

/**
 * Requests Node would otherwise answer itself with an empty body (or not at all): CONNECT
 * (Node drops the connection without a word) and an `Expect` other than 100-continue (Node's
 * bare 417). Both get Cardshot's JSON error with a request id.
 */
export function installNodeAnswers(server: Server): void {
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    socket.on('error', () => socket.destroy());
    writeRawError(
      socket,
      new AppError('method_not_allowed', 'Method CONNECT is not allowed: Cardshot is not a proxy', {
        headers: { Allow: 'GET, HEAD, POST' },
      }),
    );
  });
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const value = truncate(String(req.headers.expect ?? ''), 100);
    const { status, headers, body } = rawError(
      new AppError('expectation_failed', `Expect: ${value} is not supported; only Expect: 100-continue is`),
    );
    res.shouldKeepAlive = false;
    res.writeHead(status, headers);
    res.end(body);
  });
}
