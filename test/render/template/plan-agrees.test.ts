import type { MeasuredNode, Renderer } from '@takumi-rs/core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CardSize, Node, TemplateFields } from '../../../src/render/template/types.js';
import { FALLBACK_FAMILIES } from '../../../src/render/text/fonts.js';
import { TEMPLATE_NAMES, TEMPLATES } from '../../helpers/builtins.js';
import { sharedEngine } from '../../helpers/engine.js';
import { textOf } from './nodes.js';
import { ALL_SIZES, at } from './sizes.js';

/**
 * The fitter's plan must agree with takumi: laid out without its line clamp, every paragraph
 * fits the frame it was given. Where it does not, takumi's clamp cuts the text ("anyone,…",
 * mid-word "an…", Chinese with a low "...") although the card had room at a smaller size, and an
 * RTL paragraph, which carries no clamp, is sliced by its frame.
 */

interface Paragraph {
  text: string;
  /** Laid-out height without the clamp, and what the clip frame shows. */
  content: number;
  visible: number;
}

function unclamped(n: Node): Node {
  const style = { ...((n.style ?? {}) as Record<string, unknown>) };
  delete style.lineClamp;
  delete style.textOverflow;
  const children =
    'children' in n && Array.isArray(n.children) ? { children: (n.children as Node[]).map(unclamped) } : {};
  return { ...n, style, ...children } as Node;
}

async function paragraphs(
  engine: Renderer,
  fields: TemplateFields,
  template: (typeof TEMPLATE_NAMES)[number],
  size: CardSize,
) {
  const built = TEMPLATES[template].build(fields, { size });
  const node = unclamped(built.node);
  const measured = await engine.measure(node, {
    width: size.width,
    height: size.height,
    images: built.images,
    fontFamilies: [...FALLBACK_FAMILIES],
  });
  const found: Paragraph[] = [];
  const walk = (n: Node, m: MeasuredNode) => {
    const style = n.style as Record<string, unknown> | undefined;
    const children = 'children' in n && Array.isArray(n.children) ? (n.children as Node[]) : [];
    if (style?.overflow === 'hidden' && typeof style.maxHeight === 'number' && children.length === 1) {
      const visible = style.maxHeight - 2 * Number(style.padding);
      found.push({ text: textOf(children[0]!), content: m.children[0]!.height, visible });
    }
    for (const [i, child] of children.entries()) walk(child, m.children[i]!);
  };
  walk(node, measured);
  return found;
}

let engine: Renderer;
beforeAll(async () => {
  engine = await sharedEngine();
});

const LONG_SUBTITLE =
  'Over two years our platform team rewrote the build system, replaced CI twice, added remote caching, split the monorepo into workspaces, and adopted a deploy strategy that lets any engineer ship on a Friday without paging anyone, which was harder than it sounds; here is how step by step.';
const CHINESE_SUBTITLE =
  '敏捷的棕色狐狸跳过了懒狗，而我们的团队在每一个产品中都交付了更快的构建、更好的缓存和更安全的部署，今年如此，明年也将如此，我们会继续努力。';

/** Titles the audit saw lose words to the clamp while a smaller size held them whole. */
const WHOLE_TITLES: Record<string, string> = {
  'Greek capitals': 'ΤΟ ΜΕΓΑΛΟ ΣΥΝΕΔΡΙΟ ΠΛΗΡΟΦΟΡΙΚΗΣ ΤΗΣ ΑΘΗΝΑΣ ΕΠΙΣΤΡΕΦΕΙ',
  'Cyrillic capitals': 'БЫСТРАЯ КОРИЧНЕВАЯ ЛИСА ПРЫГАЕТ ЧЕРЕЗ ЛЕНИВУЮ СОБАКУ, ПОКА НА',
  Tamil: 'விரைவான பழுப்பு நரி சோம்பேறி நாயின்',
  'Tamil, longer': 'விரைவான பழுப்பு நரி சோம்பேறி நாயின் மேல் குதிக்கிறது எங்கள் குழு',
  Khmer: 'កញ្ជ្រោងពណ៌ត្នោតរហ័សលោតពីលើឆ្កែខ្ជិល ខណៈពេលដែលក្រុមរបស់យើង',
  Persian: 'چگونه هزینه‌های زیرساخت ابری را در شش ماه به نصف کاهش دادیم',
};

describe('the plan agrees with takumi: no paragraph needs more lines than its frame shows', () => {
  for (const template of TEMPLATE_NAMES) {
    for (const size of ALL_SIZES) {
      it(`${template}${at(size)}: Greek and Cyrillic capitals, Tamil, Khmer and Persian titles are drawn whole`, async () => {
        for (const [label, title] of Object.entries(WHOLE_TITLES)) {
          for (const subtitle of [undefined, 'راهنمای عملی برای تیم‌های مهندسی']) {
            const fields = { title, ...(subtitle ? { subtitle, brand: 'فناوری پارس' } : {}) };
            for (const p of await paragraphs(engine, fields, template, size)) {
              expect(p.content, `${label}: "${p.text}"`).toBeLessThanOrEqual(p.visible + 0.5);
            }
            // Short words are glued to their neighbour with no-break spaces ("ΤΟ ΜΕΓΑΛΟ").
            const plain = (text: string) => text.replaceAll('\u200b', '').replaceAll('\u00a0', ' ');
            const [drawn] = (await paragraphs(engine, fields, template, size)).filter((p) =>
              plain(p.text).includes(title.slice(0, 8)),
            );
            expect(plain(drawn!.text), label).toBe(title);
          }
        }
      });

      it(`${template}${at(size)}: a long subtitle is cut by the fitter, tidily, not by takumi's clamp`, async () => {
        for (const subtitle of [LONG_SUBTITLE, CHINESE_SUBTITLE]) {
          const found = await paragraphs(
            engine,
            { title: 'Release notes', subtitle, brand: 'Acme' },
            template,
            size,
          );
          const sub = found.find((p) => p.text.startsWith(subtitle.slice(0, 6)))!;
          expect(sub.content, sub.text).toBeLessThanOrEqual(sub.visible + 0.5);
          // Chinese ends with the centred "⋯"; a cut never leaves a comma before the ellipsis.
          if (subtitle === CHINESE_SUBTITLE)
            expect(sub.text === subtitle || /[^，、]⋯$/u.test(sub.text), sub.text).toBe(true);
          else expect(sub.text).toMatch(/[a-z]…$/u);
        }
      });
    }
  }
});
