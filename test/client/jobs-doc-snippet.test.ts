import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { pngSize } from '../helpers/png.js';

// The TypeScript example of docs/jobs.md, run as written against a real server: only its
// import of `cardshot/client` is pointed at the source, and its CARDSHOT_URL and CARDSHOT_KEY
// at the test server. It writes its files where it runs, as a reader's would.

const root = path.resolve(import.meta.dirname, '../..');

describe('the docs/jobs.md client example', () => {
  let t: TestApp;
  let dir: string;

  beforeAll(async () => {
    t = await startTestApp({ jobsWorkers: 2 });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    // Inside the repository, so the test runner compiles its TypeScript like any source file.
    await mkdir(path.join(root, '.tmp'), { recursive: true });
    dir = await mkdtemp(path.join(root, '.tmp', 'jobs-doc-'));
  });
  afterAll(async () => {
    await t?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('submits, waits, lists failures, downloads the zip and an image, and catches a refusal', async () => {
    const doc = await readFile(path.join(root, 'docs/jobs.md'), 'utf8');
    const section = doc.split('## From TypeScript')[1]!;
    const code = /```ts\n([\s\S]*?)```/.exec(section)![1]!;
    expect(code).toContain("from 'cardshot/client'");
    const file = path.join(dir, 'example.ts');
    await writeFile(file, code.replace("'cardshot/client'", `'${path.join(root, 'src/client/index.ts')}'`));

    process.env.CARDSHOT_URL = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
    process.env.CARDSHOT_KEY = t.key.key;
    const logged: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((...args) => void logged.push(args.join(' ')));
    const cwd = process.cwd();
    try {
      process.chdir(dir);
      const example = (await import(file)) as { main(): Promise<void> };
      await example.main();
    } finally {
      process.chdir(cwd);
      log.mockRestore();
      delete process.env.CARDSHOT_URL;
      delete process.env.CARDSHOT_KEY;
    }
    expect(logged.at(-2)).toBe('completed 2 / 2');
    expect(logged.at(-1)).toBe('400 item 0: title must not be empty');
    expect(logged.filter((l) => l.startsWith('item '))).toEqual([]);
    expect((await readFile(path.join(dir, 'spring-cards.zip'))).subarray(0, 2).toString()).toBe('PK');
    expect(pngSize(await readFile(path.join(dir, 'first-card.png')))).toEqual({ width: 1200, height: 630 });
  }, 30_000);
});
