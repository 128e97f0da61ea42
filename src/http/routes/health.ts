import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Health } from '../../health/health.js';
import { documentOnly, REQUEST_ID } from '../schemas/common.js';

const Check = Type.Object({
  status: Type.String({ enum: ['ok', 'fail'] }),
  critical: Type.Boolean({ description: 'A failing critical check makes the node not ready (503).' }),
  ms: Type.Number({ description: 'How long the check took.' }),
  detail: Type.Optional(Type.String()),
  fix: Type.Optional(Type.String({ description: 'What to do when it fails.' })),
});

const Readiness = Type.Object({
  status: Type.String({
    enum: ['ok', 'degraded', 'fail'],
    description:
      'ok: all checks pass; degraded: a non-critical check fails (still serving); fail: not ready.',
  }),
  checkedAt: Type.String({
    format: 'date-time',
    description: 'When the checks ran (results are kept for 1 s).',
  }),
  checks: Type.Record(Type.String(), Check),
});

const example = {
  status: 'ok',
  checkedAt: '2026-01-01T12:00:00.000Z',
  checks: {
    database: { status: 'ok', critical: true, ms: 0.4, detail: 'sqlite' },
    renderer: {
      status: 'ok',
      critical: true,
      ms: 9.8,
      detail: 'rendered a card in 9 ms; 0 rendering, 0 waiting',
    },
    browser: {
      status: 'ok',
      critical: false,
      ms: 0.1,
      detail: 'Chromium running (pid 4242), 0 capturing, 2 spare contexts',
    },
    storage: { status: 'ok', critical: false, ms: 0.2, detail: 'writable, 20480.0 MiB free' },
  },
};

/** Liveness and readiness probes: public, no key, never counted as usage, never rate limited. */
export function registerHealthRoutes(app: FastifyInstance, deps: { health: Health }): void {
  app.get(
    '/healthz',
    documentOnly({
      operationId: 'liveness',
      tags: ['Operations'],
      summary: 'Liveness: the process answers',
      description:
        'Answers 200 as long as the event loop runs; it checks nothing else, so a slow database never gets a healthy node restarted. Use /readyz to decide where to send traffic.\n\n```bash\ncurl -sS http://localhost:3000/healthz\n```',
      response: {
        200: {
          description: 'Alive.',
          headers: REQUEST_ID,
          content: {
            'application/json': {
              schema: Type.Object({ status: Type.Literal('ok'), uptimeSeconds: Type.Number() }),
              example: { status: 'ok', uptimeSeconds: 3600.2 },
            },
          },
        },
      },
    }),
    async (_req, reply) => {
      reply.header('Cache-Control', 'no-store');
      return { status: 'ok', uptimeSeconds: Math.round(process.uptime() * 10) / 10 };
    },
  );

  app.get(
    '/readyz',
    documentOnly({
      operationId: 'readiness',
      tags: ['Operations'],
      summary: 'Readiness: database, Redis, renderer, browser',
      description:
        'Runs every readiness check (database round trip, failing at once while the database breaker is open; free space and write access of the data dir; Redis ping when REDIS_URL is set; a real template render; the Chromium pool, including a stopped browser) and names each with its latency. 503 when a critical check (database, renderer) fails; 200 with status `degraded` when only a non-critical one (Redis: limits fall back per process; browser: screenshots answer 503; storage: the data disk is under CARDSHOT_DISK_MIN_FREE_BYTES or not writable, so usage, keys and sessions may fail to be written) fails. Results are cached for one second, so probing it often costs nothing.\n\n```bash\ncurl -sS http://localhost:3000/readyz\n```',
      response: {
        200: {
          description: 'Ready (status ok or degraded).',
          headers: REQUEST_ID,
          content: { 'application/json': { schema: Readiness, example } },
        },
        503: {
          description: 'Not ready: a critical check failed.',
          headers: REQUEST_ID,
          content: {
            'application/json': {
              schema: Readiness,
              example: {
                status: 'fail',
                checkedAt: '2026-01-01T12:00:00.000Z',
                checks: {
                  ...example.checks,
                  database: {
                    status: 'fail',
                    critical: true,
                    ms: 2000.1,
                    detail: 'no answer within 2000 ms',
                    fix: 'check that the database is running and DATABASE_URL points at it (npx cardshot doctor)',
                  },
                },
              },
            },
          },
        },
      },
    }),
    async (_req, reply) => {
      const readiness = await deps.health.readiness();
      reply.header('Cache-Control', 'no-store');
      return reply.code(readiness.status === 'fail' ? 503 : 200).send(readiness);
    },
  );
}
