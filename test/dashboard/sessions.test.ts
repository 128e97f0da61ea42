import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveSecrets } from '../../src/auth/secret.js';
import { createSessions, type Sessions } from '../../src/dashboard/sessions.js';
import { openStore } from '../../src/storage/open.js';
import type { Store } from '../../src/storage/store.js';
import { type FakeClock, fakeClock } from '../helpers/clock.js';

// The one-time tokens of the forms that show a key (create, rotate), on a real SQLite store.
let dir: string;
let store: Store;
let clock: FakeClock;
let sessions: Sessions;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-sessions-'));
  store = await openStore({ databaseUrl: '', dataDir: dir, databaseSchema: 'public' });
  clock = fakeClock();
  sessions = createSessions({
    store,
    secrets: deriveSecrets('sessions-test-secret-0123456789abcdefghij'),
    idleMs: 30 * 60_000,
    maxMs: 2 * 3_600_000,
    log: pino({ level: 'silent' }),
    clock,
  });
});
afterAll(async () => {
  await sessions.close();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

describe('one-time form tokens', () => {
  it('are taken once, for the session they were issued to', async () => {
    const token = sessions.formToken('session-a');
    expect(await sessions.useFormToken('session-b', token)).toBe(false);
    expect(await sessions.useFormToken('session-a', token)).toBe(true);
    expect(await sessions.useFormToken('session-a', token)).toBe(false);
  });

  it('are refused when made up, altered, or more than a day old', async () => {
    expect(await sessions.useFormToken('session-a', '')).toBe(false);
    expect(await sessions.useFormToken('session-a', 'made-up')).toBe(false);
    const [nonce, issued, sig] = sessions.formToken('session-a').split('.');
    const later = (Number.parseInt(issued!, 36) + 3_600_000).toString(36);
    expect(await sessions.useFormToken('session-a', `${nonce}.${later}.${sig}`)).toBe(false);
    const old = sessions.formToken('session-a');
    const fresh = sessions.formToken('session-a');
    clock.advance(86_400_000 - 1000);
    expect(await sessions.useFormToken('session-a', fresh)).toBe(true);
    clock.advance(2000);
    expect(await sessions.useFormToken('session-a', old)).toBe(false);
  });
});
