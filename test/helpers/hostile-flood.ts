/**
 * Issue 26 §1's target as one run, shared by the load test and bench/hostile-images.ts: 20
 * imageUrl scan bombs from a pro key plus 20 text-chunk and 20 scan-bomb logo uploads from a
 * free account, all at once, while a victim account draws cards and signs in to the dashboard.
 */
import { rssOf } from '../../src/render/image/proc-usage.js';
import type { TestApp } from './app.js';
import { csrfOf, dashClient, PASSWORD, signedIn } from './dashboard.js';
import { type HostileImageServer, scanBombJpeg, textChunkBombPng } from './hostile-images.js';

export interface FloodFigures {
  /** Hostile answers by status. */
  statuses: Record<number, number>;
  /** ms until the last hostile answer. */
  hostileMs: number;
  /** Victim card times (ms), idle and under the flood. */
  idle: number[];
  loaded: number[];
  /** Sign-in ms, idle (p50 of two) and under the flood. */
  idleSignInMs: number;
  floodSignInMs: number;
  /** Node RSS (this process plus the decode children) before and 0.5 s after. */
  rssBefore: number;
  rssAfter: number;
}

/** This process plus its image decode children. */
export const nodeRss = (t: TestApp) =>
  rssOf(process.pid) + t.modules.artwork.decoder.stats().pids.reduce((sum, pid) => sum + rssOf(pid), 0);

async function ms(f: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await f();
  return performance.now() - start;
}

async function signIn(t: TestApp, email: string): Promise<number> {
  const c = dashClient(t);
  const csrf = await c.csrf();
  return ms(async () => {
    const res = await c.post('/dashboard/sign-in', { _csrf: csrf, email, password: PASSWORD });
    if (res.statusCode !== 303) throw new Error(`sign-in failed: ${res.statusCode}`);
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/** Runs the flood against `t` (its own account is the victim); `fx` serves the hostile files. */
export async function hostileFlood(t: TestApp, fx: HostileImageServer, cards = 40): Promise<FloodFigures> {
  const accounts = t.modules.accounts.accounts;
  const stamp = Date.now();
  const free = await accounts.createAccount({
    name: 'Free',
    email: `free-${stamp}@hostile.test`,
    plan: 'free',
  });
  const pro = await accounts.createAccount({ name: 'Pro', email: `pro-${stamp}@hostile.test`, plan: 'pro' });
  const proKey = (await accounts.createKey({ accountId: pro.id, name: 'k', environment: 'test' })).key;
  const freeDash = await signedIn(t, free.email);
  await signedIn(t, t.account.email); // gives the victim its password
  let n = 0;
  const victimCard = () =>
    ms(async () => {
      const url = `/render/template?template=saas&title=Victim%20${stamp}%20${n++}`;
      const res = await t.inject({ method: 'GET', url });
      if (res.statusCode !== 200) throw new Error(`victim card: ${res.statusCode}`);
    });
  for (let i = 0; i < 10; i++) await victimCard();
  const idle: number[] = [];
  for (let i = 0; i < cards; i++) idle.push(await victimCard());
  const idleSignInMs = median([await signIn(t, t.account.email), await signIn(t, t.account.email)]);
  const rssBefore = nodeRss(t);

  const statuses: Record<number, number> = {};
  const jpegLogo = scanBombJpeg(4000, 4113);
  const pngLogo = textChunkBombPng(25);
  const render = () =>
    t.inject({
      method: 'POST',
      url: '/render/template',
      headers: { 'x-api-key': proKey },
      payload: { template: 'product', title: 'Chair', imageUrl: `${fx.url}/scan-bomb.jpg` },
    });
  // One CSRF token for all uploads, as a script would: the flood is the images, not page views.
  const token = csrfOf((await freeDash.get('/dashboard/theme')).body);
  const upload = (bytes: Buffer) =>
    t.app.inject({
      method: 'POST',
      url: '/dashboard/theme/logo',
      cookies: freeDash.cookies,
      headers: { 'content-type': 'application/octet-stream', 'x-csrf-token': token },
      payload: bytes,
    });
  const started = performance.now();
  const hostile = [
    ...Array.from({ length: 20 }, render),
    ...Array.from({ length: 20 }, () => upload(pngLogo)),
    ...Array.from({ length: 20 }, () => upload(jpegLogo)),
  ].map((p: Promise<{ statusCode: number }>) =>
    p.then((r) => {
      statuses[r.statusCode] = (statuses[r.statusCode] ?? 0) + 1;
      return performance.now() - started;
    }),
  );
  const flooded = signIn(t, t.account.email);
  const loaded: number[] = [];
  for (let i = 0; i < cards; i++) loaded.push(await victimCard());
  const hostileMs = Math.max(...(await Promise.all(hostile)));
  const floodSignInMs = await flooded;
  await new Promise((r) => setTimeout(r, 500));
  return { statuses, hostileMs, idle, loaded, idleSignInMs, floodSignInMs, rssBefore, rssAfter: nodeRss(t) };
}
