/**
 * If-None-Match uses the weak comparison (RFC 9110 §13.1.2): `W/` is ignored, `*` matches
 * any current representation, and the header may list several tags. Here, beside the cache,
 * because both render services answer 304 from the key they cache under and neither should
 * import the other.
 */
export function etagMatches(header: string, etag: string): boolean {
  const trimmed = header.trim();
  if (trimmed === '*') return true;
  return trimmed
    .split(',')
    .map((t) => t.trim().replace(/^W\//, ''))
    .some((t) => t === `"${etag}"`);
}
