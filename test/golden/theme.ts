import { createHash } from 'node:crypto';
import sharp from 'sharp';
import type { CardTheme } from '../../src/render/template/types.js';

/** The logo's colours, which no template draws by itself: the pixel tests look for them. */
export const LOGO_TEAL: [number, number, number] = [0x0d, 0x94, 0x88];
export const LOGO_GOLD: [number, number, number] = [0xfa, 0xcc, 0x15];

/**
 * A wide test logo (3:1, like most wordmarks): a teal bar with a gold disc at its start, on a
 * transparent ground, computed pixel by pixel so it depends on no rasteriser version.
 */
export async function testLogo(width = 240, height = 80): Promise<NonNullable<CardTheme['logo']>> {
  const px = Buffer.alloc(width * height * 4);
  const r = height * 0.42;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const disc = Math.hypot(x - height / 2, y - height / 2) < r;
      const bar = x > height * 0.95 && y > height * 0.25 && y < height * 0.75;
      const color = disc ? LOGO_GOLD : bar ? LOGO_TEAL : undefined;
      if (!color) continue;
      [px[i], px[i + 1], px[i + 2], px[i + 3]] = [...color, 255];
    }
  }
  const data = await sharp(px, { raw: { width, height, channels: 4 } })
    .png()
    .toBuffer();
  return { data, width, height, sha256: createHash('sha256').update(data).digest('hex') };
}

/** A navy brand with an amber accent and the sans headline face: far from every built-in look. */
export async function testTheme(overrides: Partial<CardTheme> = {}): Promise<CardTheme> {
  const base = { background: '#0B1F3A', text: '#F8FAFC', accent: '#F59E0B', font: 'sans' as const };
  const logo = await testLogo();
  const theme = { ...base, logo, ...overrides };
  const version = createHash('sha256')
    .update(JSON.stringify({ ...theme, logo: theme.logo?.sha256 }))
    .digest('hex')
    .slice(0, 16);
  return { ...theme, version };
}
