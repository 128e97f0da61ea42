import { parseArgs } from 'node:util';
import { isId } from '../../auth/keys.js';
import { carriesFresh, FRESH_SIGNED_MAX_SECONDS, FRESH_SIGNED_REFUSED, signUrl } from '../../auth/signing.js';
import { out, parseExpiry, report, required, UsageError } from '../admin.js';

const HELP = `Sign a GET URL, for <meta property="og:image"> tags where no header can be sent.

  npx cardshot sign '<url>' --key-id key_… --secret cssig_… [--expires 365d|2027-01-01] [--json]
  printenv SIGNING_SECRET | npx cardshot sign '<url>' --key-id key_… --secret -

--secret - reads the secret from standard input, which keeps it out of shell history and of
the process list.

Adds kid, exp and sig to the URL. Anyone holding the URL gets exactly that image until it
expires (or the key is revoked); nobody can change its parameters. Default expiry: 365 days,
since crawlers re-read og:image URLs long after a page is published. No database is needed.
A screenshot URL with fresh=true (a new capture on every request) is refused unless it expires
within 30 minutes.`;

/** `cardshot sign`. */
export async function runSign(argv: string[]): Promise<number> {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        'key-id': { type: 'string' },
        secret: { type: 'string' },
        expires: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (values.help) {
      process.stdout.write(`${HELP}\n`);
      return 0;
    }
    const url = positionals[0];
    if (!url) throw new UsageError('give the URL to sign');
    const keyId = required(values['key-id'], '--key-id');
    if (!isId(keyId, 'key')) throw new UsageError('--key-id must be a key id (key_…)');
    const given = required(values.secret, '--secret');
    const secret = given === '-' ? (await readStdin()).trim() : given;
    if (!secret.startsWith('cssig_')) throw new UsageError('--secret must be the signing secret (cssig_…)');
    const expiresMs = parseExpiry(values.expires ?? '365d');
    if (expiresMs <= Date.now()) throw new UsageError('--expires must be in the future');
    const expiresAt = Math.floor(expiresMs / 1000);
    // A signed URL is made to be published; one that also carries the key would publish it.
    if (new URL(url, 'http://relative.invalid').searchParams.has('api_key')) {
      throw new UsageError(
        'the URL carries an API key (api_key=…): remove it; a signed URL is public and must not hold the key',
      );
    }
    // Every request to a URL with fresh=true is a capture the key's owner pays for.
    const params = [...new URL(url, 'http://relative.invalid').searchParams.entries()];
    if (carriesFresh(params) && expiresAt - Date.now() / 1000 > FRESH_SIGNED_MAX_SECONDS) {
      throw new UsageError(`${FRESH_SIGNED_REFUSED} (--expires 30m)`);
    }
    const signed = signUrl(url, { keyId, signingSecret: secret, expiresAt });
    out(values.json ?? false, { url: signed, expiresAt: new Date(expiresAt * 1000).toISOString() }, signed);
    return 0;
  } catch (err) {
    if (err instanceof Error && (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      return report('sign', HELP, new UsageError(err.message));
    }
    if (err instanceof TypeError && /Invalid URL/.test(err.message)) {
      return report('sign', HELP, new UsageError('the URL is not valid'));
    }
    return report('sign', HELP, err);
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
