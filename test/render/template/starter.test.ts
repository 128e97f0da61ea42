import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaffoldTemplate } from '../../../src/cli/templates/new.js';
import { loadTemplateFile } from '../../../src/render/template/files/load.js';
import { createStaticRegistry } from '../../../src/render/template/registry.js';
import { createTemplateRenderer, type TemplateRenderer } from '../../../src/render/template/renderer.js';
import { SIZES } from '../../../src/render/template/sizes.js';
import { contrast } from '../../../src/render/template/theme.js';
import type { CardTheme, SizeName, TemplateDefinition } from '../../../src/render/template/types.js';
import { sharedEngine } from '../../helpers/engine.js';
import { pixelAt } from '../../helpers/png.js';
import { decode } from './pixels.js';

// The file `templates new` writes, loaded and drawn by the real loader and renderer: it draws
// an account's theme, and its brand line stays readable on light and dark themes.
let dir: string;
let starter: TemplateDefinition;
let renderer: TemplateRenderer;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-starter-'));
  starter = await loadTemplateFile(await scaffoldTemplate('event', dir), dir);
  renderer = await createTemplateRenderer(createStaticRegistry([starter]), await sharedEngine());
});
afterAll(async () => {
  await renderer?.close();
  await rm(dir, { recursive: true, force: true });
});

const theme = (background: string, text: string, accent: string): CardTheme => ({
  background,
  text,
  accent,
  font: 'sans',
  version: `${background}${text}${accent}`,
});
const THEMES: Array<[string, CardTheme]> = [
  ['light', theme('#FFFFFF', '#111827', '#2563EB')],
  ['dark', theme('#0B1020', '#F8FAFC', '#F59E0B')],
  ['pastel', theme('#FDE68A', '#78350F', '#B45309')],
];

const hex = (d: Buffer, i: number) =>
  `#${[d[i]!, d[i + 1]!, d[i + 2]!].map((v) => v.toString(16).padStart(2, '0')).join('')}`;

/**
 * The brand row's pixels: the background just after the brand (the accent glow is faint there)
 * and the strongest ink in the row.
 */
async function brandRow(png: Buffer, size: SizeName) {
  const { data, width } = await decode(png);
  const { width: w, height: h } = SIZES[size];
  const pad = Math.round(Math.min(w, h) * 0.09);
  const at = (x: number, y: number) => hex(data, (y * width + x) * 4);
  // Past the 14 px mark and its gap; "Acme Events" at 26 px ends well before 230 px.
  const background = at(pad + 28 + 230, pad + 22);
  let ink = background;
  for (let y = pad; y < pad + 44; y++) {
    for (let x = pad + 28; x < pad + 28 + 200; x++) {
      const c = at(x, y);
      if (contrast(c, background) > contrast(ink, background)) ink = c;
    }
  }
  // Somewhere down the left edge the glow has faded to the plain background.
  const edge = new Set(Array.from({ length: h }, (_, y) => at(2, y).toUpperCase()));
  return { background, ink, edge };
}

describe('the starter template', () => {
  it('declares theme: true, so themed accounts get their colours', () => {
    expect(starter.uses).toEqual({ brand: true, artwork: false, theme: true });
    expect(starter.fields.accent).toMatchObject({ type: 'color' });
  });

  for (const [name, t] of THEMES) {
    for (const size of ['og', 'story'] as const) {
      it(`${name} theme at ${size}: the theme's background, and brand text of at least 4.5:1 on it`, async () => {
        const { png } = await renderer.render(
          'event',
          { title: 'Launch day', brand: 'Acme Events' },
          {
            ctx: { size: SIZES[size], theme: t },
          },
        );
        const row = await brandRow(png, size);
        // The theme's background (under a glow of its accent near the top), not the starter's own.
        expect(row.edge.has(t.background)).toBe(true);
        expect(contrast(row.ink, row.background)).toBeGreaterThanOrEqual(4.5);
      });
    }
  }

  it('without a theme: its own deep background, and a light brand line on it', async () => {
    const { png } = await renderer.render('event', { title: 'Launch day', brand: 'Acme Events' });
    const row = await brandRow(png, 'og');
    expect(row.background).toBe('#0f172a');
    expect(contrast(row.ink, row.background)).toBeGreaterThanOrEqual(4.5);
  });

  it("a request's accent wins over the theme's; without one the theme's accent draws the band", async () => {
    const t = THEMES[0]![1];
    const band = async (fields: Record<string, string>) => {
      const { png } = await renderer.render(
        'event',
        { title: 'x', ...fields },
        { ctx: { size: SIZES.og, theme: t } },
      );
      const { data, width } = await decode(png);
      // The accent band: 8 px tall at the bottom padding's top edge, from the left padding.
      const pad = Math.round(630 * 0.09);
      return hex(data, ((630 - pad - 4) * width + pad + 20) * 4).toUpperCase();
    };
    expect(await band({})).toBe(t.accent);
    expect(await band({ accent: '#DC2626' })).toBe('#DC2626');
  });

  it("draws the theme's logo, contained, where its own accent mark was", async () => {
    const data = await sharp({ create: { width: 400, height: 100, channels: 4, background: '#336699' } })
      .png()
      .toBuffer();
    const sha256 = createHash('sha256').update(data).digest('hex');
    const t = { ...THEMES[0]![1], logo: { data, width: 400, height: 100, sha256 }, version: 'logo-1' };
    const { png } = await renderer.render(
      'event',
      { title: 'x', brand: 'Acme' },
      { ctx: { size: SIZES.og, theme: t } },
    );
    const pad = Math.round(630 * 0.09);
    // 400×100 contained in 176×44: 176 wide, from the left padding.
    expect(await pixelAt(png, pad + 170, pad + 22)).toEqual([0x33, 0x66, 0x99, 255]);
    expect(await pixelAt(png, pad + 5, pad + 22)).toEqual([0x33, 0x66, 0x99, 255]);
  });
});
