import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors.js';
import { type ArtworkFetcher, createArtworkFetcher } from '../../../src/render/image/artwork.js';
import {
  type CanaryServer,
  type FixtureServer,
  startCanaryServer,
  startFixtureServer,
} from '../../helpers/servers.js';

// Loopback is NOT allow-listed except the fixture; the canary listens on loopback and its port is
// an allowed port, so only the address rules stand between a request and the canary.
let fx: FixtureServer;
let canary: CanaryServer;
let artwork: ArtworkFetcher;

beforeAll(async () => {
  [fx, canary] = await Promise.all([startFixtureServer(), startCanaryServer()]);
  artwork = createArtworkFetcher({ allowPrivateHosts: [fx.hostPort], allowedPorts: [80, 443, canary.port] });
});
afterAll(async () => {
  await artwork.close();
  await Promise.all([fx.close(), canary.close()]);
});

const NOT_ALLOWED = 'imageUrl points to an address that is not allowed';

async function rejection(url: string): Promise<AppError> {
  const err = await artwork.fetch(url).then(
    () => new Error(`${url} was fetched`),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

// Regression (issue 20 §5): an internal name that does not resolve answered "could not be
// reached", one that does "not allowed": the difference maps internal DNS.
describe('internal names', () => {
  it('get the same answer whether or not they exist', async () => {
    for (const host of [
      'no-such-name-x7',
      'no-such.internal',
      'no-such.lan',
      'localhost',
      'nas.home.arpa',
      'x.corp',
      'p.local',
    ]) {
      const err = await rejection(`http://${host}/a.png`);
      expect([host, err.code, err.message]).toEqual([host, 'unprocessable', NOT_ALLOWED]);
    }
  });
});

describe('refused targets never reach the network', () => {
  const hosts = [
    '127.1',
    '2130706433',
    '0x7f000001',
    '0177.0.0.1',
    '127.0.0.1',
    '[::ffff:127.0.0.1]',
    '[::ffff:7f00:1]',
    '[::127.0.0.1]',
    '[::1]',
    '169.254.169.254',
    '0.0.0.0',
    '0',
    'localhost',
  ];

  it('answers the generic message, with the reason only in the log detail', async () => {
    // Built inside the test: the canary port is only known after beforeAll.
    const urls = [
      ...hosts.map((h) => `http://${h}/`),
      ...hosts.map((h) => `http://${h}:${canary.port}/`),
      `http://user@127.0.0.1:${canary.port}/`,
      'http://user@127.0.0.1/',
      `http://127.0.0.1:${canary.port}/`,
      `http://${fx.hostPort}/redirect?to=${encodeURIComponent(canary.url)}`,
      `http://${fx.hostPort}/redirect?to=${encodeURIComponent(`http://0x7f000001:${canary.port}/`)}`,
      `http://${fx.hostPort}/redirect?to=${encodeURIComponent(`http://[::ffff:7f00:1]:${canary.port}/`)}`,
      `http://${fx.hostPort}/redirect?to=${encodeURIComponent('http://169.254.169.254/latest/meta-data/')}`,
      `http://${fx.hostPort}/redirect?to=${encodeURIComponent('file:///etc/passwd')}`,
      // The fixture's own host on another port is not covered by the allow-list entry.
      `http://${fx.hostPort}/redirect?to=${encodeURIComponent(`http://127.0.0.1:${canary.port}/x`)}`,
    ];
    for (const url of urls) {
      const err = await rejection(url);
      expect([url, err.code, err.message]).toEqual([url, 'unprocessable', NOT_ALLOWED]);
      expect(err.detail).toMatch(
        /^(.+ -> .+ is .+|.+ is a single-label \(internal\) name|URL carries credentials|scheme file: is not http or https)$/,
      );
    }
    expect(canary.connections).toBe(0);
  });

  it('names the matched rule in the log detail only', async () => {
    const err = await rejection('http://169.254.169.254/latest/meta-data/');
    expect(err.message).toBe(NOT_ALLOWED);
    expect(err.detail).toBe(
      '169.254.169.254 -> 169.254.169.254 is 169.254.0.0/16 (link-local (cloud metadata))',
    );
  });

  it('refuses a port that is not allowed for a public host, with the same message', async () => {
    const strict = createArtworkFetcher({ allowPrivateHosts: [] });
    const err = (await strict.fetch(`http://${fx.hostPort}/image/png`).catch((e: unknown) => e)) as AppError;
    expect([err.message, err.detail]).toEqual([NOT_ALLOWED, `port ${fx.port} is not allowed for 127.0.0.1`]);
    await strict.close();
  });

  it('treats file: and other schemes as a bad request, not a fetch', async () => {
    for (const url of ['file:///etc/passwd', 'gopher://127.0.0.1/', 'ftp://127.0.0.1/']) {
      const err = await rejection(url);
      expect([err.code, err.message]).toEqual([
        'bad_request',
        'imageUrl must be an absolute http or https URL',
      ]);
    }
    expect(canary.connections).toBe(0);
  });

  it('still fetches the allow-listed fixture (the refusals above are not a broken client)', async () => {
    const got = await artwork.fetch(`${fx.url}/image/png`);
    expect(got.bytes.equals(fx.images.png)).toBe(true);
  });
});
