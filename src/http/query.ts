/**
 * The query string parser. Fastify's default (fast-querystring) keeps a malformed percent
 * sequence as its raw text, so `title=Caf%E0%A4` would draw a card saying "Caf%E0%A4".
 * URLSearchParams decodes it to U+FFFD, which the field checks refuse with a 400 naming the
 * field. A repeated name gives an array (refused by the routes as "given once"); the object
 * has no prototype, so `__proto__` is an ordinary key there and is refused as unknown.
 */
export function parseQueryString(text: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = Object.create(null);
  for (const [name, value] of new URLSearchParams(text)) {
    const seen = out[name];
    if (seen === undefined) out[name] = value;
    else if (Array.isArray(seen)) seen.push(value);
    else out[name] = [seen, value];
  }
  return out;
}
