import type { FieldSpec, FieldValue, TemplateDefinition } from './types.js';

/**
 * The texts `templates check` fills a template's fields with. Short text shows a layout that
 * does not collapse; long text, at each field's maximum length, is where a headline shrinks to
 * its minimum size and must end with an ellipsis; the scripts are the ones whose widths, line
 * breaks and marks the built-ins' fitter once got wrong (a fifth line cut through its marks, a
 * run of Thai or CJK without spaces, Arabic laid out right to left, emoji as inline images).
 */
export interface CheckSample {
  /** Shown in the report: `short`, `long`, `thai`, `thai long`… */
  name: string;
  /** The text for a field of at most `maxLength` characters. */
  text(maxLength: number): string;
  /** The brand label, for templates that draw one. */
  brand: string;
}

/** A brand may hold 60 characters (the request's limit); the long samples use all of them. */
const BRAND_MAX = 60;

const HEADLINES: Record<string, string> = {
  latin: 'How we cut our build time in half: a field guide to caching in continuous integration',
  cjk: '我们如何将构建时间缩短一半：持续集成中缓存的实用指南と日本語の見出しも少し',
  arabic: 'كيف خفضنا وقت البناء إلى النصف: دليل ميداني للتخزين المؤقت في التكامل المستمر',
  devanagari: 'हमने अपने बिल्ड समय को आधा कैसे किया: निरंतर एकीकरण में कैशिंग के लिए एक विस्तृत फ़ील्ड गाइड और सीखें',
  thai: 'เราลดเวลาเริ่มต้นแบบเย็นลงแปดสิบเปอร์เซ็นต์ด้วยการโหลดฟอนต์แบบขี้เกียจ และเคล็ดลับอื่นๆ อีกเล็กน้อยที่ไม่มีใครบอกเรา',
  emoji: 'Launch day 🚀 the new dashboard 👩‍💻 ships to every team 🇯🇵 🎉 with dark mode 🌙 and more ✨',
};

const BRANDS: Record<string, string> = {
  latin: 'Acme Engineering',
  cjk: '极客工程团队',
  arabic: 'هندسة أكمي',
  devanagari: 'एक्मे इंजीनियरिंग',
  thai: 'วิศวกรรมแอคมี',
  emoji: 'Acme 🚀 Labs',
};

const graphemes = (s: string): string[] =>
  [...new Intl.Segmenter('en', { granularity: 'grapheme' }).segment(s)].map((g) => g.segment);

/**
 * `s` cut to at most `max` code points (what the request counts) at a grapheme boundary, so an
 * emoji sequence or a consonant with its marks is never split; trailing space trimmed.
 */
export function cutTo(s: string, max: number): string {
  let out = '';
  let length = 0;
  for (const g of graphemes(s)) {
    const n = [...g].length;
    if (length + n > max) break;
    out += g;
    length += n;
  }
  return out.trimEnd();
}

/** `s` repeated (joined by a space) until it reaches `max` code points, then cut there. */
export function fillTo(s: string, max: number): string {
  let out = s;
  while ([...out].length < max) out = `${out} ${s}`;
  return cutTo(out, max);
}

/** Every sample, in report order. */
export const CHECK_SAMPLES: readonly CheckSample[] = Object.freeze([
  { name: 'short', text: (max) => cutTo('Ship faster', max), brand: 'Acme' },
  {
    name: 'long',
    text: (max) => fillTo(HEADLINES.latin!, max),
    brand: fillTo('Acme Engineering', BRAND_MAX),
  },
  ...Object.keys(HEADLINES)
    .filter((script) => script !== 'latin')
    .flatMap((script): CheckSample[] => [
      { name: script, text: (max) => cutTo(HEADLINES[script]!, max), brand: BRANDS[script]! },
      {
        name: `${script} long`,
        text: (max) => fillTo(HEADLINES[script]!, max),
        brand: fillTo(BRANDS[script]!, BRAND_MAX),
      },
    ]),
]);

/**
 * A field's value for a sample: text from the sample, everything else its default or the first
 * value it allows (a colour that shows on light and dark, a number's minimum, a choice's first
 * option).
 */
function sampleValue(spec: FieldSpec, sample: CheckSample): FieldValue {
  switch (spec.type) {
    case 'text':
      return sample.text(spec.maxLength);
    case 'color':
      return spec.default ?? '#2563EB';
    case 'number':
      return spec.default ?? spec.min;
    case 'choice':
      return spec.default ?? spec.options[0] ?? '';
  }
}

/** The declared fields of `def` filled for `sample` (every field, optional ones included). */
export function sampleFields(def: TemplateDefinition, sample: CheckSample): Record<string, FieldValue> {
  const out: Record<string, FieldValue> = {};
  for (const [name, spec] of Object.entries(def.fields)) out[name] = sampleValue(spec, sample);
  if (def.uses.brand) out.brand = sample.brand;
  return out;
}
