import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// Issue 26 §5: with glibc's defaults the server's RSS held ~300 MiB of freed memory in a card
// soak (16 arenas, image buffers kept in them once the dynamic mmap threshold had risen);
// MALLOC_ARENA_MAX=2 held ~150 MiB less at no measured cost in card throughput (a fixed 256 KiB
// mmap threshold gave back more but cost 16 % of it, so it is left to operators). glibc reads it
// when the process starts, so each way of starting the service sets it (docs/reliability.md).
const root = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

describe('the allocator settings the soak measured', () => {
  it('npm start sets them, and an operator’s own values win', () => {
    const start = JSON.parse(read('package.json')).scripts.start as string;
    // `${NAME:-value}`: npm runs the script with sh, so a value in the environment is kept; `exec`
    // makes the server npm's own child (a SIGTERM to npm reaches it: node-version.test.ts).
    expect(start).toMatch(
      /^scripts\/setup\.mjs && MALLOC_ARENA_MAX=\$\{MALLOC_ARENA_MAX:-2\} exec node dist\/src\/main\.js$/,
    );
  });

  it('the systemd unit sets them', () => {
    expect(read('deploy/cardshot.service')).toMatch(/^Environment=MALLOC_ARENA_MAX=2$/m);
  });

  it('the container image sets them', () => {
    expect(read('deploy/Dockerfile')).toMatch(/^ENV MALLOC_ARENA_MAX=2$/m);
  });
});
