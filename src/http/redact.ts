/**
 * Query parameter names whose values never reach a log line, compared with case and
 * punctuation removed (so `api_key`, `API-KEY`, `x-api-key` and `apiKey` are all caught).
 * Names ending in one of these are secret too (`access_token`, `client_secret`, `my_password`).
 */
const SECRET_NAMES = [
  'apikey',
  'key',
  'sig',
  'signature',
  'token',
  'secret',
  'password',
  'passwd',
  // A screenshot's credentials: refused in a URL (POST only), and never logged when sent there anyway.
  'headers',
  'cookies',
  'basicauth',
];

/**
 * Values that are secret whatever they are called or wherever they appear (a key pasted into
 * the path, or sent under a name we did not think of): Cardshot's own key, signing-secret and
 * invite formats.
 */
const SECRET_VALUES =
  /cs_[a-z][a-z0-9]{0,15}_[0-9A-Za-z]{20,}|cssig_[A-Za-z0-9_-]{20,}|csinv_[A-Za-z0-9_-]{20,}/g;

const REDACTED = '[REDACTED]';

/** The request URL with secret query values, and anything shaped like a Cardshot secret, replaced by `[REDACTED]`. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const out = redactValues(path);
  if (q < 0) return out;
  const params = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq >= 0 && isSecretName(decodeSafe(pair.slice(0, eq)))) return `${pair.slice(0, eq)}=${REDACTED}`;
      return redactValues(pair);
    });
  return `${out}?${params.join('&')}`;
}

/** True when `s` holds something shaped like a Cardshot key, signing secret or invite token (percent-encoded too). */
export function containsSecret(s: string): boolean {
  return redactValues(s) !== s;
}

function isSecretName(name: string): boolean {
  const flat = name.toLowerCase().replace(/[^a-z0-9]/g, '');
  return SECRET_NAMES.some((s) => flat === s || flat.endsWith(s));
}

/** Secrets are matched decoded too, so percent-encoding a key does not smuggle it into a log. */
function redactValues(s: string): string {
  const decoded = decodeSafe(s);
  if (decoded !== s) {
    const hidden = decoded.replace(SECRET_VALUES, REDACTED);
    if (hidden !== decoded) return hidden;
  }
  return s.replace(SECRET_VALUES, REDACTED);
}

/**
 * Percent-decodes every well-formed `%XX` run and leaves the rest as it is: one malformed escape
 * (`%zz`, a cut-off `%E0%A4%A`) must not leave the whole text undecoded, or a percent-encoded key
 * beside it would reach the log. Never throws; invalid UTF-8 becomes U+FFFD.
 */
function decodeSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) =>
      Buffer.from(run.replace(/%/g, ''), 'hex').toString('utf8'),
    );
  }
}
