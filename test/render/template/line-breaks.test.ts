import type { MeasuredNode, Renderer } from '@takumi-rs/core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CardSize, Node, TemplateFields } from '../../../src/render/template/types.js';
import { FALLBACK_FAMILIES } from '../../../src/render/text/fonts.js';
import { type FitBox, fitText } from '../../../src/render/text/text-fit.js';
import { type BuiltinName, TEMPLATES } from '../../helpers/builtins.js';
import { sharedEngine } from '../../helpers/engine.js';
import { textOf } from './nodes.js';
import { ALL_SIZES, at } from './sizes.js';

interface TitleLayout {
  /** The text as drawn, one string per line (zero-width spaces removed). */
  lines: string[];
  fontSize: number;
  /** The line clamp (Infinity where none is set). */
  maxLines: number;
  style: Record<string, unknown>;
}

let engine: Renderer;
beforeAll(async () => {
  engine = await sharedEngine();
});

/** The title of a card (its largest text) as takumi lays it out, split into lines. */
async function titleLayout(
  template: BuiltinName,
  fields: TemplateFields,
  size: CardSize = ALL_SIZES[0]!,
): Promise<TitleLayout> {
  const texts: Extract<Node, { type: 'text' }>[] = [];
  const walk = (n: Node) => {
    if (n.type === 'text') texts.push(n);
    if ('children' in n && Array.isArray(n.children)) for (const c of n.children as Node[]) walk(c);
  };
  walk(TEMPLATES[template].build(fields, { size }).node);
  const fontSize = (n: Node) => Number((n.style as Record<string, unknown> | undefined)?.fontSize ?? 0);
  const title = texts.reduce((a, b) => (fontSize(b) > fontSize(a) ? b : a));
  const style = title.style as Record<string, unknown>;
  const { lineClamp, textOverflow, ...unclamped } = style;
  const measured = await engine.measure({ ...title, style: unclamped } as Node, {
    fontFamilies: [...FALLBACK_FAMILIES],
  });
  const lineHeight = fontSize(title) * Number(style.lineHeight);
  const lines: string[] = [];
  for (const run of measured.runs) {
    const i = Math.floor((run.y + run.height / 2) / lineHeight);
    lines[i] = (lines[i] ?? '') + run.text;
  }
  return {
    lines: lines.map((l) => l.replaceAll('\u200b', '').trim()),
    fontSize: fontSize(title),
    maxLines: Number(lineClamp ?? Infinity),
    style,
  };
}

describe('Korean breaks at spaces only (keep-all)', () => {
  const title = '빌드 시간을 절반으로 줄인 방법: 지속적 통합에서 캐싱을 활용하는 실전 가이드와 교훈';
  const words = new Set(title.split(' '));
  for (const template of ['saas', 'product', 'blog'] as const) {
    for (const size of ALL_SIZES)
      it(`${template}${at(size)}: no word is split across lines ("방 | 법"), and the plan holds every line`, async () => {
        const layout = await titleLayout(template, { title }, size);
        expect(layout.style.wordBreak).toBe('keep-all');
        expect(layout.lines.length).toBeGreaterThan(1);
        expect(layout.lines.length).toBeLessThanOrEqual(layout.maxLines);
        for (const line of layout.lines) for (const w of line.split(' ')) expect(words, line).toContain(w);
      });
  }

  it('Chinese and Japanese still break between characters', async () => {
    for (const title of [
      '我们如何将冷启动时间缩短百分之八十：延迟加载字体的实践与经验',
      'コールドスタート時間を短縮した方法：フォントの遅延読み込みと誰も教えてくれなかったコツ',
    ]) {
      const layout = await titleLayout('product', { title });
      expect(layout.style.wordBreak).toBeUndefined();
      expect(layout.lines.length).toBeGreaterThan(1);
      expect(layout.lines.join('')).toBe(title);
    }
  });
});

describe('a long word shrinks the title before it is broken', () => {
  it('product: "Supercalifragilistic" is set whole on one line, not "Supercali / fragilistic"', async () => {
    const layout = await titleLayout('product', { title: 'Supercalifragilistic' });
    expect(layout.lines).toEqual(['Supercalifragilistic']);
    expect(layout.fontSize).toBeLessThan(72);
    expect(layout.fontSize).toBeGreaterThanOrEqual(32);
  });

  it('keeps display size for short words', async () => {
    expect((await titleLayout('product', { title: 'Hello there' })).fontSize).toBe(72);
  });

  it('breaks a word no size holds after "/", "?", "&", "-" or ".", not mid-segment', async () => {
    for (const template of ['product', 'saas', 'blog'] as const) {
      for (const size of ALL_SIZES)
        for (const title of [
          'Read https://example.com/docs/getting-started/install',
          'See https://example.com/search?query=cards&page=2&sort=newest-first',
        ]) {
          const layout = await titleLayout(template, { title }, size);
          expect(layout.lines.join('').replaceAll(' ', ''), template).toBe(title.replaceAll(' ', ''));
          for (const line of layout.lines.slice(0, -1))
            expect(line, `${template}: ${title}`).toMatch(/^Read$|^See$|[/?&.-]$/);
        }
    }
  });

  it('a word too long even at the minimum size is still broken to fit (no overflow)', () => {
    const fit = fitText('Pneumonoultramicroscopicsilicovolcanoconiosis', {
      face: 'sans-800',
      steps: [
        [72, 2],
        [48, 3],
      ],
      width: 500,
      height: 400,
      lineHeight: 1.1,
    });
    expect(fit).toMatchObject({ fontSize: 48, overflows: false });
    expect(fit.lines).toBeGreaterThan(1);
  });
});

