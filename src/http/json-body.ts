import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';

/**
 * The JSON body parser. Fastify's own refuses prototype keys too, but reports them as "not
 * valid JSON", which sends a caller looking for a syntax error that is not there.
 * `JSON.parse` makes `__proto__` an ordinary own key (it never sets a prototype), so the parsed
 * value is walked once and such keys are refused by name before anything else sees them.
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body);
    if (text.trim() === '')
      return done(new AppError('bad_request', 'Request body is empty; send a JSON object'));
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return done(new AppError('bad_request', 'Request body is not valid JSON'));
    }
    if (hasPrototypeKey(value)) {
      return done(
        new AppError('bad_request', 'Request body must not contain "__proto__" or "constructor" keys'),
      );
    }
    done(null, value);
  });
}

/** `__proto__` anywhere, or a `constructor` object with a `prototype` (the two poisoning shapes). */
function hasPrototypeKey(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== 'object' || v === null) continue;
    if (!Array.isArray(v)) {
      if (Object.hasOwn(v, '__proto__')) return true;
      const ctor = (v as Record<string, unknown>).constructor;
      if (
        Object.hasOwn(v, 'constructor') &&
        typeof ctor === 'object' &&
        ctor !== null &&
        Object.hasOwn(ctor, 'prototype')
      ) {
        return true;
      }
    }
    stack.push(...Object.values(v));
  }
  return false;
}
