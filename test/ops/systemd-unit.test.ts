// @module-tag process
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// The unit operators copy (deploy/cardshot.service) is the one docs/deploy.md shows, and systemd
// accepts every line of it.
const root = path.resolve(import.meta.dirname, '../..');
const unitPath = path.join(root, 'deploy/cardshot.service');

describe('the systemd unit', () => {
  it('docs/deploy.md shows the shipped file, word for word', () => {
    const doc = readFileSync(path.join(root, 'docs/deploy.md'), 'utf8');
    const section = doc.slice(doc.indexOf('### As a systemd service'));
    const shown = /```ini\n([\s\S]*?)```/.exec(section)?.[1];
    expect(shown).toBe(readFileSync(unitPath, 'utf8'));
  });

  it('runs the set-up as root, then the service as its own user, and is valid for systemd', () => {
    const unit = readFileSync(unitPath, 'utf8');
    expect(unit).toMatch(/^User=cardshot$/m);
    expect(unit).toMatch(
      /^ExecStartPre=\+\/usr\/bin\/env HOME=\/root \/usr\/bin\/node scripts\/setup\.mjs$/m,
    );
    // The Node the set-up chose and linked (the pinned Node 24 where the machine's is older).
    expect(unit).toMatch(/^ExecStart=\/usr\/bin\/env node_modules\/\.bin\/node dist\/src\/main\.js$/m);
    expect(unit).toMatch(/^Environment=NODE_ENV=production /m);
    if (!existsSync('/usr/bin/systemd-analyze')) return;
    // Unknown or misspelt keys are reported on stderr (systemd-analyze still exits 0 for them).
    const res = spawnSync('systemd-analyze', ['verify', unitPath], { encoding: 'utf8' });
    expect({ status: res.status, stderr: res.stderr }).toEqual({ status: 0, stderr: '' });
  });
});
