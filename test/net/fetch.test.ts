import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSafeFetcher, FetchError, type SafeFetcherOptions } from '../../src/net/fetch.js';
import { createUrlGuard, type LookupFn } from '../../src/net/url-guard.js';
import {
  type CanaryServer,
  closedPort,
  type FixtureServer,
  startCanaryServer,
  startFixtureServer,
} from '../helpers/servers.js';

let fx: FixtureServer;
let canary: CanaryServer;

beforeAll(async () => {
  [fx, canary] = await Promise.all([startFixtureServer(), startCanaryServer()]);
});
afterAll(async () => {
  expect(canary.connections).toBe(0);
  await Promise.all([fx.close(), canary.close()]);
});

function fetcher(over: Partial<SafeFetcherOptions> & { allow?: string[]; lookup?: LookupFn } = {}) {
  const guard = createUrlGuard({
    allowPrivateHosts: over.allow ?? [fx.hostPort],
    allowedPorts: [80, 443, canary.port],
    ...(over.lookup ? { lookup: over.lookup } : {}),
  });
  return createSafeFetcher({ guard, timeoutMs: 2000, ...over });
}

async function failure(p: Promise<unknown>): Promise<FetchError> {
  const err = await p.then(
    () => new Error('expected a FetchError'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(FetchError);
  return err as FetchError;
}

describe('createSafeFetcher', () => {
  it('GETs an allow-listed fixture with only its own headers', async () => {
    const res = await fetcher({ userAgent: 'test-agent' }).fetch(`${fx.url}/image/png`, {
      accept: 'image/png',
    });
    expect(res).toEqual({
      bytes: fx.images.png,
      contentType: 'image/png',
      finalUrl: `${fx.url}/image/png`,
      status: 200,
    });
    const seen = fx.requests.at(-1)!.headers;
    expect(seen).toMatchObject({
      'user-agent': 'test-agent',
      accept: 'image/png',
      'accept-encoding': 'identity',
    });
    expect(seen.host).toBe(fx.hostPort);
    expect(seen.cookie).toBeUndefined();
    expect(seen.authorization).toBeUndefined();
  });

  it('follows up to maxRedirects, resolving relative Locations, and refuses one more', async () => {
    const f = fetcher({ maxRedirects: 3 });
    const ok = await f.fetch(`${fx.url}/chain/3`);
    expect([ok.finalUrl, ok.bytes.equals(fx.images.png)]).toEqual([`${fx.url}/chain/0`, true]);
    const err = await failure(f.fetch(`${fx.url}/chain/4`));
    expect(err.kind).toBe('too_many_redirects');
    expect((await failure(f.fetch(`${fx.url}/loop`))).kind).toBe('too_many_redirects');
  });

  it('does not carry cookies set by a redirect to the next hop', async () => {
    await fetcher().fetch(`${fx.url}/redirect?cookie=1&to=/image/png`);
    expect(fx.requests.at(-1)!.path).toBe('/image/png');
    expect(fx.requests.at(-1)!.headers.cookie).toBeUndefined();
  });

  it('re-checks every redirect: a hop to the canary is refused before connecting', async () => {
    for (const to of [
      canary.url,
      `http://localhost:${canary.port}/`,
      `http://[::ffff:127.0.0.1]:${canary.port}/`,
    ]) {
      const err = await failure(fetcher().fetch(`${fx.url}/redirect?to=${encodeURIComponent(to)}`));
      expect(err.kind).toBe('refused');
    }
    const toFile = await failure(
      fetcher().fetch(`${fx.url}/redirect?to=${encodeURIComponent('file:///etc/passwd')}`),
    );
    expect([toFile.kind, toFile.detail]).toEqual(['refused', 'scheme file: is not http or https']);
    expect(canary.connections).toBe(0);
  });

  it('maps non-2xx answers to http_status with the status', async () => {
    const err = await failure(fetcher().fetch(`${fx.url}/status/404`));
    expect([err.kind, err.status]).toEqual(['http_status', 404]);
    expect((await failure(fetcher().fetch(`${fx.url}/status/500`))).status).toBe(500);
  });

  it('refuses a declared Content-Length over the cap without reading the body', async () => {
    const err = await failure(fetcher({ maxBytes: 1024 * 1024 }).fetch(`${fx.url}/big`));
    expect([err.kind, err.detail]).toEqual([
      'too_large',
      `Content-Length ${11 * 1024 * 1024} > ${1024 * 1024}`,
    ]);
  });

  it('stops streaming as soon as an undeclared body passes the cap', async () => {
    const err = await failure(fetcher({ maxBytes: 1024 * 1024 }).fetch(`${fx.url}/big-chunked`));
    expect([err.kind, err.detail]).toEqual(['too_large', `body passed ${1024 * 1024} bytes while streaming`]);
  });

  it('reads large bodies, declared or not, byte for byte into one buffer', async () => {
    // Past 1 MiB a body goes into one buffer instead of chunks plus their concatenation.
    const f = fetcher({ maxBytes: 12 * 1024 * 1024 });
    for (const path of ['/big', '/big-chunked']) {
      const { bytes } = await f.fetch(`${fx.url}${path}`);
      expect(bytes.length).toBe(11 * 1024 * 1024);
      expect(bytes.equals(Buffer.alloc(11 * 1024 * 1024))).toBe(true);
    }
    const small = await f.fetch(`${fx.url}/image/png`);
    expect(small.bytes.equals(fx.images.png)).toBe(true);
  });

  it('tells a budget the declared length, asks it before keeping each chunk, and stops when it says no', async () => {
    const declared: number[] = [];
    let taken = 0;
    const ok = await fetcher().fetch(`${fx.url}/image/png`, {
      budget: {
        declare: (n) => declared.push(n),
        take: (n) => {
          taken += n;
          return true;
        },
      },
    });
    expect(declared).toEqual([fx.images.png.length]);
    expect(taken).toBe(ok.bytes.length);

    const budget = {
      take: (n: number) => {
        taken += n;
        return taken <= 2 * 1024 * 1024;
      },
    };
    taken = 0;
    const err = await failure(
      fetcher({ maxBytes: 12 * 1024 * 1024 }).fetch(`${fx.url}/big-chunked`, { budget }),
    );
    expect(err.kind).toBe('over_budget');
    expect(taken).toBeLessThan(3 * 1024 * 1024);
  });

  it('times out a slow body and slow headers within the total budget', async () => {
    for (const path of ['/slow', '/slow-headers']) {
      const start = performance.now();
      const err = await failure(fetcher({ timeoutMs: 300 }).fetch(`${fx.url}${path}`));
      expect([err.kind, err.detail]).toEqual(['timeout', 'no complete answer within 300 ms']);
      expect(performance.now() - start).toBeLessThan(800);
    }
  });

  it('times out a hanging DNS lookup too', async () => {
    const hang: LookupFn = () => new Promise(() => {});
    const err = await failure(fetcher({ timeoutMs: 200, lookup: hang }).fetch('http://slow-dns.example/'));
    expect(err.kind).toBe('timeout');
  });

  it("rethrows the caller's abort reason instead of a FetchError", async () => {
    const reason = new Error('client went away');
    const ac = new AbortController();
    setTimeout(() => ac.abort(reason), 100);
    await expect(fetcher().fetch(`${fx.url}/slow`, { signal: ac.signal })).rejects.toBe(reason);
  });

  // Regression (issue 26 §3): a name that did not resolve was 'network' ("could not be reached"),
  // one resolving to a private address 'refused': the difference mapped internal DNS.
  it('reports DNS failures as refusals, like a private address, and closed ports as network errors', async () => {
    const nx: LookupFn = async () => {
      throw Object.assign(new Error('nx'), { code: 'ENOTFOUND' });
    };
    const priv: LookupFn = async () => [{ address: '10.1.2.3', family: 4 }];
    const missing = await failure(fetcher({ lookup: nx }).fetch('http://nx.example/'));
    const internal = await failure(fetcher({ lookup: priv }).fetch('http://db.example/'));
    expect([missing.kind, missing.detail]).toEqual(['refused', 'cannot resolve nx.example: ENOTFOUND']);
    expect([internal.kind, internal.detail]).toEqual([
      'refused',
      'db.example -> 10.1.2.3 is 10.0.0.0/8 (private)',
    ]);
    const port = await closedPort();
    const err = await failure(fetcher({ allow: [`127.0.0.1:${port}`] }).fetch(`http://127.0.0.1:${port}/`));
    expect(err.kind).toBe('network');
    expect(err.detail).toContain('ECONNREFUSED');
  });
});

describe('DNS rebinding', () => {
  it('refuses a name when any answer is private, and never connects', async () => {
    const lookup: LookupFn = async () => [
      { address: '93.184.215.14', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ];
    const err = await failure(fetcher({ lookup }).fetch(`http://rebind.example:${canary.port}/`));
    expect([err.kind, err.detail]).toEqual([
      'refused',
      'rebind.example -> 127.0.0.1 is 127.0.0.0/8 (loopback)',
    ]);
    expect(canary.connections).toBe(0);
  });

  it('connects to the checked address only: one lookup per hop, none at connect time, Host intact', async () => {
    // The name is unknown to the system resolver, and our lookup answers once and then fails:
    // success proves the socket dialled the checked address instead of resolving again.
    const calls: string[] = [];
    const lookup: LookupFn = async (name) => {
      calls.push(name);
      if (calls.length > 2) throw Object.assign(new Error('rebound'), { code: 'ENOTFOUND' });
      return [{ address: '127.0.0.1', family: 4 }];
    };
    const host = `rebind.test:${fx.port}`;
    const f = fetcher({ allow: [host], lookup });
    const res = await f.fetch(`http://${host}/redirect?to=${encodeURIComponent(`http://${host}/image/png`)}`);
    expect(res.bytes.equals(fx.images.png)).toBe(true);
    expect(calls).toEqual(['rebind.test', 'rebind.test']);
    expect(fx.requests.at(-1)!.headers.host).toBe(host);
    expect(fx.requests.at(-2)!.headers.host).toBe(host);
    // The third lookup is the rebinding answer: the next fetch fails at the guard.
    expect((await failure(f.fetch(`http://${host}/image/png`))).kind).toBe('refused');
  });
});
