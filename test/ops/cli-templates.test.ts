// @module-tag process
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runNode } from '../helpers/node-process.js';
import { pngSize } from '../helpers/png.js';

// The built CLI, as `npx cardshot` runs it (npm test builds first).
const root = path.resolve(import.meta.dirname, '../..');
const cli = path.join(root, 'dist/src/cli/index.js');
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-templates-cli-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const run = (...args: string[]) =>
  runNode([cli, ...args], { cwd: dir, env: cleanEnv({ CARDSHOT_DATA_DIR: path.join(dir, 'data') }) });

describe('npx cardshot templates', () => {
  it('check: renders every template at every size with every sample, one line each, exit 0', async () => {
    const r = await run('templates', 'check');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toContain('ok   blog og short');
    expect(lines).toContain('ok   saas og thai long');
    expect(lines).toContain('ok   product og emoji');
    // 3 templates × 5 sizes × 12 samples.
    expect(lines.at(-1)).toBe('3 templates, 180 checks: all text fits');
    expect(lines.filter((l) => l.startsWith('FAIL'))).toEqual([]);

    const json = await run('templates', 'check', '--json', '--template', 'saas');
    expect(json.code).toBe(0);
    const parsed = JSON.parse(json.stdout) as {
      ok: boolean;
      results: Array<{ template: string; size: string; sample: string; problems: unknown[] }>;
    };
    expect(parsed.ok).toBe(true);
    expect(parsed.results).toHaveLength(60);
    expect(parsed.results[0]).toEqual({
      template: 'saas',
      source: path.join(root, 'templates', 'saas.tsx'),
      size: 'og',
      sample: 'short',
      problems: [],
    });
  }, 60_000);

  it('check refuses an unknown template with the known ones (exit 2)', async () => {
    const r = await run('templates', 'check', '--template', 'evnt');
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(
      'cardshot templates: no template "evnt"; known: blog, product, saas',
    );
  });

  it('list: each template with its sizes, fields and what it draws', async () => {
    const r = await run('templates', 'list');
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toMatch(/^NAME +SIZES +FIELDS +DRAWS +SOURCE$/);
    expect(r.stdout).toMatch(
      /^blog +og,twitter,square,linkedin,story +title:text subtitle\?:text +brand, theme +\S+$/m,
    );
    expect(r.stdout).toMatch(
      /^product +og,twitter,square,linkedin,story +title:text subtitle\?:text +brand, imageUrl, theme +\S+$/m,
    );
  });

  it('new: scaffolds NAME.tsx from the starter, refuses a bad name and never overwrites', async () => {
    const target = path.join(dir, 'mine');
    const r = await run('templates', 'new', 'launch-2', '--dir', target);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const file = path.join(target, 'launch-2.tsx');
    expect(r.stdout).toBe(
      `${file}: created from the starter. Edit it, then run \`npx cardshot templates check\`.\n`,
    );
    const text = await readFile(file, 'utf8');
    const starter = await readFile(path.join(root, 'src/render/template/starter/starter.tsx'), 'utf8');
    expect(text).toBe(starter.replaceAll('__NAME__', 'launch-2'));
    expect(text).toMatch(/^import \{[^}]*\bdefineTemplate,[^}]*\bText,[^}]*\} from 'cardshot\/template';$/m);
    expect(text).toContain('theme: true,');
    expect(text).toContain("sizes: ['og', 'twitter', 'square', 'linkedin', 'story'],");
    expect(text).toContain("type: 'color'");
    expect(text).not.toContain('__NAME__');

    await writeFile(file, 'my edits');
    const again = await run('templates', 'new', 'launch-2', '--dir', target);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(
      `cardshot templates: ${file} already exists; choose another name or remove it first\n`,
    );
    expect(await readFile(file, 'utf8')).toBe('my edits');

    for (const name of ['Launch', '2fast', '../escape', 'a'.repeat(41)]) {
      const bad = await run('templates', 'new', name, '--dir', target);
      expect(bad.code, name).toBe(2);
      expect(bad.stderr.split('\n')[0]).toContain(
        'is not a template name: use lower-case letters, digits and dashes',
      );
    }
  });

  it('new refuses a built-in name; a broken file fails check and --template checks it alone', async () => {
    const target = path.join(dir, 'broken-dir');
    const blog = await run('templates', 'new', 'blog', '--dir', target);
    expect(blog.code).toBe(1);
    expect(blog.stderr).toBe(
      `cardshot templates: "blog" is a built-in template's name (blog, product, saas); choose another name\n`,
    );
    await expect(readFile(path.join(target, 'blog.tsx'))).rejects.toThrow(/ENOENT/);

    expect((await run('templates', 'new', 'event', '--dir', target)).code).toBe(0);
    const file = path.join(target, 'event.tsx');
    await writeFile(file, (await readFile(file, 'utf8')).replace('render: (fields', 'render: (fields,,'));
    const one = await run('templates', 'check', '--dir', target, '--template', 'event');
    expect(one.code).toBe(1);
    expect(one.stderr).toBe('');
    expect(one.stdout).toMatch(
      /^FAIL event: broken-dir\/event\.tsx:\d+:\d+: .+\n\n1 template file broken\n$/,
    );
    const json = await run('templates', 'check', '--dir', target, '--json', '--template', 'event');
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      ok: false,
      results: [],
      broken: [{ template: 'event', source: file }],
    });
    const list = await run('templates', 'list', '--dir', target);
    expect(list.code).toBe(0);
    expect(list.stderr).toMatch(
      /^cardshot templates: left out, does not load: broken-dir\/event\.tsx:\d+:\d+: /,
    );
  });

  it('new: without --dir, writes into templates/ in the data dir', async () => {
    // CARDSHOT_DATA_DIR names a directory that must exist (a server made it); a missing one is
    // refused rather than made (data-dir.test.ts).
    await mkdir(path.join(dir, 'data'), { recursive: true });
    const r = await run('templates', 'new', 'event');
    expect(r.code).toBe(0);
    expect(r.stdout.startsWith(`${path.join(dir, 'data', 'templates', 'event.tsx')}: created`)).toBe(true);
    // The commands after this one read the data dir's templates: leave it as it was.
    await rm(path.join(dir, 'data', 'templates'), { recursive: true });
  });

  it('types: the augmentation for cardshot/client (no custom templates here), to a file or stdout', async () => {
    const r = await run('templates', 'types');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("declare module 'cardshot/client' {\n  interface CardshotTemplates {\n  }\n}");
    const builtins = await run('templates', 'types', '--builtins', '--out', 'gen.ts');
    expect(builtins.code).toBe(0);
    expect(builtins.stdout).toBe('gen.ts: types for 3 templates\n');
    expect(await readFile(path.join(dir, 'gen.ts'), 'utf8')).toBe(
      await readFile(path.join(root, 'src/client/templates.generated.ts'), 'utf8'),
    );
  });
});

