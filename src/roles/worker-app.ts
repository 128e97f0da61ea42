/**
 * A worker node's HTTP server (CARDSHOT_ROLE=worker): the probes and the metrics, nothing else.
 * Its work comes from PostgreSQL, never from a client; any other path answers 404 saying so, so
 * a load balancer pointed at a worker by mistake is told why.
 */
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { Logger } from 'pino';
import { AppError } from '../errors.js';
import type { Health } from '../health/health.js';
import { logAppError, sendError, toAppError } from '../http/errors.js';
import { installObservation } from '../http/observe.js';
import { requestIdFor } from '../http/request-id.js';
import { registerHealthRoutes } from '../http/routes/health.js';
import { registerMetricsRoute } from '../http/routes/metrics.js';
import type { Metrics } from '../metrics/metrics.js';

export const WORKER_NOT_FOUND =
  'This is a worker node (CARDSHOT_ROLE=worker): it serves only /healthz, /readyz and /metrics; send API requests to an api node';

export function createWorkerApp(deps: {
  log: Logger;
  health: Health;
  metrics: Metrics;
  config: { metricsToken: string; bodyLimitBytes: number };
}): FastifyInstance {
  const app = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: (req) => requestIdFor(req.headers['x-request-id']),
    return503OnClosing: false,
    forceCloseConnections: 'idle',
  });
  app.addHook('onRequest', async (req, reply) => {
    reply.header('X-Request-Id', req.id);
    reply.header('X-Content-Type-Options', 'nosniff');
  });
  installObservation(app, deps.metrics);
  app.setErrorHandler((err: unknown, req, reply) => {
    const appErr = toAppError(err, deps.config.bodyLimitBytes);
    logAppError(req.log, appErr, err);
    return sendError(reply, appErr);
  });
  registerHealthRoutes(app, deps);
  registerMetricsRoute(app, { metrics: deps.metrics, token: deps.config.metricsToken });
  app.setNotFoundHandler((_req, reply) => sendError(reply, new AppError('not_found', WORKER_NOT_FOUND)));
  return app;
}
