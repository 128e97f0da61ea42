/**
 * S3 clients for storage targets, each dialing through the URL guard. The endpoint was checked
 * when the target was made; every connection checks again: the agents' `lookup` asks the guard,
 * which resolves the name once and answers only a public address (or an allowlisted one), so a
 * name that rebinds to 127.0.0.1 or 169.254.169.254 after creation reaches nothing. An IP
 * literal is never looked up by Node: `upload.ts` checks the endpoint before each attempt.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { S3Client } from '@aws-sdk/client-s3';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { UrlGuard } from '../net/url-guard.js';
import { createSigner, type Signer } from './put-object.js';
import type { TargetRecord } from './store.js';

/** Sockets one target's client keeps open (uploads of one account are bounded anyway). */
const SOCKETS_PER_TARGET = 16;
/** Clients kept; the least recently made beyond it is closed (a node serves many accounts). */
const MAX_CLIENTS = 256;

export interface TargetClient {
  /** The SDK's client: multipart uploads and DeleteObject. */
  client: S3Client;
  /** The same guarded keep-alive agent the SDK dials through, for put-object.ts's single PUT. */
  agent: http.Agent;
  signer: Signer;
  /** The plain secret, to scrub from error messages (never logged, never answered). */
  secret: string;
}

export interface S3Clients {
  /** The client of `target` (made on first use, again when the target's secret changed). */
  get(target: TargetRecord): TargetClient;
  /** Forgets a deleted target's client. */
  drop(targetId: string): void;
  close(): void;
}

/** One guarded client per target, bounded in number. */
export function createS3Clients(deps: {
  guard: UrlGuard;
  unseal: (sealed: string, context: string) => string;
  /** The socket's idle time-out (the attempt's own deadline is upload.ts's). */
  timeoutMs: number;
}): S3Clients {
  const clients = new Map<string, { sealed: string; made: TargetClient }>();
  const drop = (id: string) => {
    clients.get(id)?.made.client.destroy();
    clients.delete(id);
  };
  return {
    get(target) {
      const known = clients.get(target.id);
      if (known && known.sealed === target.secretSealed) return known.made;
      if (known) drop(target.id);
      if (clients.size >= MAX_CLIENTS) drop(clients.keys().next().value as string);
      const secret = deps.unseal(target.secretSealed, sealContext(target.id));
      const made = { ...makeClient(target, secret, deps.guard, deps.timeoutMs), secret };
      clients.set(target.id, { sealed: target.secretSealed, made });
      return made;
    },
    drop,
    close() {
      for (const id of [...clients.keys()]) drop(id);
    },
  };
}

/** What a target's secret is sealed with: its id, so a sealed value copied to another row does not open. */
export function sealContext(targetId: string): string {
  return `storage-target:${targetId}`;
}

function makeClient(
  target: TargetRecord,
  secret: string,
  guard: UrlGuard,
  timeoutMs: number,
): Omit<TargetClient, 'secret'> {
  const endpoint = new URL(target.endpoint);
  const port = endpoint.port || (endpoint.protocol === 'https:' ? '443' : '80');
  const lookup = guardedLookup(guard, endpoint.protocol, port);
  const options = { keepAlive: true, maxSockets: SOCKETS_PER_TARGET, lookup };
  const httpAgent = new http.Agent(options);
  const httpsAgent = new https.Agent(options);
  const client = new S3Client({
    endpoint: target.endpoint,
    region: target.region,
    forcePathStyle: target.forcePathStyle,
    credentials: { accessKeyId: target.accessKeyId, secretAccessKey: secret },
    // upload.ts retries with its own bounded back-off and reports the storage's code.
    maxAttempts: 1,
    // Checksums only where the API requires them: S3-compatible servers (older MinIO, Ceph,
    // s3rver) refuse the newer flexible-checksum headers and aws-chunked bodies.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: new NodeHttpHandler({
      httpAgent,
      httpsAgent,
      connectionTimeout: timeoutMs,
      requestTimeout: timeoutMs,
    }),
  });
  const agent = endpoint.protocol === 'https:' ? httpsAgent : httpAgent;
  return { client, agent, signer: createSigner(target, secret) };
}

/**
 * A `lookup` that resolves through the guard: one check per connection, the socket dials the
 * address the guard returned. The port is the endpoint's (a virtual-hosted bucket name is a
 * subdomain of the same endpoint).
 */
function guardedLookup(guard: UrlGuard, protocol: string, port: string): LookupFunction {
  return (hostname, options, callback) => {
    const host = hostname.includes(':') ? `[${hostname}]` : hostname;
    guard.check(`${protocol}//${host}:${port}/`).then(
      (t) => {
        if ((options as { all?: boolean }).all) {
          (callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [
            { address: t.address, family: t.family },
          ]);
        } else callback(null, t.address, t.family);
      },
      (err: Error) => callback(err as NodeJS.ErrnoException, '', 0),
    );
  };
}
