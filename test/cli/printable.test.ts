import { describe, expect, it } from 'vitest';
import { printable } from '../../src/cli/printable.js';

describe('printable', () => {
  it('escapes every C0 and C1 control character and DEL as \\xNN', () => {
    for (let c = 0; c <= 0x9f; c++) {
      if (c >= 0x20 && c < 0x7f) continue;
      const ch = String.fromCharCode(c);
      expect(printable(`a${ch}b`)).toBe(`a\\x${c.toString(16).toUpperCase().padStart(2, '0')}b`);
    }
  });

  it('escapes an OSC 52 clipboard write and a CSI cursor move, keeping the rest readable', () => {
    expect(printable('https://x.test/\x1b]52;c;aGk=\x07')).toBe('https://x.test/\\x1B]52;c;aGk=\\x07');
    expect(printable('\x1b[1A\x1b[2Kok')).toBe('\\x1B[1A\\x1B[2Kok');
  });

  it('escapes bidi overrides and isolates, and leaves other text (accents, CJK, emoji) as is', () => {
    expect(printable('evil\u202egnp.exe')).toBe('evil\\u{202E}gnp.exe');
    expect(printable('\u2066x\u2069')).toBe('\\u{2066}x\\u{2069}');
    const plain = 'https://例え.jp/straße?q=café 🎉 #frag';
    expect(printable(plain)).toBe(plain);
  });
});
