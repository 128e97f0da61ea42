import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AS_USER_WRAPPER,
  chromiumEnv,
  chromiumProcess,
  chromiumRunner,
  lookupUser,
} from '../../../src/render/screenshot/engine/browser/browser.js';

// Who Chromium runs as and with what environment, decided before any browser starts.
let dir: string;
let passwd: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-runner-'));
  passwd = path.join(dir, 'passwd');
  await writeFile(
    passwd,
    'root:x:0:0:root:/root:/bin/bash\ncardshot-chromium:x:999:995:Cardshot:/var/lib/cardshot-chromium:/usr/sbin/nologin\nzero:x:0:0::/:/bin/sh\n',
  );
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('chromiumRunner', () => {
  it('a root service runs Chromium as the dedicated user, sandboxed', () => {
    const user = { name: 'cardshot-chromium', uid: 999, gid: 995, home: '/var/lib/cardshot-chromium' };
    expect(lookupUser('cardshot-chromium', passwd)).toEqual(user);
    expect(chromiumRunner('auto', 'cardshot-chromium', { uid: 0, passwd })).toEqual({
      asUser: user,
      sandbox: true,
    });
    expect(chromiumRunner('on', 'cardshot-chromium', { uid: 0, passwd })).toEqual({
      asUser: user,
      sandbox: true,
    });
    expect(chromiumRunner('off', 'cardshot-chromium', { uid: 0, passwd })).toEqual({
      asUser: user,
      sandbox: false,
    });
  });

  it('a root service without that user: auto warns and runs unsandboxed, on refuses', () => {
    const auto = chromiumRunner('auto', 'nobody-here', { uid: 0, passwd });
    expect(auto).toEqual({
      asUser: undefined,
      sandbox: false,
      warning:
        'Chromium runs as root WITHOUT its sandbox: the user nobody-here (CARDSHOT_CHROMIUM_USER) does not exist; run `npm run setup` as root to create it',
    });
    expect(chromiumRunner('on', 'nobody-here', { uid: 0, passwd }).error).toBe(
      'CARDSHOT_CHROMIUM_SANDBOX=on, but the service runs as root and the user nobody-here (CARDSHOT_CHROMIUM_USER) does not exist; run `npm run setup` as root to create it',
    );
    // A user with uid 0 is root under another name: not a way out of the sandbox.
    expect(chromiumRunner('auto', 'zero', { uid: 0, passwd }).asUser).toBeUndefined();
  });

  it('any other service user runs Chromium itself, sandboxed unless off', () => {
    expect(chromiumRunner('auto', 'cardshot-chromium', { uid: 1000, passwd })).toEqual({
      asUser: undefined,
      sandbox: true,
    });
    expect(chromiumRunner('off', 'cardshot-chromium', { uid: 1000, passwd })).toEqual({
      asUser: undefined,
      sandbox: false,
    });
  });
});

describe("Chromium's environment", () => {
  const service = {
    PATH: '/home/x/bin:/usr/bin',
    HOME: '/root',
    LANG: 'C.UTF-8',
    TZ: 'Europe/Paris',
    CARDSHOT_SECRET: 's',
    CARDSHOT_METRICS_TOKEN: 't',
    DATABASE_URL: 'postgres://u:p@h/db',
    REDIS_URL: 'redis://h',
    AWS_SECRET_ACCESS_KEY: 'k',
    TMPDIR: '/var/tmp',
  };
  it('holds only what Chromium needs', () => {
    expect(chromiumEnv(undefined, service)).toEqual({
      PATH: '/usr/local/bin:/usr/bin:/bin',
      HOME: '/root',
      LANG: 'C.UTF-8',
      TZ: 'Europe/Paris',
      TMPDIR: '/var/tmp',
    });
    const user = { name: 'c', uid: 999, gid: 995, home: '/var/lib/c' };
    expect(chromiumEnv(user, service)).toEqual({
      PATH: '/usr/local/bin:/usr/bin:/bin',
      HOME: '/var/lib/c',
      LANG: 'C.UTF-8',
      TZ: 'Europe/Paris',
    });
  });

  it('as another user, starts the wrapper with what it needs to exec Chromium', () => {
    const p = chromiumProcess('/usr/lib/chromium/chromium-headless-shell', true, {
      name: 'c',
      uid: 999,
      gid: 995,
      home: '/var/lib/c',
    });
    expect(p.executablePath).toBe(AS_USER_WRAPPER);
    expect(p.chromiumSandbox).toBe(true);
    expect(p.env).toMatchObject({
      CARDSHOT_CHROMIUM_EXEC: '/usr/lib/chromium/chromium-headless-shell',
      CARDSHOT_CHROMIUM_UID: '999',
      CARDSHOT_CHROMIUM_GID: '995',
      HOME: '/var/lib/c',
    });
  });
});
