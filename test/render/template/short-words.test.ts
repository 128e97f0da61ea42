import type { Renderer } from '@takumi-rs/core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CardSize, Node, TemplateFields } from '../../../src/render/template/types.js';
import { FALLBACK_FAMILIES } from '../../../src/render/text/fonts.js';
import { glueShortWords } from '../../../src/render/text/text-glue.js';
import { type BuiltinName, TEMPLATES } from '../../helpers/builtins.js';
import { sharedEngine } from '../../helpers/engine.js';
import { textOf } from './nodes.js';
import { decode } from './pixels.js';
import { ALL_SIZES, at } from './sizes.js';

/**
 * Short tokens stay with their neighbour and subtitles end with more than one word, judged on
 * takumi's layout of the drawn card (without its clamp), line by line.
 */

let engine: Renderer;
beforeAll(async () => {
  engine = await sharedEngine();
});

const plain = (s: string) => s.replaceAll('\u200b', '').replaceAll('\u00a0', ' ');

/** The text node of a card's paragraph whose text starts like `start`. */
function paragraphOf(template: BuiltinName, fields: TemplateFields, start: string, size: CardSize): Node {
  let found: Node | undefined;
  const walk = (n: Node) => {
    const style = n.style as Record<string, unknown> | undefined;
    if (!found && n.type === 'text' && style?.fontSize && plain(textOf(n)).startsWith(start)) found = n;
    if ('children' in n && Array.isArray(n.children)) for (const c of n.children as Node[]) walk(c);
  };
  walk(TEMPLATES[template].build(fields, { size }).node);
  return found!;
}

/**
 * The lines of a card's paragraph as takumi lays it out (without its clamp). `measure` breaks
 * lines greedily even under `textWrap: 'balance'`, which only drawing applies: see `inkWidths`.
 */
async function linesOf(
  template: BuiltinName,
  fields: TemplateFields,
  start: string,
  size: CardSize,
): Promise<string[]> {
  const found = paragraphOf(template, fields, start, size);
  const { lineClamp, textOverflow, ...style } = found.style as Record<string, unknown>;
  const measured = await engine.measure({ ...found, style } as Node, {
    fontFamilies: [...FALLBACK_FAMILIES],
  });
  const lineHeight = Number(style.fontSize) * Number(style.lineHeight);
  const lines: string[] = [];
  for (const run of measured.runs) {
    const i = Math.floor((run.y + run.height / 2) / lineHeight);
    lines[i] = (lines[i] ?? '') + run.text;
  }
  return lines.map((l) => plain(l).trim());
}

/** The inked width of each line of a card's paragraph as takumi draws it, black on white. */
async function inkWidths(
  template: BuiltinName,
  fields: TemplateFields,
  start: string,
  size: CardSize,
): Promise<number[]> {
  const found = paragraphOf(template, fields, start, size);
  const style: Record<string, unknown> = { ...(found.style as Record<string, unknown>), color: '#000' };
  const width = Number(style.width) + 40;
  const height = 400;
  const png = await engine.render(
    {
      type: 'container',
      style: { width, height, padding: 20, backgroundColor: '#fff', display: 'flex' },
      children: [{ ...found, style } as Node],
    },
    { width, height, format: 'png', fontFamilies: [...FALLBACK_FAMILIES] },
  );
  const { data } = await decode(png);
  const band = Number(style.fontSize) * Number(style.lineHeight);
  const widths: number[] = [];
  for (let line = 0; 20 + (line + 1) * band <= height; line++) {
    let left = width;
    let right = -1;
    for (let y = Math.ceil(20 + line * band); y < 20 + (line + 1) * band; y++)
      for (let x = 0; x < width; x++)
        if (data[(y * width + x) * 4]! < 128) {
          left = Math.min(left, x);
          right = Math.max(right, x);
        }
    if (right < 0) break;
    widths.push(right - left + 1);
  }
  return widths;
}

const TEMPLATE_LIST = ['product', 'saas', 'blog'] as const;

