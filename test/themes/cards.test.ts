import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { pixelAt } from '../helpers/png.js';

// The stored theme on real API cards: the theme service is the card route's ThemeSource.
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

const card = (query = '') =>
  t.inject({ method: 'GET', url: `/render/template?template=blog&title=Brand%20colours${query}` });

describe('a saved theme on the account’s cards', () => {
  it('draws the card in the theme, changes its ETag at once, and theme=none keeps the own look', async () => {
    const plain = await card();
    expect(plain.statusCode).toBe(200);
    const own = await pixelAt(plain.rawPayload, 5, 600);

    await t.modules.themes.set(t.account.id, { background: '#0B3D2E', text: '#FFFFFF', accent: '#FF5500' });
    const themed = await card();
    expect(themed.statusCode).toBe(200);
    expect(await pixelAt(themed.rawPayload, 5, 600)).toEqual([0x0b, 0x3d, 0x2e, 255]);
    expect(themed.headers.etag).not.toBe(plain.headers.etag);

    const none = await card('&theme=none');
    expect(none.headers.etag).toBe(plain.headers.etag);
    expect(await pixelAt(none.rawPayload, 5, 600)).toEqual(own);

    // A change on this node is on the next card (no TTL wait); a cleared theme gives the own look back.
    await t.modules.themes.set(t.account.id, { background: '#1E1B4B' });
    const changed = await card();
    expect(await pixelAt(changed.rawPayload, 5, 600)).toEqual([0x1e, 0x1b, 0x4b, 255]);
    expect(changed.headers.etag).not.toBe(themed.headers.etag);
    await t.modules.themes.clear(t.account.id);
    expect((await card()).headers.etag).toBe(plain.headers.etag);
  });
});
