import type { FastifyReply, FastifyRequest } from 'fastify';
import { clientClosed } from '../errors.js';

/**
 * A signal that aborts (with a 499 `client_closed`) when the client hangs up before its answer
 * has been sent, for work a route can stop early. It watches the response, not the request: a
 * request stream is closed as soon as it has been read, usually before the handler runs, so its
 * `close` never reports a hang-up. A client gone before this call (during authentication) has
 * already closed the response, so that is checked too.
 */
export function clientGoneSignal(req: FastifyRequest, reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort(clientClosed());
  });
  if (reply.raw.destroyed || req.raw.socket?.destroyed) controller.abort(clientClosed());
  return controller.signal;
}
