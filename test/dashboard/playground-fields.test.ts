import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { createStaticRegistry } from '../../src/render/template/registry.js';
import type { TemplateDefinition } from '../../src/render/template/types.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { TEMPLATES } from '../helpers/builtins.js';
import { csrfOf, type DashClient, signedIn } from '../helpers/dashboard.js';
import { pngSize } from '../helpers/png.js';

/** A custom template with one field of each type, drawing artwork and a theme. */
const event: TemplateDefinition = {
  ...TEMPLATES.product,
  name: 'event',
  description: 'Meetup card.',
  fields: {
    headline: { type: 'text', required: true, maxLength: 80, description: 'The talk.' },
    accentColor: { type: 'color', default: '#6366F1' },
    seats: { type: 'number', min: 1, max: 500, integer: true },
    layout: { type: 'choice', options: ['left', 'center'], default: 'left' },
  },
  sizes: ['og', 'square', 'story'],
  uses: { brand: false, artwork: true, theme: true },
};
/** blog as it will be once the built-ins draw themes at more sizes (same name, so today's parser takes it). */
const themedBlog: TemplateDefinition = {
  ...TEMPLATES.blog,
  sizes: ['og', 'square'],
  uses: { ...TEMPLATES.blog.uses, theme: true },
};

let t: TestApp;
let app: FastifyInstance;
let c: DashClient;
beforeAll(async () => {
  t = await startTestApp();
  // registry: the file registry at merge; here the built-ins with event, and blog drawing themes.
  const registry = createStaticRegistry([themedBlog, TEMPLATES.product, TEMPLATES.saas, event]);
  app = createApp({ config: t.config, log: t.app.log as unknown as Logger, ...t.modules, registry });
  await app.ready();
  c = await signedIn({ ...t, app });
});
afterAll(async () => {
  await app?.close();
  await t?.close();
});

const preview = async (payload: Record<string, string>) => {
  const csrf = csrfOf((await c.get('/dashboard/playground')).body);
  return app.inject({
    method: 'POST',
    url: '/dashboard/playground/preview',
    cookies: c.cookies,
    headers: { 'x-csrf-token': csrf },
    payload,
  });
};
/** The live part of the form (the chosen template's inputs), without the <template> copies. */
const liveFields = (body: string) =>
  body.slice(body.indexOf('<div id="pg-fields"'), body.indexOf('<label for="pg-key"'));

