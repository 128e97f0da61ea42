import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// Issue 26 §5: with glibc's defaults the server's RSS held ~300 MiB of freed memory in a card
// soak (16 arenas, image buffers kept in them once the dynamic mmap threshold had risen);
// MALLOC_ARENA_MAX=2 with a fixed 256 KiB mmap threshold gave it back (docs/reliability.md).
// glibc reads both when the process starts, so each way of starting the service sets them.
const root = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

describe('the allocator settings the soak measured', () => {
  it('npm start sets them, and an operator’s own values win', () => {
    const start = JSON.parse(read('package.json')).scripts.start as string;
    // `${NAME:-value}`: npm runs the script with sh, so a value in the environment is kept.
    expect(start).toMatch(
      /^node scripts\/setup\.mjs && MALLOC_ARENA_MAX=\$\{MALLOC_ARENA_MAX:-2\} MALLOC_MMAP_THRESHOLD_=\$\{MALLOC_MMAP_THRESHOLD_:-262144\} node dist\/src\/main\.js$/,
    );
  });

  it('the systemd unit sets them', () => {
    expect(read('deploy/cardshot.service')).toMatch(
      /^Environment=MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=262144$/m,
    );
  });

  it('the container image sets them', () => {
    expect(read('deploy/Dockerfile')).toMatch(
      /^ENV MALLOC_ARENA_MAX=2 \\\n\s+MALLOC_MMAP_THRESHOLD_=262144$/m,
    );
  });
});