describe('a subtitle does not end with a lone short word ("size", "ティス", "מחדש")', () => {
  // Cards the design audit saw end with one short word alone on the last line.
  const cases: [title: string, subtitle: string, brand: string][] = [
    [
      'How we cut our cloud bill in half',
      'A practical guide for engineering teams who want to reduce infrastructure costs without sacrificing reliability or developer experience along the way',
      'Acme',
    ],
    [
      'クラウドのコストを半年で半分にした方法：実践ガイド',
      'エンジニアリングチームのための現場の知見とベストプラクティス',
      '株式会社テック',
    ],
    [
      'לקחים מהשנה הראשונה שלנו בתור סטארטאפ בתחום הבריאות הדיגיטלית',
      'מה עבד, מה לא עבד ומה היינו עושים אחרת אם היינו מתחילים היום מחדש',
      'Acme',
    ],
    [
      'دليل شامل لبناء تطبيقات ويب سريعة وآمنة في عام ٢٠٢٥',
      'خطوة بخطوة من الفكرة إلى الإطلاق مع أفضل الممارسات',
      'تقنية عربية',
    ],
  ];
  for (const template of TEMPLATE_LIST) {
    for (const size of ALL_SIZES)
      it(`${template}${at(size)}: the last line is at least a third as long as the longest`, async () => {
        for (const [title, subtitle, brand] of cases) {
          const widths = await inkWidths(template, { title, subtitle, brand }, subtitle.slice(0, 6), size);
          expect(widths.length, `${template}: ${subtitle}`).toBeGreaterThan(0);
          expect(widths.at(-1)!, `${template}: ${subtitle} (${widths.join(', ')} px)`).toBeGreaterThanOrEqual(
            Math.max(...widths) / 3,
          );
        }
      });
  }
});

/**
 * Whether a line break between `line` and `next` separates a short token from its partner: a
 * one- or two-letter word from the word after ("в / облако"), a number from a short unit
 * ("50% / off"), a name from its version ("React / 19", "Series / B").
 */
function separates(line: string, next: string): boolean {
  const last = line.split(' ').at(-1)!;
  const first = next.split(' ')[0]!;
  if (/^\p{L}{1,2}$/u.test(last) && !/^[B-HJ-Z]$/u.test(last)) return true;
  if (/^\d/u.test(last) && /^\p{L}{1,3}\b/u.test(first)) return true;
  return /^(?:\d|[B-HJ-Z]$)/u.test(first);
}

describe('short tokens stay with their neighbour (Latin, Cyrillic, Greek)', () => {
  const titles = [
    'Get 50% off every plan this week only',
    'Save 50% off annual plans for teams',
    'Get 30% off our Pro plan with yearly billing today',
    'We just raised our Series B round and are hiring',
    'Announcing our Series B and what comes next for us',
    'What is new in React 19 and why it matters',
    'Upgrading a large codebase to React 19 step by step',
    'Как мы перенесли всё хранилище в облако и сэкономили',
    'Почему мы выбрали Postgres и переехали с MySQL',
    'Πώς μειώσαμε το κόστος του cloud στο μισό μέσα σε έξι μήνες',
  ];
  for (const template of TEMPLATE_LIST) {
    for (const size of ALL_SIZES)
      it(`${template}${at(size)}: no line ends with "50%", "Series", "React" or "в" before its partner`, async () => {
        for (const title of titles) {
          const lines = await linesOf(template, { title }, title.slice(0, 6), size);
          for (const [i, line] of lines.slice(0, -1).entries()) {
            const next = lines[i + 1]!;
            expect(separates(line, next), `${template}: ${lines.join(' / ')}`).toBe(false);
          }
        }
      });
  }
});

describe('glueShortWords', () => {
  const shown = (text: string) => glueShortWords(text).replaceAll('\u00a0', '~');

  it('glues short words forward, numbers to short units, and names to their version', () => {
    expect(shown('Get 50% off in React 19')).toBe('Get~50%~off in~React~19');
    expect(shown('Our Series B round')).toBe('Our Series~B round');
    expect(shown('Мы живём в облаке')).toBe('Мы~живём в~облаке');
    expect(shown('Το κόστος του cloud')).toBe('Το~κόστος του cloud');
  });

  it('leaves CJK, Arabic and words before punctuation alone, and keeps glued runs short', () => {
    expect(shown('日本 50 件')).toBe('日本 50 件');
    expect(shown('عام ٢٠٢٥ في')).toBe('عام ٢٠٢٥ في');
    expect(shown('go, or stay')).toBe('go, or~stay');
    expect(shown('Is it ok, or is it a bit of a mess to be or not')).not.toMatch(/[^ ]{25}/u);
  });
});
