import { describe, expect, it } from 'vitest';
import { brandInitial } from '../../../src/render/template/brand.js';
import {
  detectDirection,
  fontStack,
  letterSpacingFor,
  lineHeightFor,
} from '../../../src/render/template/script.js';

describe('script helpers', () => {
  it('decides direction by the first strong letter, like dir="auto"', () => {
    expect(detectDirection('שלום world')).toBe('rtl');
    expect(detectDirection('2024: مرحبا')).toBe('rtl');
    expect(detectDirection('Cardshot: שלום')).toBe('ltr');
    expect(detectDirection('🚀 123')).toBe('ltr');
    expect(detectDirection('\u200F')).toBe('rtl');
  });

  it('prefers the regional CJK family the text asks for', () => {
    expect(fontStack('日本語のタイトル', 'Inter')).toMatch(/^'Inter', 'Noto Sans JP', 'Noto Sans SC'/);
    expect(fontStack('한국어', 'Inter')).toMatch(/^'Inter', 'Noto Sans KR'/);
    expect(fontStack('中文标题', 'Source Serif 4')).toMatch(/^'Source Serif 4', 'Inter', 'Noto Sans SC'/);
  });

  it("puts the text's own script families first, so shared signs (the danda) come from its face", () => {
    expect(fontStack('বাংলা।', 'Inter')).toMatch(/^'Inter', 'Noto Sans Bengali', 'Noto Sans SC'/);
    expect(fontStack('தமிழ் and हिन्दी', 'Inter')).toMatch(
      /^'Inter', 'Noto Sans Devanagari', 'Noto Sans Tamil', /,
    );
    expect(fontStack('Hello', 'Inter')).toMatch(/'Noto Sans KR', 'Noto Sans Arabic', .*'Inter Complete'$/);
  });

  it('opens the leading for stacked scripts and drops tracking outside Latin, Greek and Cyrillic', () => {
    expect(lineHeightFor('Hello', 1.1)).toBe(1.1);
    expect(lineHeightFor('مرحبا', 1.1)).toBeCloseTo(1.3);
    expect(lineHeightFor('中文', 1.1)).toBe(1.2);
    for (const tall of ['বাংলা', 'ਪੰਜਾਬੀ', 'ગુજરાતી', 'தமிழ்', 'తెలుగు', 'ಕನ್ನಡ', 'മലയാളം', 'සිංහල', 'ລາວ'])
      expect(lineHeightFor(tall, 1.1), tall).toBeCloseTo(1.3);
    expect(lineHeightFor('မြန်မာ', 1.1)).toBeCloseTo(1.45);
    expect(lineHeightFor('ខ្មែរ', 1.1)).toBeCloseTo(1.45);
    for (const alphabet of ['Հայերեն', 'ქართული', 'አማርኛ'])
      expect(lineHeightFor(alphabet, 1.1), alphabet).toBe(1.1);
    // Marks above a capital, or two stacked on any letter, rise above the cap height.
    for (const accented of ['Ở Việt Nam', 'École', 'Ångström', 'về nhà', 'Йогурт', 'Άρης'])
      expect(lineHeightFor(accented, 1.06), accented).toBe(1.25);
    for (const plain of ['Hello, world', 'naïve café', 'Ạ Ș Ţ Ç Ą', 'über'])
      expect(lineHeightFor(plain, 1.06), plain).toBe(1.06);
    expect(letterSpacingFor('Привет, Ελλάδα — hello!', -0.03)).toBe(-0.03);
    expect(letterSpacingFor('مرحبا', -0.03)).toBe(0);
    expect(letterSpacingFor('Hello 中文', -0.03)).toBe(0);
  });

  it('takes the first grapheme of a brand for its monogram', () => {
    expect(brandInitial('acme')).toBe('A');
    expect(brandInitial('  東京')).toBe('東');
    expect(brandInitial('👩‍💻 Studio')).toBe('👩‍💻');
    expect(brandInitial('ßeta')).toBe('ß');
  });
});
