/**
 * Where people reach this server, for links it prints or writes (invite links, the playground's
 * og:image URL and curl command): CARDSHOT_PUBLIC_URL when set, else the address the server
 * really listens on. Never the request's Host header, which any client chooses.
 */
import { readFileSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** `http://host:port` for an address and port, as a browser on this machine would type it. */
export function originFor(protocol: 'http' | 'https', address: string, port: number): string {
  let host = address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
  // The wildcard addresses accept connections on every interface; from here, that is localhost.
  if (host === '' || host === '0.0.0.0' || host === '::') host = 'localhost';
  if (host.includes(':')) host = `[${host}]`;
  const standard = (protocol === 'http' && port === 80) || (protocol === 'https' && port === 443);
  return `${protocol}://${host}${standard || port <= 0 ? '' : `:${port}`}`;
}

/** CARDSHOT_PUBLIC_URL without its trailing slashes, or '' when unset. */
export function configuredOrigin(publicUrl: string): string {
  return publicUrl.replace(/\/+$/, '');
}

/** The file a running server writes its listening origin to, so the CLI prints working links. */
const ADDRESS_FILE = 'listening-at.txt';

/**
 * Records the origin the server listens at in `dataDir` (replaced atomically on every start).
 * Not secret. Errors are the caller's to ignore: links then fall back to the configured port.
 */
export async function recordListeningOrigin(dataDir: string, origin: string): Promise<void> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, ADDRESS_FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, `${origin}\n`, { mode: 0o644 });
  await rename(tmp, file);
}

/** The origin the last server started on this data dir listened at, or null. */
export function readListeningOrigin(dataDir: string): string | null {
  try {
    const text = readFileSync(path.join(dataDir, ADDRESS_FILE), 'utf8').trim();
    return /^https?:\/\/[A-Za-z0-9.:[\]-]+$/.test(text) ? text : null;
  } catch {
    return null;
  }
}

/**
 * The base for links the CLI prints: CARDSHOT_PUBLIC_URL, else where the server on this data dir
 * listens (recorded at its start), else the configured HOST and PORT.
 */
export function linkOrigin(config: {
  publicUrl: string;
  dataDir: string;
  host: string;
  port: number;
}): string {
  return (
    configuredOrigin(config.publicUrl) ||
    readListeningOrigin(config.dataDir) ||
    originFor('http', config.host, config.port)
  );
}
