import { beforeAll, describe, expect, it } from 'vitest';
import {
  type CheckResult,
  createTemplateChecker,
  formatResult,
  type TemplateChecker,
} from '../../../src/render/template/check.js';
import { CHECK_SAMPLES } from '../../../src/render/template/check-samples.js';
import type { Node, TemplateDefinition, TemplateFields } from '../../../src/render/template/types.js';
import { FAMILY } from '../../../src/render/text/fonts.js';
import { BUILTINS } from '../../helpers/builtins.js';

/** A one-text template: `layout` wraps the title in whatever faulty frame the test needs. */
function template(
  name: string,
  layout: (title: string) => Node,
  sizes: TemplateDefinition['sizes'] = ['og'],
): TemplateDefinition {
  return {
    name,
    description: 'test',
    fields: { title: { type: 'text', required: true, maxLength: 200 } },
    sizes,
    uses: { brand: false, artwork: false, theme: false },
    hash: name,
    source: `test:${name}`,
    build: (fields: TemplateFields, ctx) => ({
      node: {
        type: 'container',
        style: {
          width: ctx?.size.width ?? 1200,
          height: ctx?.size.height ?? 630,
          display: 'flex',
          flexDirection: 'column',
          padding: 40,
          backgroundColor: '#ffffff',
        },
        children: [layout(fields.title ?? '')],
      },
      images: [],
    }),
  };
}

const text = (t: string, style: Record<string, string | number>): Node => ({
  type: 'text',
  text: t,
  style: { fontFamily: FAMILY.sans, color: '#111111', ...style },
});

const problemsOf = (results: CheckResult[], sample: string) =>
  results.find((r) => r.sample === sample)!.problems.map((p) => p.kind);

let checker: TemplateChecker;
beforeAll(async () => {
  checker = await createTemplateChecker();
});

describe('templates check: the fit checker', () => {
  it('passes the built-ins at every size they declare, with every sample', async () => {
    const registry = BUILTINS;
    const results = await checker.checkAll(registry);
    const expected = registry.list().reduce((n, t) => n + t.sizes.length * CHECK_SAMPLES.length, 0);
    expect(results).toHaveLength(expected);
    expect(
      results.flatMap((r) => r.problems.map((p) => `${r.template} ${r.size} ${r.sample}: ${p.message}`)),
    ).toEqual([]);
    expect(new Set(results.map((r) => r.sample))).toEqual(
      new Set([
        'short',
        'long',
        ...['cjk', 'arabic', 'devanagari', 'thai', 'emoji'].flatMap((s) => [s, `${s} long`]),
      ]),
    );
  });

  it('finds a paragraph with more lines than its frame shows', async () => {
    // Two lines of 60 px show; a long title lays out many more and the third is cut through.
    const def = template('cut', (title) => ({
      type: 'container',
      style: { display: 'flex', flexDirection: 'column', overflow: 'hidden', maxHeight: 144 },
      children: [text(title, { fontSize: 60, lineHeight: 1.2, width: 1000 })],
    }));
    const results = await checker.check(def);
    expect(problemsOf(results, 'short')).toEqual([]);
    const long = results.find((r) => r.sample === 'long')!;
    expect(long.problems[0]).toMatchObject({ kind: 'lines-cut' });
    expect(long.problems[0]!.message).toMatch(
      /^draws \d+ lines where its frame shows 2 \(line 3 is cut through\)$/,
    );
    expect(formatResult(long)[0]).toMatch(
      /^FAIL cut og long: "How we cut our build time in half: a fie…" draws/,
    );
    expect(formatResult(results[0]!)).toEqual(['ok   cut og short']);
  });

  it('finds text that leaves its clip frame or the card', async () => {
    // No wrapping: a long line runs past a 400 px frame, and past the card without one.
    const framed = template('framed', (title) => ({
      type: 'container',
      style: { display: 'flex', overflow: 'hidden', width: 400, height: 80 },
      children: [text(title, { fontSize: 40, whiteSpace: 'nowrap' })],
    }));
    expect(problemsOf(await checker.check(framed), 'long')).toEqual(['leaves-frame']);
    const loose = template('loose', (title) => text(title, { fontSize: 40, whiteSpace: 'nowrap' }));
    const results = await checker.check(loose);
    expect(problemsOf(results, 'short')).toEqual([]);
    const long = results.find((r) => r.sample === 'long')!;
    expect(long.problems.map((p) => p.kind)).toEqual(['leaves-card']);
    expect(long.problems[0]!.message).toMatch(/^leaves the card \d+ px past the right$/);
  });

  it('checks every declared size: a layout fixed at 630 px tall fails at story height only if it leaves the card', async () => {
    // Text pushed 700 px down: on the card at story (1920) and square (1080), off it at og (630).
    const def = template(
      'low',
      (title) => ({
        type: 'container',
        style: { display: 'flex', marginTop: 700 },
        children: [text(title.slice(0, 10), { fontSize: 30 })],
      }),
      ['og', 'square', 'story'],
    );
    const results = await checker.check(def);
    const failing = new Set(results.filter((r) => r.problems.length > 0).map((r) => r.size));
    expect(failing).toEqual(new Set(['og']));
    expect(results.filter((r) => r.size === 'og').every((r) => r.problems[0]?.kind === 'leaves-card')).toBe(
      true,
    );
  });

  it('reports a template that throws instead of drawing', async () => {
    const def = template('broken', () => {
      throw new Error('fields.headline is undefined');
    });
    const [first] = await checker.check(def);
    expect(first!.problems).toEqual([
      { kind: 'build-failed', text: '', message: 'build failed: fields.headline is undefined' },
    ]);
    expect(formatResult(first!)).toEqual([
      'FAIL broken og short: build failed: fields.headline is undefined',
    ]);
  });
});
