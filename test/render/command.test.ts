import { describe, expect, it } from 'vitest';
import { DEFAULT_PLANS, type Plan, type ScreenshotAllowance } from '../../src/auth/plans.js';
import { AppError } from '../../src/errors.js';
import { rateLimitKey, signedRateLimitKey } from '../../src/ratelimit/budgets.js';
import { createMemoryLimiter } from '../../src/ratelimit/memory.js';
import {
  type BudgetState,
  createRenderCommand,
  createUnmeteredRenderCommand,
  type RenderCaller,
} from '../../src/render/command.js';
import type { ScreenshotRequest } from '../../src/render/screenshot/request.js';
import type { ShotOwner, ShotResult } from '../../src/render/screenshot/types.js';
import type { Viewport } from '../../src/render/screenshot/viewports.js';
import type { TemplateRequest } from '../../src/render/template/request.js';
import type { CardResult, ResolveCardOptions } from '../../src/render/template/service.js';
import type { CardTheme } from '../../src/render/template/types.js';
import type { UsageKind } from '../../src/storage/store.js';

// The render command's policy with the services injected: no Chromium, no takumi. The limiter
// is the real per-process one; the services answer what each test queues and write down what
// they were asked.

const FREE = DEFAULT_PLANS.find((p) => p.name === 'free')!;
/** A small plan: two requests a minute on the account's budget, one on a key's signed-URL one. */
const TINY: Plan = {
  ...DEFAULT_PLANS.find((p) => p.name === 'pro')!,
  name: 'tiny',
  rateLimit: { requests: 2, windowSeconds: 60 },
  signedRateLimit: { requests: 1, windowSeconds: 60 },
};

const CARD: TemplateRequest = { template: 'saas', fields: { title: 'Hello' }, size: 'og' };
const SHOT: ScreenshotRequest = {
  url: 'https://example.com/',
  viewport: { name: 'og', width: 1200, height: 630, scale: 1, mobile: false } as Viewport,
  waitUntil: 'load',
};

type Answer = 'MISS' | 'HIT' | '304';

function cardResult(answer: Answer): CardResult {
  const base = { etag: 'e1', format: 'png' as const, timings: {}, themed: false };
  if (answer === '304') return { ...base, kind: 'not-modified' };
  return { ...base, kind: 'png', body: Buffer.from('card'), cache: answer };
}

function shotResult(answer: Answer): ShotResult {
  const base = { etag: 'e2', format: 'webp' as const, maxAge: 60, age: 0, targetStatus: 200, timings: {} };
  if (answer === '304') return { ...base, kind: 'not-modified', cache: 'HIT' };
  return { ...base, kind: 'png', body: Buffer.from('shot'), cache: answer };
}

function setup(answers: Answer[] = []) {
  const queue = [...answers];
  const calls: Array<{ what: 'card' | 'shot'; opts: ResolveCardOptions & { owner?: ShotOwner } }> = [];
  const usage: Array<[string, UsageKind]> = [];
  const limited: string[] = [];
  const limiter = createMemoryLimiter();
  const services = {
    templates: {
      resolve: async (_req: TemplateRequest, opts: ResolveCardOptions = {}) => {
        calls.push({ what: 'card' as const, opts });
        return cardResult(queue.shift() ?? 'MISS');
      },
    },
    screenshots: {
      resolve: async (_req: ScreenshotRequest, opts: { owner?: ShotOwner } = {}) => {
        calls.push({ what: 'shot' as const, opts });
        return shotResult(queue.shift() ?? 'MISS');
      },
    },
  };
  const command = createRenderCommand({
    ...services,
    limiter,
    usage: { record: (account, kind) => usage.push([account, kind]) },
    onRateLimited: (plan) => limited.push(plan),
  });
  return { command, services, calls, usage, limited, limiter };
}

const caller = (limit: 'key' | 'job' | 'none', plan = TINY): RenderCaller => ({
  accountId: 'acc_a',
  plan,
  limit,
});
const signed = (plan = TINY): RenderCaller => ({ accountId: 'acc_a', plan, limit: 'signed', keyId: 'key_k' });