describe('the playground form follows the template declaration', () => {
  it("a custom template: an input per field by type, its sizes, its image field and 'use my theme'", async () => {
    const body = liveFields((await c.get('/dashboard/playground?template=event&useTheme=on')).body);
    expect(body).toContain('data-fields-for="event"');
    expect(body).toMatch(
      /<label for="pg-headline">Headline<\/label>\s*<input id="pg-headline" name="headline" type="text" maxlength="80" value="" required aria-describedby="pg-headline-hint">/,
    );
    expect(body).toContain('<p class="field-hint" id="pg-headline-hint">The talk.</p>');
    expect(body).toMatch(
      /<label for="pg-accentColor">Accent color <span class="optional">optional<\/span><\/label>\s*<input id="pg-accentColor" name="accentColor" type="color" value="#6366f1"/,
    );
    expect(body).toContain(
      '<input id="pg-seats" name="seats" type="number" inputmode="numeric" min="1" max="500" step="1" value=""',
    );
    expect(body).toMatch(
      /<select id="pg-layout" name="layout" >\s*<option value="left" selected>left<\/option><option value="center" >center<\/option>/,
    );
    expect(body).toMatch(
      /<select id="pg-size" name="size" >\s*<option value="og" selected>og · 1200 × 630<\/option><option value="square" >square · 1080 × 1080<\/option><option value="story" >story · 1080 × 1920<\/option>/,
    );
    expect(body).toContain('name="imageUrl" type="url"');
    // event draws no brand: no brand input.
    expect(body).not.toContain('name="brand"');
    expect(body).toContain('<input id="pg-theme" name="useTheme" type="checkbox" value="on" checked');
  });

  it('a built-in keeps its look: title and subtitle boxes, brand; image URL only where drawn', async () => {
    const page = (await c.get('/dashboard/playground?template=product&title=Chair')).body;
    const body = liveFields(page);
    expect(body).toContain(
      '<textarea id="pg-title" name="title" rows="2" maxlength="200" required aria-describedby="pg-title-hint">Chair</textarea>',
    );
    expect(body).toContain(
      '<textarea id="pg-subtitle" name="subtitle" rows="2" maxlength="300"  aria-describedby="pg-subtitle-hint"></textarea>',
    );
    expect(body).toContain('name="brand"');
    expect(body).toContain('name="imageUrl"');
    // The built-ins lay out at every size and draw the account's theme.
    expect(body).toMatch(
      /<select id="pg-size" name="size" >\s*<option value="og" selected>og · 1200 × 630<\/option><option value="twitter" >twitter · 1200 × 675<\/option>/,
    );
    expect(body).toContain('<input type="hidden" name="useTheme" value="off">');
    expect(body).toContain('<input id="pg-theme" name="useTheme" type="checkbox" value="on" checked');
    // The other templates' inputs wait in inert <template>s for the script to swap in.
    expect(page).toMatch(/<template data-fields="event">[\s\S]*name="headline"[\s\S]*<\/template>/);
    expect(page).toMatch(/<template data-fields="blog">[\s\S]*<textarea id="pg-title"[\s\S]*<\/template>/);
    expect(page).not.toContain('<template data-fields="product">');
    // blog draws no artwork: its form has no image URL.
    const blog = liveFields((await c.get('/dashboard/playground?template=blog&title=Hi')).body);
    expect(blog).not.toContain('name="imageUrl"');
  });

  it('the preview sends only what the template reads, the default size left out, and says the pixels', async () => {
    const res = await preview({
      template: 'product',
      title: 'Chair',
      subtitle: '',
      size: 'og',
      headline: 'stray',
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as { previewUrl: string; curl: string; width: number; height: number };
    expect(body.previewUrl).toMatch(/^\/render\/template\?template=product&title=Chair&kid=/);
    expect(body).toMatchObject({ width: 1200, height: 630 });
    expect(body.curl).toContain(`-d '{"template":"product","title":"Chair"}'`);
    const card = await app.inject({ method: 'GET', url: body.previewUrl });
    expect(card.statusCode).toBe(200);
    expect(pngSize(card.rawPayload)).toEqual({ width: 1200, height: 630 });
  });

  it("sends a chosen size and theme=none when 'use my theme' is off", async () => {
    const square = await preview({ template: 'blog', title: 'Hi', size: 'square', useTheme: 'on' });
    expect(square.statusCode, square.body).toBe(200);
    expect(square.json()).toMatchObject({ width: 1080, height: 1080 });
    expect(square.json().previewUrl).toMatch(/^\/render\/template\?template=blog&title=Hi&size=square&kid=/);
    const squareCard = await app.inject({ method: 'GET', url: square.json().previewUrl });
    expect(pngSize(squareCard.rawPayload)).toEqual({ width: 1080, height: 1080 });
    // The form sends the hidden "off" before the box: unticked, only "off" arrives.
    const plain = await preview({ template: 'blog', title: 'Hi', size: 'og', useTheme: 'off' });
    expect(plain.statusCode, plain.body).toBe(200);
    expect(plain.json().previewUrl).toMatch(/^\/render\/template\?template=blog&title=Hi&theme=none&kid=/);
    // Ticked and at the default size: the same request as ever.
    const themed = await preview({ template: 'blog', title: 'Hi', size: 'og', useTheme: 'on' });
    expect(themed.statusCode).toBe(200);
    expect(themed.json().previewUrl).toMatch(/^\/render\/template\?template=blog&title=Hi&kid=/);
  });
});
