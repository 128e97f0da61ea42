import { createHash } from 'node:crypto';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinTemplatesDir, templateNamesOnDisk } from '../../../../src/render/template/files/area.js';
import { createFileRegistry } from '../../../../src/render/template/files/registry.js';
import { TEMPLATE_NAMES as NAMES_FROM_FILES } from '../../../../src/render/template/registry.js';
import { BUILTINS, TEMPLATES } from '../../../helpers/builtins.js';

const root = path.resolve(import.meta.dirname, '../../../..');
const log = pino({ level: 'silent' });
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-builtins-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** A copy of the built-ins' directory, to edit. */
async function copyOfBuiltins(name: string): Promise<string> {
  const d = path.join(dir, name);
  await cp(path.join(root, 'templates'), d, { recursive: true });
  return d;
}

const load = (builtin: string) =>
  createFileRegistry({ dirs: { builtin }, watch: false, skipBroken: false, log });

describe('the built-in templates are template files', () => {
  it('loads blog, product and saas from templates/ at the package root, nothing else', () => {
    expect(builtinTemplatesDir()).toBe(path.join(root, 'templates'));
    expect(BUILTINS.names()).toEqual(['blog', 'product', 'saas']);
    expect(NAMES_FROM_FILES).toEqual(['blog', 'product', 'saas']);
    expect(templateNamesOnDisk({ templatesDir: path.join(dir, 'none'), dataDir: dir })).toEqual([
      'blog',
      'product',
      'saas',
    ]);
    for (const t of BUILTINS.list()) expect(t.source).toBe(path.join(root, 'templates', `${t.name}.tsx`));
  });

  it('keeps the declaration: title ≤ 200 required, subtitle ≤ 300, all five sizes, brand, theme', () => {
    for (const t of BUILTINS.list()) {
      expect(Object.keys(t.fields)).toEqual(['title', 'subtitle']);
      expect(t.fields.title).toMatchObject({ type: 'text', required: true, maxLength: 200 });
      expect(t.fields.subtitle).toMatchObject({ type: 'text', maxLength: 300 });
      expect(t.fields.subtitle?.required).not.toBe(true);
      expect(t.sizes).toEqual(['og', 'twitter', 'square', 'linkedin', 'story']);
      expect(t.uses).toEqual({ brand: true, artwork: t.name !== 'blog', theme: true });
    }
    expect(TEMPLATES.product.artworkSize?.({ name: 'og', width: 1200, height: 630 })).toEqual({
      width: 390,
      height: 390,
      fit: 'contain',
    });
    expect(TEMPLATES.saas.artworkSize?.({ name: 'story', width: 1080, height: 1920 })).toEqual({
      width: 920,
      height: 575,
      fit: 'cover',
    });
  });

  it("hashes each built-in's file and partials: the ETag's hash is the files' content", async () => {
    const blogFiles = ['_blog-decor.ts', '_blog-layout.ts', 'blog.tsx'];
    const h = createHash('sha256');
    for (const f of blogFiles) {
      h.update(f)
        .update('\0')
        .update(await readFile(path.join(root, 'templates', f)))
        .update('\0');
    }
    expect(TEMPLATES.blog.hash).toBe(h.digest('hex').slice(0, 32));

    const d = await copyOfBuiltins('edited-partial');
    const layout = path.join(d, '_blog-layout.ts');
    await writeFile(layout, `// edited\n${await readFile(layout, 'utf8')}`);
    const edited = await load(d);
    expect(edited.get('blog')?.hash).not.toBe(TEMPLATES.blog.hash);
    expect(edited.get('product')?.hash).toBe(TEMPLATES.product.hash);
    expect(edited.get('saas')?.hash).toBe(TEMPLATES.saas.hash);
  });

  it('an edited built-in never draws the decor its previous version cached', async () => {
    const decorOf = (t: typeof TEMPLATES.blog) =>
      t.build({ title: 'Decor' }).images.find((i) => i.src.includes('blog/decor'))!;
    const before = decorOf(TEMPLATES.blog);
    expect(new TextDecoder().decode(before.data)).toContain('fill="#C2410C"');

    const d = await copyOfBuiltins('edited-decor');
    const decor = path.join(d, '_blog-decor.ts');
    await writeFile(
      decor,
      (await readFile(decor, 'utf8')).replace('fill-opacity="0.9"', 'fill-opacity="0.5"'),
    );
    const after = decorOf((await load(d)).get('blog')!);
    expect(new TextDecoder().decode(after.data)).toContain('fill-opacity="0.5"');
    expect(after.src).not.toBe(before.src);
  });
});
