import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinTemplatesDir } from '../../../../src/render/template/files/area.js';
import { loadTemplateFile } from '../../../../src/render/template/files/load.js';
import { createFileRegistry } from '../../../../src/render/template/files/registry.js';
import { createTemplateRenderer } from '../../../../src/render/template/renderer.js';
import { loadConfig } from '../../../../src/settings.js';
import { capturedLogger } from '../../../helpers/logs.js';

// The loader's refusals name the file, line and column; what loads draws like a built-in.
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-load-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const HEAD = `import { defineTemplate } from 'cardshot/template';\n`;
const RENDER = `  render: (f, { size }) => <div style={{ width: size.width, height: size.height }}>{f.title}</div>,\n`;
let n = 0;

/** Writes `text` as a template in a fresh directory and loads it; the error message, or 'loaded'. */
async function load(text: string, name = 'card'): Promise<string> {
  const d = path.join(dir, `case-${++n}`);
  await mkdir(d);
  const file = path.join(d, `${name}.tsx`);
  await writeFile(file, text);
  try {
    await loadTemplateFile(file, d);
    return 'loaded';
  } catch (err) {
    // Paths outside the working directory are shown whole: compare from the file name on.
    return (err as Error).message.replace(`${d}/`, '');
  }
}

const declared = (fields: string, extra = '') =>
  `${HEAD}export default defineTemplate({\n  description: 'x',\n  fields: {\n    ${fields}\n  },\n${extra}${RENDER}});\n`;

