import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route reads no body (an action: rotate, test): an empty one sent with a JSON
     * Content-Type, as many HTTP clients do on every POST, is no error there.
     */
    bodyless?: boolean;
  }
}

/**
 * The JSON body parser. Fastify's own refuses prototype keys too, but reports them as "not
 * valid JSON", which sends a caller looking for a syntax error that is not there.
 * `JSON.parse` makes `__proto__` an ordinary own key (it never sets a prototype), so the parsed
 * value is walked once and such keys are refused by name before anything else sees them.
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    // Bodies are read as they come: a gzip body would otherwise be reported as "not valid JSON".
    const encoding = req.headers['content-encoding']?.trim().toLowerCase();
    if (encoding && encoding !== 'identity') {
      const name = JSON.stringify(encoding.slice(0, 40));
      return done(
        new AppError(
          'unsupported_media_type',
          `Content-Encoding ${name} is not supported; send the body uncompressed`,
        ),
      );
    }
    // The body is decoded as UTF-8 (RFC 8259); a body declared in another charset would be
    // misread, so it is refused by name instead of reported as malformed text.
    const charset = CHARSET.exec(req.headers['content-type'] ?? '')?.[1]?.toLowerCase();
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      const name = JSON.stringify(charset.slice(0, 40));
      return done(
        new AppError('unsupported_media_type', `charset ${name} is not supported; send the body as UTF-8`),
      );
    }
    let text = String(body);
    // A byte order mark, which some Windows tools write: RFC 8259 lets a parser ignore it.
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.trim() === '') {
      if (req.routeOptions.config?.bodyless) return done(null, undefined);
      return done(new AppError('bad_request', 'Request body is empty; send a JSON object'));
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return done(new AppError('bad_request', 'Request body is not valid JSON'));
    }
    const twice = duplicateKey(text);
    if (twice !== undefined) {
      // JSON.parse keeps the last one silently: a body that says two things renders neither.
      const name = JSON.stringify(twice.slice(0, 40));
      return done(
        new AppError('bad_request', `${name} appears twice in the request body; send each field once`),
      );
    }
    if (hasPrototypeKey(value)) {
      return done(
        new AppError('bad_request', 'Request body must not contain "__proto__" or "constructor" keys'),
      );
    }
    done(null, value);
  });
}

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]+)/i;

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

/**
 * The first key that appears twice in one object of `text`, which JSON.parse has already
 * accepted (so the scan can trust the syntax). Keys are compared decoded: `"\u0074itle"` is
 * `title`.
 */
export function duplicateKey(text: string): string | undefined {
  // One entry per open object (its keys so far) or array (null).
  const open: (Set<string> | null)[] = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const end = closingQuote(text, i);
      const keys = open.at(-1);
      if (keys && expectKey) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        if (keys.has(key)) return key;
        keys.add(key);
        expectKey = false;
      }
      i = end;
    } else if (c === '{') {
      open.push(new Set());
      expectKey = true;
    } else if (c === '[') {
      open.push(null);
    } else if (c === '}' || c === ']') {
      open.pop();
    } else if (c === ',') {
      expectKey = open.at(-1) != null;
    }
  }
  return undefined;
}

/** The index of the quote closing the string that opens at `start` (escapes skipped whole). */
function closingQuote(text: string, start: number): number {
  let end = start + 1;
  while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
  return end;
}