describe('npx cardshot render follows the declaration', () => {
  it("--help --template lists that template's fields and sizes", async () => {
    const r = await run('render', '--help', '--template', 'product');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^product: Product card/);
    expect(r.stdout).toMatch(
      /^ {2}--title +text, required, at most 200 characters {2}Main headline drawn on the image\.$/m,
    );
    expect(r.stdout).toMatch(/^ {2}--image-url +http\(s\) URL, optional/m);
    expect(r.stdout).toMatch(
      /^ {2}--size +one of og \(1200×630\), twitter \(1200×675\), square \(1080×1080\), linkedin \(1200×627\), story \(1080×1920\); default og$/m,
    );
    expect(r.stdout).toMatch(/^ {2}--no-theme +the template's own look, not the account's theme$/m);
    const unknown = await run('render', '--help', '--template', 'evnt');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe('cardshot render: no template "evnt"; known: blog, product, saas\n');
  });

  it('renders with the declared fields as options, and refuses one the template lacks', async () => {
    const r = await run('render', 'blog', '--title', 'Declared', '--subtitle', 'fields', '-o', 'd.png');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^d\.png: \d+ bytes, 1200×630, \d+ ms\n$/);
    expect(pngSize(await readFile(path.join(dir, 'd.png')))).toEqual({ width: 1200, height: 630 });
    const bad = await run('render', 'blog', '--headline', 'x');
    expect(bad.code).toBe(2);
    expect(bad.stderr.split('\n')[0]).toBe(
      'cardshot render: unknown option --headline; blog takes: --title, --subtitle, --brand, --size, --account, --no-theme',
    );
  }, 60_000);
});
