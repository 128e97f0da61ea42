import { DEFAULT_SIZE } from '../../src/render/template/sizes.js';
import type { BuildContext, TemplateDefinition, TemplateFields } from '../../src/render/template/types.js';
import { FAMILY } from '../../src/render/text/fonts.js';
import { div, ImageBag, label, picture } from '../../src/render/text/nodes.js';

/** What the fixture draws without a theme. */
export const UNTHEMED = { background: '#FFFFFF', text: '#111111', accent: '#888888' };

/**
 * A small template that declares theme support, for tests of the Theme page whose pixels do
 * not depend on the built-ins' designs: the whole card in the theme's background, a 40 px accent band at the
 * top, the title in the theme's text colour and font, and the logo (when there is one) at the
 * bottom right. Pixel (10, 10) is the accent, (10, 200) the background.
 */
export const themedTemplate: TemplateDefinition = {
  name: 'themed',
  description: 'Test fixture: draws the account theme.',
  fields: {
    title: { type: 'text', required: true, maxLength: 200 },
    subtitle: { type: 'text', maxLength: 300 },
  },
  sizes: ['og', 'square', 'story'],
  uses: { brand: false, artwork: false, theme: true },
  hash: 'fixture-themed-1',
  source: 'test:themed',
  build(fields: TemplateFields, ctx: BuildContext = { size: DEFAULT_SIZE }) {
    const t = ctx.theme ?? { ...UNTHEMED, font: 'sans' as const };
    const bag = new ImageBag();
    const { width, height } = ctx.size;
    const children = [
      div({ position: 'absolute', left: 0, top: 0, width, height: 40, backgroundColor: t.accent }),
      label(fields.title ?? '', {
        position: 'absolute',
        left: 60,
        top: 120,
        width: width - 120,
        fontSize: 64,
        fontWeight: 700,
        color: t.text,
        fontFamily: `"${t.font === 'serif' ? FAMILY.serif : FAMILY.sans}"`,
      }),
    ];
    if (ctx.theme?.logo) {
      const { data, width: w, height: h } = ctx.theme.logo;
      const src = bag.add(`logo-${ctx.theme.logo.sha256}.png`, data);
      children.push(
        picture(src, { position: 'absolute', right: 40, bottom: 40, width: w / 4, height: h / 4 }),
      );
    }
    return {
      node: div({ width, height, backgroundColor: t.background, position: 'relative' }, children),
      images: bag.list(),
    };
  },
};

/** A fixture that does not declare theme support: always white with a grey title, og only. */
export const plainTemplate: TemplateDefinition = {
  ...themedTemplate,
  name: 'plain',
  description: 'Test fixture: its own look, whatever the theme.',
  sizes: ['og'],
  uses: { brand: false, artwork: false, theme: false },
  hash: 'fixture-plain-1',
  source: 'test:plain',
  build: (fields, ctx = { size: DEFAULT_SIZE }) => themedTemplate.build(fields, { size: ctx.size }),
};
