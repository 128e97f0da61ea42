import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkTemplates } from '../../src/cli/commands/templates.js';
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
