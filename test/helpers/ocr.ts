import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import sharp from 'sharp';

/** Debian's tesseract (`scripts/setup.mjs --test` installs it). */
export const TESSERACT = '/usr/bin/tesseract';
export const HAS_TESSERACT = existsSync(TESSERACT);

/** Letters and digits only (accents folded), lower case, single spaces: what OCR gets right. */
export function plainText(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/**
 * The text of an image: greyscale at `scale` of its width (half by default), one tesseract
 * thread (tests read images side by side).
 */
export async function ocr(png: Buffer, scale = 1 / 2): Promise<string> {
  const meta = await sharp(png).metadata();
  const input = await sharp(png)
    .resize({ width: Math.round((meta.width ?? 1200) * scale) })
    .greyscale()
    .png({ compressionLevel: 1 })
    .toBuffer();
  return new Promise((resolve, reject) => {
    const child = execFile(
      TESSERACT,
      ['stdin', 'stdout', '--psm', '3', '-l', 'eng'],
      { env: { ...process.env, OMP_THREAD_LIMIT: '1' } },
      (err, stdout) => (err ? reject(err) : resolve(stdout)),
    );
    child.stdin?.end(input);
  });
}

/**
 * The share of `expected`'s words that OCR read: tesseract's English model reads most accented
 * letters but not all (`ü` comes back as `ii`), so a title counts as read when most words are.
 */
export function wordsRead(text: string, expected: string): number {
  const got = new Set(plainText(text).split(' '));
  const want = plainText(expected).split(' ').filter(Boolean);
  return want.filter((w) => got.has(w)).length / Math.max(1, want.length);
}
