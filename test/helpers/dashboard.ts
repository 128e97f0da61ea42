import type { LightMyRequestResponse } from 'fastify';
import type { Store } from '../../src/storage/store.js';
import { utcDay } from '../../src/usage/recorder.js';
import type { TestApp } from './app.js';

export const PASSWORD = 'correct horse battery staple';

/** A browser-like client for `app.inject`: keeps cookies, reads CSRF tokens from pages. */
export interface DashClient {
  cookies: Record<string, string>;
  get(url: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  /** A urlencoded form POST (what a browser's <form> sends). */
  post(
    url: string,
    form: Record<string, string>,
    headers?: Record<string, string>,
  ): Promise<LightMyRequestResponse>;
  /** The `_csrf` value of the form on `url`. */
  csrf(url?: string): Promise<string>;
}

/** A client with no cookies yet. */
export function dashClient(t: TestApp): DashClient {
  const cookies: Record<string, string> = {};
  const keep = (res: LightMyRequestResponse) => {
    for (const c of res.cookies as Array<{ name: string; value: string; maxAge?: number }>) {
      if (c.value === '' || c.maxAge === 0) delete cookies[c.name];
      else cookies[c.name] = c.value;
    }
    return res;
  };
  const client: DashClient = {
    cookies,
    get: async (url, headers = {}) => keep(await t.app.inject({ method: 'GET', url, cookies, headers })),
    post: async (url, form, headers = {}) =>
      keep(
        await t.app.inject({
          method: 'POST',
          url,
          cookies,
          headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
          payload: new URLSearchParams(form).toString(),
        }),
      ),
    async csrf(url = '/dashboard/sign-in') {
      return csrfOf((await client.get(url)).body);
    },
  };
  return client;
}

/** The `_csrf` hidden field of a page. */
export function csrfOf(body: string): string {
  const m = /name="_csrf" value="([^"]+)"/.exec(body);
  if (!m) throw new Error(`no CSRF token in page: ${body.slice(0, 300)}`);
  return m[1]!;
}

/** The one-time form token of the page's create or rotate form. */
export function onceOf(body: string): string {
  const m = /name="once" value="([^"]+)"/.exec(body);
  if (!m) throw new Error('no form token in page');
  return m[1]!;
}

/** Gives the account the test password (once) and signs a new client in. */
export async function signedIn(t: TestApp, email = t.account.email): Promise<DashClient> {
  // Setting a password ends the account's other sessions, so it is set only when needed.
  if (!(await t.modules.accounts.credentials.verify(email, PASSWORD))) {
    await t.modules.accounts.credentials.setPassword(email, PASSWORD);
  }
  const c = dashClient(t);
  const res = await c.post('/dashboard/sign-in', { _csrf: await c.csrf(), email, password: PASSWORD });
  if (res.statusCode !== 303) throw new Error(`sign-in failed: ${res.statusCode} ${res.body.slice(0, 300)}`);
  return c;
}

/** Thirty days of plausible traffic ending today, written straight to the usage table. */
export async function seedUsage(store: Store, accountId: string, now: number): Promise<void> {
  const rows = [];
  for (let i = 29; i >= 0; i--) {
    const day = utcDay(now - i * 86_400_000);
    const weekday = new Date(now - i * 86_400_000).getUTCDay();
    const wave = 1 + 0.35 * Math.sin(i / 3) + (weekday === 0 || weekday === 6 ? -0.35 : 0.1);
    const growth = 1 + (29 - i) / 40;
    const base = Math.round(520 * wave * growth);
    rows.push(
      { accountId, day, kind: 'template' as const, count: base },
      { accountId, day, kind: 'screenshot' as const, count: Math.round(base * 0.28) },
      { accountId, day, kind: 'cache_hit' as const, count: Math.round(base * 0.9) },
      { accountId, day, kind: 'not_modified' as const, count: Math.round(base * 0.12) },
      { accountId, day, kind: 'error' as const, count: (i * 7) % 11 === 0 ? 38 : (i * 3) % 7 },
    );
  }
  await store.addUsage(rows);
}
