import { describe, expect, it } from 'vitest';
import { brandInitial, upperCased } from '../../../src/render/template/brand.js';
import {
  detectDirection,
  fontStack,
  keepsWordsWhole,
  letterSpacingFor,
  lineHeightFor,
  markWordBreaks,
} from '../../../src/render/text/script.js';

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
    expect(brandInitial('ßeta')).toBe('ß');
  });

  // The badge showed `"` for a brand in quotes.
  it('takes the first letter or digit for a monogram, not punctuation or a symbol', () => {
    expect(brandInitial('"Quoted" Co')).toBe('Q');
    expect(brandInitial('¡Hola!')).toBe('H');
    expect(brandInitial('(3M)')).toBe('3');
    expect(brandInitial('👩‍💻 Studio')).toBe('S');
    // With its marks: a base letter and a combining accent are one initial.
    expect(brandInitial('«e\u0301clair»')).toBe('E\u0301');
    expect(brandInitial('“أكمي”')).toBe('أ');
    // Nothing to spell with: the first visible grapheme.
    expect(brandInitial(' \u200b@@')).toBe('@');
    expect(brandInitial('🚀🚀')).toBe('🚀');
    expect(brandInitial('   ')).toBe('');
  });

  it('a Thai or Lao monogram is the first consonant, not a vowel written before it', () => {
    expect(brandInitial('ไทยเทค')).toBe('ท');
    expect(brandInitial('เจริญ')).toBe('จ');
    expect(brandInitial('ໂລກ')).toBe('ລ');
    expect(brandInitial('ที่นี่')).toBe('ที่');
  });

  it('upper-cases a monogram by letters, not code points, and Greek capitals drop the tonos', () => {
    expect(brandInitial('ǰoin')).toBe('J\u030c');
    expect(upperCased('Ελληνική Εταιρεία')).toBe('ΕΛΛΗΝΙΚΗ ΕΤΑΙΡΕΙΑ');
    expect(upperCased('Acme ünd')).toBe('ACME ÜND');
  });

  it('marks word boundaries in Thai, Lao, Khmer and Myanmar runs with zero-width spaces', () => {
    expect(markWordBreaks('เราลดค่าใช้จ่ายคลาวด์').split('\u200b')).toEqual([
      'เรา',
      'ลด',
      'ค่า',
      'ใช้',
      'จ่าย',
      'คลาวด์',
    ]);
    expect(markWordBreaks('ពណ៌ត្នោតរហ័ស')).toBe('ពណ៌ត្នោត\u200bរហ័ស');
    expect(markWordBreaks('Hello world, 東京')).toBe('Hello world, 東京');
    expect(markWordBreaks('ไทย Thai')).toBe('ไทย Thai');
  });

  it('keeps Korean words whole, and Chinese and Japanese breaking between characters', () => {
    expect(keepsWordsWhole('빌드 시간을 절반으로 줄인 방법')).toBe(true);
    expect(keepsWordsWhole('韓國 경제 뉴스')).toBe(true);
    expect(keepsWordsWhole('我们如何将冷启动时间缩短')).toBe(false);
    expect(keepsWordsWhole('日本語のサブタイトル、そして한국어 부제목도 함께')).toBe(false);
    expect(keepsWordsWhole('中文标题和한국어')).toBe(false);
    expect(keepsWordsWhole('Hello')).toBe(false);
  });
});
