import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { chromiumExecutable } from '../../../src/render/screenshot/engine/browser/browser.js';

// Which browser the service runs: the configured one, except that a missing default (Debian's
// headless shell) gives way to Debian's full browser when that one is installed.
describe('chromiumExecutable', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cardshot-chromium-'));
  const present = (name: string) => {
    const file = path.join(dir, name);
    writeFileSync(file, '');
    return file;
  };
  const shell = present('chromium-headless-shell');
  const full = present('chromium');
  const absent = path.join(dir, 'absent');

  it('runs the default when it is installed', () => {
    expect(chromiumExecutable(shell, shell, full)).toEqual({ path: shell, fellBack: false });
  });

  it('falls back to the full browser when the default is missing', () => {
    expect(chromiumExecutable(absent, absent, full)).toEqual({ path: full, fellBack: true });
  });

  it('keeps a missing default when there is nothing to fall back to (screenshots answer 503)', () => {
    expect(chromiumExecutable(absent, absent, path.join(dir, 'also-absent'))).toEqual({
      path: absent,
      fellBack: false,
    });
  });

  it('never replaces a path the operator chose, even a missing one', () => {
    expect(chromiumExecutable(absent, shell, full)).toEqual({ path: absent, fellBack: false });
  });
});
