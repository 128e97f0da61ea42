/** Query parameters whose values must never reach a log line. */
const SECRET_PARAMS = new Set(['api_key', 'apikey', 'key', 'sig', 'signature', 'token']);

/** The request URL with secret query values replaced by `[REDACTED]`. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = decodeSafe(eq < 0 ? pair : pair.slice(0, eq)).toLowerCase();
      return SECRET_PARAMS.has(name) && eq >= 0 ? `${pair.slice(0, eq)}=[REDACTED]` : pair;
    });
  return `${url.slice(0, q)}?${params.join('&')}`;
}

function decodeSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
