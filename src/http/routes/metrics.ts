import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../errors.js';
import type { Metrics } from '../../metrics/metrics.js';
import { documentOnly, errorResponse, REQUEST_ID } from '../schemas/common.js';

/** The message of a missing or wrong metrics token. */
export const METRICS_UNAUTHORIZED = 'Missing or invalid metrics token';
/** The message when metrics are off (no token configured). */
export const METRICS_OFF =
  'Metrics are turned off on this server; set CARDSHOT_METRICS_TOKEN to turn them on';

/**
 * GET /metrics in Prometheus text format, behind a bearer token. Without a configured token it
 * answers 404: request counts, latencies and pool sizes tell an outsider how busy and how big
 * the deployment is, so nothing is exposed until the operator chooses a token.
 */
export function registerMetricsRoute(app: FastifyInstance, deps: { metrics: Metrics; token: string }): void {
  // Both sides hashed first: equal lengths for timingSafeEqual, and the token's length is not leaked.
  const expected = deps.token === '' ? undefined : digest(deps.token);
  app.get(
    '/metrics',
    documentOnly({
      operationId: 'metrics',
      tags: ['Operations'],
      summary: 'Prometheus metrics',
      description:
        'Request counts and latency histograms by route pattern and status, template renders and screenshot captures with their durations, cache lookups per tier, browser pool and queue depths, rate-limit refusals, imageUrl failures by reason, and process metrics. Needs `Authorization: Bearer <CARDSHOT_METRICS_TOKEN>`; answers 404 while no token is configured.\n\n```bash\ncurl -sS -H "Authorization: Bearer $CARDSHOT_METRICS_TOKEN" http://localhost:3000/metrics\n```',
      security: [{ metricsToken: [] }],
      response: {
        200: {
          description: 'Prometheus text exposition format 0.0.4.',
          headers: REQUEST_ID,
          content: {
            'text/plain; version=0.0.4': {
              schema: Type.String(),
              example:
                '# HELP cardshot_http_requests_total HTTP requests answered, by method, route pattern and status.\n# TYPE cardshot_http_requests_total counter\ncardshot_http_requests_total{method="POST",route="/render/template",status="200"} 42\n',
            },
          },
        },
        401: errorResponse(
          'No bearer token, or not the configured one.',
          { unauthorized: METRICS_UNAUTHORIZED },
          { 'WWW-Authenticate': Type.String({ examples: ['Bearer realm="metrics"'] }) },
        ),
        404: errorResponse('Metrics are turned off (CARDSHOT_METRICS_TOKEN is empty).', { off: METRICS_OFF }),
      },
    }),
    async (req, reply) => {
      if (!expected) throw new AppError('not_found', METRICS_OFF);
      const header = req.headers.authorization;
      const presented = typeof header === 'string' ? /^Bearer +(\S+)\s*$/i.exec(header)?.[1] : undefined;
      if (presented === undefined || !timingSafeEqual(digest(presented), expected)) {
        throw new AppError('unauthorized', METRICS_UNAUTHORIZED, {
          headers: { 'WWW-Authenticate': 'Bearer realm="metrics"' },
          detail: presented === undefined ? 'no bearer token' : 'wrong metrics token',
        });
      }
      reply.header('Cache-Control', 'no-store');
      return reply.type(deps.metrics.contentType).send(await deps.metrics.text());
    },
  );
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}