describe('a cut text ends with "…" after a word, not after punctuation', () => {
  const box: FitBox = { face: 'sans-800', steps: [[56, 1]], width: 600, height: 70, lineHeight: 1.2 };
  const title = 'Circuit breakers, retries and timeouts: a field guide';

  it('drops the comma before the ellipsis, whether takumi clamps behind the cut or not', () => {
    expect(fitText(title, box).text).toBe('Circuit breakers…');
    expect(fitText(title, box, true).text).toBe('Circuit breakers…');
    // takumi sets "Circuit breakers, retries and…" 831 px wide: at 830 its clamp cut it again.
    expect(fitText(title, { ...box, width: 840 }).text).toBe('Circuit breakers, retries and…');
    expect(fitText(title, { ...box, width: 830 }).text).toBe('Circuit breakers, retries…');
    expect(fitText('Build; test — ship it, and then measure', { ...box, width: 560 }).text).toMatch(
      /[^\s,:;—-]…$/,
    );
  });

  it('takumi draws the cut text whole within the clamp, so its own "…" never replaces ours', async () => {
    const fit = fitText(title, box);
    const measured = await engine.measure(
      {
        type: 'text',
        text: fit.text,
        style: { fontFamily: 'Inter', fontSize: 56, fontWeight: 800, width: 600, lineHeight: 1.2 },
      },
      { fontFamilies: [...FALLBACK_FAMILIES] },
    );
    expect(Math.round(measured.height / (56 * 1.2))).toBeLessThanOrEqual(fit.maxLines);
  });

  it('Chinese drops its full-width comma and ends with the centred "⋯" its fonts draw', () => {
    const text = '我们如何将冷启动时间缩短，百分之八十的经验分享和更多内容';
    const fit = fitText(text, {
      face: 'sans-800',
      steps: [[40, 1]],
      width: 520,
      height: 60,
      lineHeight: 1.2,
    });
    expect(fit.text).toBe('我们如何将冷启动时间缩短⋯');
  });
});

describe('Thai, Lao, Khmer and Myanmar break between words (ICU dictionaries), not mid-word', () => {
  const words = (text: string) => [...new Intl.Segmenter('th', { granularity: 'word' }).segment(text)];
  for (const [lang, title] of [
    ['Thai', 'เราลดค่าใช้จ่ายคลาวด์ลงครึ่งหนึ่งภายในหกเดือนได้อย่างไร'],
    ['Khmer', 'កញ្ជ្រោងពណ៌ត្នោតរហ័សលោតពីលើឆ្កែខ្ជិល ខណៈពេលដែលក្រុមរបស់យើងផ្តល់ការសាងសង់លឿនជាងមុន'],
  ] as const) {
    for (const template of ['product', 'saas', 'blog'] as const) {
      for (const size of ALL_SIZES)
        it(`${template}${at(size)}: a ${lang} title's lines end at word boundaries${lang === 'Thai' ? ' ("คลาวด์" stays whole)' : ''}`, async () => {
          const layout = await titleLayout(template, { title }, size);
          expect(layout.lines.join('').replaceAll(' ', '')).toBe(title.replaceAll(' ', ''));
          const ends = new Set(words(title).map((w) => w.index + w.segment.length));
          ends.delete(title.indexOf('คลาวด์') + 'คลา'.length);
          let end = 0;
          for (const line of layout.lines.slice(0, -1)) {
            end = title.indexOf(line, end) + line.length;
            expect(ends.has(end), `${template}: "${line}"`).toBe(true);
          }
        });
    }
  }
});

describe('Korean with as much Han as Hangul keeps its Hangul words whole', () => {
  /** The lines of the paragraph drawing `title` (a text, or a container of keep-all spans). */
  async function lines(template: BuiltinName, title: string, size: CardSize): Promise<string[]> {
    let found: Node | undefined;
    const walk = (n: Node) => {
      const style = n.style as Record<string, unknown> | undefined;
      if (!found && style?.fontSize && textOf(n).startsWith(title.slice(0, 4))) found = n;
      if ('children' in n && Array.isArray(n.children)) for (const c of n.children as Node[]) walk(c);
    };
    walk(TEMPLATES[template].build({ title }, { size }).node);
    const { lineClamp, textOverflow, ...style } = found!.style as Record<string, unknown>;
    const measured = await engine.measure({ ...found!, style } as Node, {
      fontFamilies: [...FALLBACK_FAMILIES],
    });
    const lineHeight = Number(style.fontSize) * Number(style.lineHeight);
    const out: string[] = [];
    const collect = (m: MeasuredNode) => {
      for (const run of m.runs) {
        const i = Math.floor((run.y + run.height / 2) / lineHeight);
        out[i] = (out[i] ?? '') + run.text;
      }
      for (const c of m.children) collect(c);
    };
    collect(measured);
    return out.filter((l) => l !== undefined).map((l) => l.trim());
  }

  for (const title of [
    '韓國 漢字 교육의 歷史와 現在 그리고 未來 展望에 관한 硏究 報告書 발표',
    'Seoul 서울 東京大阪北京上海香港台北漢字文化圏会議 부산광역시 漢字文化 대한민국',
  ]) {
    for (const template of ['product', 'saas', 'blog'] as const) {
      for (const size of ALL_SIZES)
        it(`${template}${at(size)}: "${title.slice(0, 12)}…" splits no Hangul word ("서 | 울")`, async () => {
          const drawn = await lines(template, title, size);
          expect(drawn.join('').replaceAll(' ', '')).toBe(title.replaceAll(' ', ''));
          for (const word of title.match(/\p{Script=Hangul}+/gu)!)
            expect(
              drawn.some((line) => line.includes(word)),
              `${word} in ${JSON.stringify(drawn)}`,
            ).toBe(true);
        });
    }
  }
});
