import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { Metrics } from '../metrics/metrics.js';
import { redactUrl } from './redact.js';
import { decorateTimings, loggedTimings } from './timings.js';

/** Routes a load balancer polls every few seconds: their lines go to debug, not info. */
const PROBES = new Set(['/healthz', '/readyz']);

/**
 * One log line and one metrics observation per request, written when the response is done.
 * The line names who called (key id and account id, never the key), the route pattern, the
 * status, the cache status and the phase timings, so one line answers "why was this slow".
 */
export function installObservation(app: FastifyInstance, metrics: Pick<Metrics, 'observeRequest'>): void {
  decorateTimings(app);
  const observe = (req: FastifyRequest, reply: FastifyReply, status: number) => {
    const route = routeOf(req);
    const ms = reply.elapsedTime;
    metrics.observeRequest(req.method, route, status, ms / 1000);
    const level = PROBES.has(route) && status < 400 ? 'debug' : 'info';
    // Building the line (redaction, timings) costs more than a cache hit's own work: skip it
    // when the level is off.
    if (!(req.log as Logger).isLevelEnabled(level)) return; // req.log is a pino child (app.ts)
    req.log[level]({ ...requestLine(req, reply, route, ms), status }, 'request');
  };
  app.addHook('onResponse', async (req, reply) => observe(req, reply, reply.statusCode));
  // Fastify runs no onResponse for a client that hung up first: its line (status 499, as
  // nginx logs it) would otherwise be missing, and with it what the abandoned request cost.
  app.addHook('onRequest', async (req, reply) => {
    reply.raw.once('close', () => {
      // Not sent at all (injected test requests close after sending, without writableFinished).
      if (!reply.sent && !reply.raw.writableFinished) observe(req, reply, 499);
    });
  });
}

/** The route pattern (`/dashboard/keys/:id/revoke`), or `unmatched` for a 404: bounded label values. */
export function routeOf(req: FastifyRequest): string {
  return req.routeOptions.url ?? 'unmatched';
}

function requestLine(req: FastifyRequest, reply: FastifyReply, route: string, ms: number) {
  const timings = req.timings;
  const account = req.auth?.accountId ?? req.dash?.session?.account.id;
  return {
    method: req.method,
    route,
    url: redactUrl(req.url),
    status: reply.statusCode,
    ms: Math.round(ms * 10) / 10,
    cache: timings?.cache ?? null,
    ...(req.auth ? { keyId: req.auth.keyId, auth: req.auth.via } : {}),
    ...(account ? { accountId: account } : {}),
    ...(timings ? { timings: loggedTimings(timings) } : {}),
  };
}