/** The AppError a call rejects with. */
async function refusal(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

describe('the render command: plan', () => {
  it('refuses a template the plan lacks with 403 before spending budget or counting usage', async () => {
    const t = setup();
    const err = await refusal(t.command.card(CARD, caller('key', FREE)));
    expect([err.code, err.message]).toEqual(['forbidden', 'Template not available on your plan']);
    expect(t.calls).toEqual([]);
    expect(t.usage).toEqual([]);
    const left = await t.limiter.peek(rateLimitKey('acc_a'), 60, 60_000);
    expect(left.remaining).toBe(60);
  });

  it('refuses a viewport and an option the plan lacks with 403, for every limit kind', async () => {
    const t = setup();
    const desktop = { ...SHOT, viewport: { ...SHOT.viewport, name: 'desktop' } };
    for (const who of [caller('key', FREE), caller('job', FREE), caller('none', FREE), signed(FREE)]) {
      const err = await refusal(t.command.screenshot(desktop, who));
      expect([err.code, err.message]).toEqual([
        'forbidden',
        'Viewport "desktop" is not available on your plan; use og',
      ]);
    }
    const dark = { ...SHOT, options: { darkMode: true } } as ScreenshotRequest;
    const noDark: Plan = {
      ...FREE,
      screenshots: { ...(FREE.screenshots as ScreenshotAllowance), options: [] },
    };
    const err = await refusal(t.command.screenshot(dark, caller('key', noDark)));
    expect(err.message).toBe('Option "darkMode" not available on your plan');
    expect(t.calls).toEqual([]);
    expect(t.usage).toEqual([]);
  });
});

describe('the render command: rate limit', () => {
  it('key: the account budget; 429 past it, counted as rate_limited, with the headers told first', async () => {
    const t = setup();
    const told: BudgetState[] = [];
    const onBudget = (s: BudgetState) => told.push(s);
    await t.command.card(CARD, caller('key'), { onBudget });
    await t.command.screenshot(SHOT, caller('key'), { onBudget });
    const err = await refusal(t.command.card(CARD, caller('key'), { onBudget }));
    expect([err.code, err.message]).toEqual(['rate_limited', 'Rate limit exceeded']);
    expect(err.retryAfter).toBeGreaterThan(59);
    expect(err.retryAfter).toBeLessThanOrEqual(60);
    expect(told.map((s) => [s.policy, s.decision.allowed, s.decision.remaining])).toEqual([
      ['tiny', true, 1],
      ['tiny', true, 0],
      ['tiny', false, 0],
    ]);
    expect(t.calls.map((c) => c.what)).toEqual(['card', 'shot']);
    expect(t.usage).toEqual([
      ['acc_a', 'template'],
      ['acc_a', 'screenshot'],
      ['acc_a', 'rate_limited'],
    ]);
    expect(t.limited).toEqual(['tiny']);
  });

  it('job: items spend the same account budget as the keys, as they run', async () => {
    const t = setup();
    await t.command.card(CARD, caller('key'));
    await t.command.card(CARD, caller('job'));
    const err = await refusal(t.command.screenshot(SHOT, caller('job')));
    expect(err.code).toBe('rate_limited');
    // And the other way round: the job's items left nothing for a key.
    expect((await refusal(t.command.card(CARD, caller('key')))).code).toBe('rate_limited');
    // Only the key's 429 counts as rate_limited: the job's item is put off (its worker queues it
    // again), not refused, and counting each time would count one item many times.
    expect(t.usage.filter(([, k]) => k === 'rate_limited')).toHaveLength(1);
    expect(t.limited).toEqual(['tiny']);
    expect(t.calls).toHaveLength(2);
  });

  it("signed: the key's own budget, apart from the account's", async () => {
    const t = setup();
    const told: string[] = [];
    await t.command.card(CARD, signed(), { onBudget: (s) => told.push(s.policy) });
    const err = await refusal(t.command.card(CARD, signed(), { onBudget: (s) => told.push(s.policy) }));
    expect(err.code).toBe('rate_limited');
    expect(err.detail).toContain(signedRateLimitKey('key_k'));
    expect(told).toEqual(['tiny-signed', 'tiny-signed']);
    // The account's budget is untouched: both of its requests still go through.
    await t.command.card(CARD, caller('key'));
    await t.command.card(CARD, caller('key'));
    expect(t.calls).toHaveLength(3);
  });

  it('none: no budget spent, never 429, no usage, even with the account budget gone', async () => {
    const t = setup();
    await t.command.card(CARD, caller('key'));
    await t.command.card(CARD, caller('key'));
    const told: BudgetState[] = [];
    for (let i = 0; i < 5; i++) {
      await t.command.card(CARD, caller('none'), { onBudget: (s) => told.push(s) });
      await t.command.screenshot(SHOT, caller('none'));
    }
    expect(told).toEqual([]);
    expect(t.calls).toHaveLength(12);
    expect(t.usage).toEqual([
      ['acc_a', 'template'],
      ['acc_a', 'template'],
    ]);
  });
});

describe('the render command: service and usage', () => {
  it('counts a fresh render, a cache hit and a 304 as their own kinds, for each metered limit', async () => {
    for (const who of [caller('key'), caller('job'), signed()]) {
      const t = setup(['MISS', 'HIT', '304', 'MISS', 'HIT', '304']);
      const roomy = { ...who, plan: { ...TINY, rateLimit: { requests: 9, windowSeconds: 60 } } };
      const big = { ...roomy, plan: { ...roomy.plan, signedRateLimit: { requests: 9, windowSeconds: 60 } } };
      for (let i = 0; i < 3; i++) await t.command.card(CARD, big, { ifNoneMatch: '"e1"' });
      for (let i = 0; i < 3; i++) await t.command.screenshot(SHOT, big);
      expect(
        t.usage.map(([, k]) => k),
        who.limit,
      ).toEqual(['template', 'cache_hit', 'not_modified', 'screenshot', 'cache_hit', 'not_modified']);
    }
  });

  it('hands the service the account, the ETag, the signal and a draft theme; answers with the content type', async () => {
    const t = setup(['MISS', 'MISS']);
    const signal = new AbortController().signal;
    const draft = { version: 'v1' } as CardTheme;
    const card = await t.command.card(CARD, caller('job'), { signal, ifNoneMatch: '"x"', draftTheme: draft });
    const shot = await t.command.screenshot(SHOT, caller('job'), { signal });
    expect(t.calls[0]?.opts).toEqual({ ifNoneMatch: '"x"', signal, account: 'acc_a', draftTheme: draft });
    expect(t.calls[1]?.opts).toEqual({ signal, owner: { accountId: 'acc_a', plan: TINY } });
    expect([card.contentType, card.kind === 'png' && card.body.toString()]).toEqual(['image/png', 'card']);
    expect([shot.contentType, shot.cache]).toEqual(['image/webp', 'MISS']);
  });

  it('counts nothing for a render the service failed (the caller counts its errors)', async () => {
    const t = setup();
    const failing = createRenderCommand({
      ...t.services,
      templates: { resolve: () => Promise.reject(new AppError('unavailable', 'busy')) },
      limiter: t.limiter,
      usage: { record: (a, k) => t.usage.push([a, k]) },
    });
    expect((await refusal(failing.card(CARD, caller('key')))).code).toBe('unavailable');
    expect(t.usage).toEqual([]);
  });
});

describe('the unmetered command (cardshot render)', () => {
  it('renders for a none caller, and refuses a metered one as a wiring mistake (500), not a free render', async () => {
    const t = setup(['MISS']);
    const local = createUnmeteredRenderCommand(t.services);
    const card = await local.card(CARD, { accountId: 'cli', plan: TINY, limit: 'none' });
    expect(card.kind).toBe('png');
    // The types refuse this; a caller cast past them still gets no render.
    const err = await refusal(local.card(CARD, caller('key') as unknown as RenderCaller<'none'>));
    expect([err.code, err.message]).toEqual(['internal', 'Internal server error']);
    expect(t.calls).toHaveLength(1);
  });
});
