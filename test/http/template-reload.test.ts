import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaffoldTemplate } from '../../src/cli/templates/new.js';
import { where } from '../../src/render/template/files/errors.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { expectError } from '../helpers/errors.js';
import { pixelAt } from '../helpers/png.js';

// The custom-template path of a fresh install, on a real app with the default templates
// directory (data/templates/, absent at start) watched as `npm start` watches it.
let t: TestApp;
let dir: string;
beforeAll(async () => {
  t = await startTestApp();
  dir = path.join(t.config.dataDir, 'templates');
});
afterAll(async () => {
  await t?.close();
});

const get = (query: Record<string, string>) =>
  t.inject({ method: 'GET', url: `/render/template?${new URLSearchParams(query)}` });

/** A template drawing a plain background, so each version is told apart by its pixels. */
const design = (hex: string) => `import { defineTemplate, Text } from 'cardshot/template';
export default defineTemplate({
  description: 'Reload probe ${hex}',
  fields: { title: { type: 'text', required: true, maxLength: 40 } },
  render: (fields, { size }) => (
    <div style={{ width: size.width, height: size.height, display: 'flex', backgroundColor: '${hex}' }}>
      <Text box={{ face: 'sans-400', steps: [[40, 1]], width: 600, height: 60, lineHeight: 1.2 }} color="#FFFFFF">
        {fields.title}
      </Text>
    </div>
  ),
});
`;

/** Saves like `sed -i` and editors' "safe write": a temporary file in the same folder renamed over the old one. */
async function saveByRename(file: string, text: string): Promise<void> {
  const tmp = path.join(path.dirname(file), `.sed${Math.random().toString(36).slice(2)}`);
  await writeFile(tmp, text);
  await rename(tmp, file);
}

/** Waits until `count` log lines say exactly `message`. */
async function logged(message: string, count = 1): Promise<void> {
  // Generous: other test files load the 2 cores while this one waits for file events.
  for (let i = 0; i < 400; i++) {
    if (t.logs.filter((l) => l.msg === message).length >= count) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  const seen = t.logs.map((l) => String(l.msg)).filter((m) => m.startsWith('template'));
  throw new Error(`no log line "${message}" (×${count}); template lines: ${JSON.stringify(seen)}`);
}

describe('data/templates/ that does not exist when the server starts', () => {
  it('a template created after start by templates new is served without a restart, and logged', async () => {
    await expectError(
      await get({ template: 'event', title: 'Before' }),
      400,
      'template must be one of: blog, product, saas (got "event")',
    );
    const file = await scaffoldTemplate('event', dir);
    expect(file).toBe(path.join(dir, 'event.tsx'));
    await logged(`template "event" added from ${where(file)}`);
    const res = await get({ template: 'event', title: 'Launch day' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
  });

  it('every save by rename (sed -i, atomic safe write) is served with a new ETag and logged', async () => {
    const file = path.join(dir, 'event.tsx');
    const etags = new Set<string>([String((await get({ template: 'event', title: 'x' })).headers.etag)]);
    const colours: Array<[string, [number, number, number, number]]> = [
      ['#FF0000', [255, 0, 0, 255]],
      ['#00FF00', [0, 255, 0, 255]],
      ['#0000FF', [0, 0, 255, 255]],
    ];
    for (const [i, [hex, rgba]] of colours.entries()) {
      await saveByRename(file, design(hex));
      await logged(`template "event" reloaded from ${where(file)}`, i + 1);
      const res = await get({ template: 'event', title: 'x' });
      expect(res.statusCode).toBe(200);
      expect(await pixelAt(res.rawPayload, 5, 5), hex).toEqual(rgba);
      etags.add(String(res.headers.etag));
    }
    expect(etags.size).toBe(4);
    // The in-place write editors without safe write make is still seen after the renames.
    await writeFile(file, design('#FFFF00'));
    await logged(`template "event" reloaded from ${where(file)}`, 4);
    expect(await pixelAt((await get({ template: 'event', title: 'x' })).rawPayload, 5, 5)).toEqual([
      255, 255, 0, 255,
    ]);
  });

  it('a partial in a new subfolder is watched; removing the folder removes the template, and it comes back', async () => {
    const file = path.join(dir, 'event.tsx');
    const reloads = () =>
      t.logs.filter((l) => l.msg === `template "event" reloaded from ${where(file)}`).length;
    const before = reloads();
    await mkdir(path.join(dir, 'parts'));
    await writeFile(path.join(dir, 'parts', '_bg.ts'), "export const BG = '#123456';\n");
    await saveByRename(
      file,
      design('#000000')
        .replace("'#000000'", 'BG')
        .replace(
          "from 'cardshot/template';",
          "from 'cardshot/template';\nimport { BG } from './parts/_bg.js';",
        ),
    );
    await logged(`template "event" reloaded from ${where(file)}`, before + 1);
    expect(await pixelAt((await get({ template: 'event', title: 'x' })).rawPayload, 5, 5)).toEqual([
      0x12, 0x34, 0x56, 255,
    ]);
    await saveByRename(path.join(dir, 'parts', '_bg.ts'), "export const BG = '#654321';\n");
    await logged(`template "event" reloaded from ${where(file)}`, before + 2);
    expect(await pixelAt((await get({ template: 'event', title: 'x' })).rawPayload, 5, 5)).toEqual([
      0x65, 0x43, 0x21, 255,
    ]);

    const text = await readFile(file, 'utf8');
    await rm(dir, { recursive: true });
    await logged(`template "event" removed (${where(file)} is gone)`);
    await expectError(
      await get({ template: 'event', title: 'x' }),
      400,
      'template must be one of: blog, product, saas (got "event")',
    );
    await mkdir(path.join(dir, 'parts'), { recursive: true });
    await writeFile(path.join(dir, 'parts', '_bg.ts'), "export const BG = '#654321';\n");
    await writeFile(file, text);
    await logged(`template "event" added from ${where(file)}`, 2);
    expect((await get({ template: 'event', title: 'x' })).statusCode).toBe(200);
  });

  it('a templates folder moved away and made anew at once is watched anew: later edits are seen', async () => {
    const file = path.join(dir, 'event.tsx');
    const reloads = () =>
      t.logs.filter((l) => l.msg === `template "event" reloaded from ${where(file)}`).length;
    const before = reloads();
    // Within one debounce: the watch on the old folder's inode would keep reporting the old one.
    await rename(dir, `${dir}-old`);
    await mkdir(dir);
    await writeFile(file, design('#445566'));
    await logged(`template "event" reloaded from ${where(file)}`, before + 1);
    await saveByRename(file, design('#778899'));
    await logged(`template "event" reloaded from ${where(file)}`, before + 2);
    expect(await pixelAt((await get({ template: 'event', title: 'x' })).rawPayload, 5, 5)).toEqual([
      0x77, 0x88, 0x99, 255,
    ]);
    await rm(`${dir}-old`, { recursive: true, force: true });
  });
});
