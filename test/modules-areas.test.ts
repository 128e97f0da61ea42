import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppDeps, createApp } from '../src/app.js';
import { AREA_NAMES, resolveAreas } from '../src/areas.js';
import { createModules, type Modules } from '../src/modules.js';
import { createUnmeteredRenderCommand } from '../src/render/command.js';
import { loadConfig } from '../src/settings.js';
import { sharedEngine } from './helpers/engine.js';
import { capturedLogger } from './helpers/logs.js';
import { pngSize } from './helpers/png.js';

// createModules with the areas a process asks for: what starts, what does not, and what code
// that reaches for a module of an area not started gets.

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-areas-'));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

function configFor(dir: string) {
  return loadConfig({ dataDir: dir, nodeEnv: 'test', logLevel: 'info', cacheDiskBytes: 0 }, {});
}

describe('resolveAreas', () => {
  it('adds what each area needs, in start order', () => {
    expect(resolveAreas(['templates'])).toEqual(['template files', 'cache', 'artwork', 'templates']);
    expect(resolveAreas(['templates', 'themes'])).toEqual([
      'template files',
      'accounts',
      'cache',
      'artwork',
      'themes',
      'templates',
    ]);
    // A job worker: the render command and everything under it, no auth, sessions or themes.
    expect(resolveAreas(['render'])).toEqual([
      'template files',
      'accounts',
      'redis',
      'usage',
      'rate limiter',
      'cache',
      'artwork',
      'templates',
      'screenshots',
      'render',
    ]);
    expect(resolveAreas([...AREA_NAMES].reverse())).toEqual([...AREA_NAMES]);
  });

  it('refuses an unknown area by name, listing the known ones', () => {
    expect(() => resolveAreas(['browser' as never])).toThrow(
      `unknown area "browser"; the areas are: ${AREA_NAMES.join(', ')}`,
    );
  });
});

describe('createModules with a subset of areas', () => {
  let modules: Modules<'templates'>;
  const dir = () => path.join(dataDir, 'cards-only');

  beforeAll(async () => {
    const { log } = capturedLogger();
    modules = await createModules(configFor(dir()), log, {
      areas: ['templates'],
      templateEngine: await sharedEngine(),
    });
  });
  afterAll(async () => modules?.close());

  it('starts only the templates and what they need: no database, secret, Redis or browser', async () => {
    expect(modules.areas).toEqual(['template files', 'cache', 'artwork', 'templates']);
    expect(existsSync(path.join(dir(), 'cardshot.sqlite'))).toBe(false);
    expect(existsSync(path.join(dir(), 'secret'))).toBe(false);
    expect(modules.scale).toBeNull();
    const ready = await modules.health.readiness();
    expect(Object.keys(ready.checks).sort()).toEqual(['renderer']);
  });

  it('draws a card through the unmetered render command', async () => {
    const command = createUnmeteredRenderCommand(modules);
    const pro = { name: 'op', templates: '*', screenshots: false } as const;
    const card = await command.card(
      { template: 'blog', fields: { title: 'Only what it needs' }, size: 'square' },
      {
        accountId: 'cli',
        plan: {
          ...pro,
          rateLimit: { requests: 1, windowSeconds: 1 },
          signedRateLimit: { requests: 1, windowSeconds: 1 },
          jobs: { maxItems: 1, concurrency: 1, maxWaiting: 1, retentionDays: 1 },
        },
        limit: 'none',
      },
    );
    expect(card.kind).toBe('png');
    expect(card.contentType).toBe('image/png');
    if (card.kind === 'png') expect(pngSize(card.body)).toEqual({ width: 1080, height: 1080 });
  });

  it('names the area when code reaches for a module it did not start; spreading skips them', () => {
    const loose = modules as unknown as Record<string, unknown>;
    expect(() => loose.screenshots).toThrow(
      'modules.screenshots is not available: its area was not started in this process (started: template files, cache, artwork, templates)',
    );
    expect(() => loose.accounts).toThrow(/^modules\.accounts is not available/);
    expect(() => loose.render).toThrow(/^modules\.render is not available/);
    const spread = { ...modules };
    expect(Object.keys(spread).sort()).toEqual(
      [
        'areas',
        'artwork',
        'cache',
        'close',
        'health',
        'metrics',
        'registry',
        'renderQueue',
        'renderer',
        'scale',
        'templates',
      ].sort(),
    );
    // @ts-expect-error the type of a templates-only process has no screenshot service
    expect(() => modules.screenshots).toThrow();
  });

  it('an HTTP app built from them stops at its creation, naming the module and its area', () => {
    const { log } = capturedLogger();
    const deps = { config: configFor(dir()), log, ...modules } as unknown as AppDeps;
    expect(() => createApp(deps)).toThrow(
      'the HTTP app needs modules.render (the render area), which this process did not start',
    );
  });
});

describe('the account manager in an accounts-only process', () => {
  let modules: Modules<'accounts'>;
  beforeAll(async () => {
    const { log } = capturedLogger();
    modules = await createModules(configFor(path.join(dataDir, 'accounts-only')), log, {
      areas: ['accounts'],
    });
  });
  afterAll(async () => modules?.close());

  it('findOwnKey: the key of its own account only; another account’s, an unknown or a malformed id alike undefined', async () => {
    const { accounts } = modules.accounts;
    expect(modules.areas).toEqual(['template files', 'accounts']);
    const alice = await accounts.createAccount({ name: 'Alice', email: 'alice@own.test', plan: 'pro' });
    const mallory = await accounts.createAccount({
      name: 'Mallory',
      email: 'mallory@own.test',
      plan: 'free',
    });
    const key = await accounts.createKey({ accountId: alice.id, name: 'Site', environment: 'production' });
    expect(await accounts.findOwnKey(alice.id, key.record.id)).toEqual(key.record);
    expect(await accounts.findOwnKey(mallory.id, key.record.id)).toBeUndefined();
    expect(await accounts.findOwnKey(alice.id, 'key_0000000000000000000000')).toBeUndefined();
    expect(await accounts.findOwnKey(alice.id, "key_' OR 1=1 --")).toBeUndefined();
    expect(await accounts.findOwnKey(alice.id, 'acc_x')).toBeUndefined();
    // Revoked keys are still found (the keys page shows them), marked revoked.
    await accounts.revokeKey(key.record.id);
    expect((await accounts.findOwnKey(alice.id, key.record.id))?.revokedAt).not.toBeNull();
  });
});