describe('a template file that cannot load says where', () => {
  it.each([
    [
      'a syntax error',
      `${HEAD}export default defineTemplate({\n  description: 'x',,\n});\n`,
      /^card\.tsx:3:20: Expected identifier but found ","$/,
    ],
    [
      'a misspelt key',
      declared("title: { type: 'text', maxLenght: 10 },"),
      /^card\.tsx:5:28: field title: unknown key "maxLenght" \(did you mean "maxLength"\?\)/,
    ],
    [
      'a text field without maxLength',
      declared("title: { type: 'text' },"),
      /^card\.tsx:5:5: field title: a text field needs maxLength/,
    ],
    [
      'a reserved field name',
      declared("size: { type: 'text', maxLength: 3 },"),
      /^card\.tsx:5:5: field name "size" is reserved/,
    ],
    [
      'a field name with a dash',
      declared("'sub-title': { type: 'text', maxLength: 3 },"),
      /^card\.tsx:5:5: field name "sub-title" must start with a lower-case letter/,
    ],
    [
      'a default outside the options',
      declared("tone: { type: 'choice', options: ['a', 'b'], default: 'c' },"),
      /^card\.tsx:5:50: field tone: default must be one of the options \(a, b\)$/,
    ],
    [
      'a number field with min over max',
      declared("n: { type: 'number', min: 5, max: 1 },"),
      /^card\.tsx:5:34: field n: max must not be less than min$/,
    ],
    [
      'an unknown size',
      declared("title: { type: 'text', maxLength: 9 },", "  sizes: ['og', 'banner'],\n"),
      /^card\.tsx:7:3: sizes: unknown size "banner" \(sizes are: og, twitter, square, linkedin, story\)$/,
    ],
    [
      'no defineTemplate',
      `export default { description: 'x' };\n`,
      /^card\.tsx: the file must `export default defineTemplate/,
    ],
    [
      'a package import',
      `import fs from 'node:fs';\nexport const used = fs;\n${declared("title: { type: 'text', maxLength: 9 },")}`,
      /^card\.tsx:1:16: cannot import "node:fs": a template imports only "cardshot\/template" and files beside it/,
    ],
    [
      'an import outside the directory',
      `import x from '../elsewhere.js';\nexport const used = x;\n${declared("title: { type: 'text', maxLength: 9 },")}`,
      /^card\.tsx:1:15: cannot import "..\/elsewhere.js": it is outside the templates directory$/,
    ],
    [
      'a render that throws',
      `${HEAD}export default defineTemplate({\n  description: 'x',\n  fields: {},\n  render() {\n    throw new Error('boom');\n  },\n});\n`,
      /^card\.tsx:6:11: render failed at size og with sample text: boom$/,
    ],
  ])('%s', async (_what, text, message) => {
    expect(await load(text)).toMatch(message);
  });

  it('a file name that is not a template name', async () => {
    expect(await load(declared("title: { type: 'text', maxLength: 9 },"), 'Event')).toMatch(
      /^Event\.tsx: a template's file name is its name: lower-case letters, digits and dashes/,
    );
  });

  it('a render that throws for one input only: the request-time error names the line', async () => {
    const d = path.join(dir, 'late-throw');
    await mkdir(d);
    const file = path.join(d, 'late.tsx');
    await writeFile(
      file,
      `${HEAD}export default defineTemplate({\n  description: 'x',\n  fields: { title: { type: 'text', maxLength: 9 } },\n  render(f) {\n    if (f.title === 'boom') throw new Error('no such layout');\n    return <div />;\n  },\n});\n`,
    );
    const def = await loadTemplateFile(file, d);
    expect(() => def.build({ title: 'boom' })).toThrow(/late\.tsx:6:35: no such layout$/);
  });

  it('loads what is right', async () => {
    expect(await load(declared("title: { type: 'text', maxLength: 9 },"))).toBe('loaded');
  });
});

describe('the registry from files', () => {
  const { log } = capturedLogger(loadConfig({ logLevel: 'warn' }, {}));

  it('refuses an operator template named like a built-in at start; skipped, the built-in stays', async () => {
    const op = path.join(dir, 'op-clash');
    await mkdir(op);
    await writeFile(path.join(op, 'blog.tsx'), declared("title: { type: 'text', maxLength: 9 },"));
    const dirs = { builtin: builtinTemplatesDir(), operator: op };
    await expect(createFileRegistry({ dirs, watch: false, skipBroken: false, log })).rejects.toThrow(
      /blog\.tsx: template "blog" is already defined by a built-in template; rename the file/,
    );
    const skipped: string[] = [];
    const registry = await createFileRegistry({
      dirs,
      watch: false,
      skipBroken: true,
      log,
      onSkipped: (file, message) => skipped.push(`${path.basename(file)} ${message}`),
    });
    expect(registry.get('blog')?.source).toBe(path.join(builtinTemplatesDir(), 'blog.tsx'));
    expect(skipped).toEqual([
      expect.stringMatching(
        /^blog\.tsx .*blog\.tsx: template "blog" is already defined by a built-in template/,
      ),
    ]);
    await registry.close();
  });

  it('hashes the template with its partials: editing a partial changes the hash', async () => {
    const d = path.join(dir, 'partials');
    await cp(path.resolve(import.meta.dirname, '../../../fixtures/templates/custom'), d, { recursive: true });
    const first = await loadTemplateFile(path.join(d, 'event.tsx'), d);
    await writeFile(
      path.join(d, '_badge.tsx'),
      `${'// edited\n'}${await (await import('node:fs/promises')).readFile(path.join(d, '_badge.tsx'), 'utf8')}`,
    );
    const second = await loadTemplateFile(path.join(d, 'event.tsx'), d);
    expect(second.hash).not.toBe(first.hash);
    expect(second.hash).toMatch(/^[0-9a-f]{32}$/);
  });

  it('a file with the same calls as the built-in blog draws the same pixels', async () => {
    const copyDir = path.resolve(import.meta.dirname, '../../../fixtures/templates/copy');
    const registry = await createFileRegistry({
      dirs: { builtin: builtinTemplatesDir(), operator: copyDir },
      watch: false,
      skipBroken: false,
      log,
    });
    expect(registry.names()).toEqual(['blog', 'product', 'saas', 'blogcopy']);
    const renderer = await createTemplateRenderer(registry);
    for (const fields of [
      {
        title: 'Designing for the long tail of scripts',
        subtitle: 'Notes from a year of cards',
        brand: 'Cardshot',
      },
      { title: 'مرحبا بالعالم 🚀' },
    ]) {
      const builtin = await renderer.render('blog', fields);
      const copy = await renderer.render('blogcopy', fields);
      expect(copy.png.equals(builtin.png)).toBe(true);
    }
    await registry.close();
  });
});
