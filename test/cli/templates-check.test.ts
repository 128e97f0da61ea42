import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { UsageError } from '../../src/cli/admin.js';
import { checkTemplates } from '../../src/cli/templates/check.js';
import { scaffoldTemplate } from '../../src/cli/templates/new.js';
import { type OpenedTemplates, openTemplates } from '../../src/cli/templates/registry.js';
import { where } from '../../src/render/template/files/errors.js';
import { createStaticRegistry } from '../../src/render/template/registry.js';
import type { TemplateDefinition } from '../../src/render/template/types.js';
import { FAMILY } from '../../src/render/text/fonts.js';
import { BUILTINS, TEMPLATES } from '../helpers/builtins.js';

/** A template that draws its title raw, on one line: long text runs off the card. */
const raw: TemplateDefinition = {
  ...TEMPLATES.blog,
  name: 'raw',
  source: 'templates/raw.tsx',
  fields: { title: { type: 'text', required: true, maxLength: 80 } },
  uses: { brand: false, artwork: false, theme: false },
  build: (fields, ctx) => ({
    node: {
      type: 'container',
      style: {
        width: ctx?.size.width ?? 1200,
        height: ctx?.size.height ?? 630,
        display: 'flex',
        padding: 60,
      },
      children: [
        {
          type: 'text',
          text: fields.title ?? '',
          style: { fontFamily: FAMILY.sans, fontSize: 48, whiteSpace: 'nowrap' },
        },
      ],
    },
    images: [],
  }),
};

const printed = () => {
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  return () => spy.mock.calls.map((c) => String(c[0])).join('');
};
afterEach(() => vi.restoreAllMocks());

describe('templates check: report and exit status', () => {
  it('exits 1 and names each failing template, size and sample', async () => {
    const read = printed();
    const code = await checkTemplates(createStaticRegistry([TEMPLATES.blog, raw]), {});
    const lines = read().trimEnd().split('\n');
    expect(code).toBe(1);
    expect(lines).toContain('ok   blog og long');
    expect(lines).toContain('ok   raw og short');
    expect(lines.find((l) => l.startsWith('FAIL raw og long: '))).toMatch(
      /^FAIL raw og long: "How we cut our build time in half: a fie…" leaves the card \d+ px past the right$/,
    );
    const failed = lines.filter((l) => l.startsWith('FAIL')).length;
    expect(lines.at(-1)).toBe(`2 templates, 120 checks: ${failed} with problems`);
  });

  it('exits 0 for templates whose text fits; --json gives the results', async () => {
    const read = printed();
    expect(await checkTemplates(BUILTINS, { json: true, template: 'blog' })).toBe(0);
    const report = JSON.parse(read()) as { ok: boolean; results: unknown[] };
    expect(report.ok).toBe(true);
    expect(report.results).toHaveLength(60);
  });
});

describe('templates check: a broken template file fails the check', () => {
  let dir: string;
  let opened: OpenedTemplates;
  const TYPO = "  fields: { title: { type: 'text', required: true, maxLenght: 80 } },";
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-check-'));
    await scaffoldTemplate('event', dir);
    // A declaration typo on line 4, written by the test.
    await writeFile(
      path.join(dir, 'broken.tsx'),
      [
        "import { defineTemplate } from 'cardshot/template';",
        'export default defineTemplate({',
        "  description: 'Broken on purpose',",
        TYPO,
        '  render: () => <div />,',
        '});',
        '',
      ].join('\n'),
    );
    opened = await openTemplates(dir);
  });
  afterAll(async () => {
    await opened?.registry.close();
    await rm(dir, { recursive: true, force: true });
  });
  const message = () =>
    `${where(path.join(dir, 'broken.tsx'))}:4:${TYPO.indexOf('maxLenght') + 1}: field title: unknown key "maxLenght" (did you mean "maxLength"?); allowed: type, required, maxLength, default, description`;

  it('the loader reports the file with its line and column; the others still load', () => {
    expect(opened.broken).toEqual([
      { template: 'broken', source: path.join(dir, 'broken.tsx'), message: message() },
    ]);
    expect(opened.registry.get('event')?.source).toBe(path.join(dir, 'event.tsx'));
  });

  it('exit 1, the file:line:col on a FAIL line and in the summary; --json says ok: false', async () => {
    const read = printed();
    // The registry narrowed to the custom template, so the run stays short; the broken list is the loader's.
    const registry = createStaticRegistry([opened.registry.get('event')!]);
    expect(await checkTemplates(registry, {}, opened.broken)).toBe(1);
    const lines = read().trimEnd().split('\n');
    expect(lines[0]).toBe(`FAIL broken: ${message()}`);
    expect(lines).toContain('ok   event og short');
    expect(lines.at(-1)).toBe('1 template, 60 checks: all text fits; 1 template file broken');

    vi.restoreAllMocks();
    const json = printed();
    expect(await checkTemplates(registry, { json: true }, opened.broken)).toBe(1);
    const report = JSON.parse(json()) as { ok: boolean; results: unknown[]; broken: unknown[] };
    expect(report.ok).toBe(false);
    expect(report.results).toHaveLength(60);
    expect(report.broken).toEqual([
      { template: 'broken', source: path.join(dir, 'broken.tsx'), message: message() },
    ]);
  });

  it('--template NAME checks that one: the broken file alone, exit 1', async () => {
    const read = printed();
    expect(await checkTemplates(opened.registry, { template: 'broken' }, opened.broken)).toBe(1);
    expect(read()).toBe(`FAIL broken: ${message()}\n\n1 template file broken\n`);
  });

  it('--template with an unknown name is a usage error naming every template, broken ones marked', async () => {
    await expect(checkTemplates(opened.registry, { template: 'evnt' }, opened.broken)).rejects.toThrow(
      new UsageError('no template "evnt"; known: blog, product, saas, event, broken (broken)'),
    );
  });
});

describe('templates new refuses a name that would not load', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-new-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each(['blog', 'product', 'saas'])('a built-in name (%s): refused, no file written', async (name) => {
    await expect(scaffoldTemplate(name, dir)).rejects.toThrow(
      `"${name}" is a built-in template's name (blog, product, saas); choose another name`,
    );
    expect(await readdir(dir)).toEqual([]);
  });

  it('an existing template of that name, .tsx or .jsx: refused, the file untouched', async () => {
    await writeFile(path.join(dir, 'launch.jsx'), 'mine');
    await expect(scaffoldTemplate('launch', dir)).rejects.toThrow(
      `${path.join(dir, 'launch.jsx')} already exists; choose another name or remove it first`,
    );
    expect(await readdir(dir)).toEqual(['launch.jsx']);
  });
});
