import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { augmentationModule, builtinTypesModule } from '../../../src/render/template/client-types.js';
import { createStaticRegistry } from '../../../src/render/template/registry.js';
import type { TemplateDefinition } from '../../../src/render/template/types.js';
import { BUILTINS, TEMPLATE_NAMES, TEMPLATES } from '../../helpers/builtins.js';

const root = path.resolve(import.meta.dirname, '../../..');

/** A custom template as the file loader would give it: every field type. */
const event: TemplateDefinition = {
  ...TEMPLATES.blog,
  name: 'event',
  description: 'Meetup card.',
  fields: {
    headline: { type: 'text', required: true, maxLength: 80, description: 'The talk' },
    accent: { type: 'color', default: '#6366F1' },
    seats: { type: 'number', min: 1, max: 500, integer: true },
    layout: { type: 'choice', options: ['left', 'center'], default: 'left' },
  },
  sizes: ['og', 'square', 'story'],
  uses: { brand: false, artwork: false, theme: true },
  source: 'templates/event.tsx',
};

/** Type-checks `app` (with the augmentation beside it) against the client's sources. */
function typeCheck(dir: string, files: Record<string, string>): Promise<string[]> {
  return (async () => {
    for (const [name, text] of Object.entries(files)) await writeFile(path.join(dir, name), text);
    const program = ts.createProgram(
      Object.keys(files).map((f) => path.join(dir, f)),
      {
        strict: true,
        noEmit: true,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        target: ts.ScriptTarget.ES2022,
        skipLibCheck: true,
        types: [],
        // An app that installed Cardshot resolves `cardshot/client` to the client's types.
        baseUrl: dir,
        paths: { 'cardshot/client': [path.join(root, 'src/client/index.ts')] },
      },
    );
    return ts
      .getPreEmitDiagnostics(program)
      .map(
        (d) =>
          `${d.file ? path.basename(d.file.fileName) : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`,
      );
  })();
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-types-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('templates types: client types from the declarations', () => {
  it('the committed src/client/templates.generated.ts is what the generator writes for the built-ins', async () => {
    const committed = await readFile(path.join(root, 'src/client/templates.generated.ts'), 'utf8');
    // On a mismatch: npx cardshot templates types --builtins --out src/client/templates.generated.ts
    expect(committed).toBe(builtinTypesModule(BUILTINS, TEMPLATE_NAMES));
  });

  it("types an operator's custom template in their app through the augmentation", async () => {
    const registry = createStaticRegistry([...Object.values(TEMPLATES), event]);
    const augmentation = augmentationModule(registry, TEMPLATE_NAMES);
    expect(augmentation).toContain("declare module 'cardshot/client'");
    expect(augmentation).not.toMatch(/^\s+blog:/m);
    expect(augmentation).toContain("    layout?: 'left' | 'center';");
    expect(augmentation).toContain("    size?: 'og' | 'square' | 'story';");
    const good = `import { Cardshot } from 'cardshot/client';
const cs = new Cardshot({ baseUrl: 'https://cards.example.com' });
export const a = cs.renderTemplate({ template: 'event', headline: 'Hi', seats: 40, layout: 'center', size: 'story' });
export const b = cs.renderTemplate({ template: 'blog', title: 'Built-ins still typed' });
`;
    expect(await typeCheck(dir, { 'cardshot-templates.d.ts': augmentation, 'app.ts': good })).toEqual([]);

    const bad = `import { Cardshot } from 'cardshot/client';
const cs = new Cardshot({ baseUrl: 'https://cards.example.com' });
export const a = cs.renderTemplate({ template: 'event', headline: 'Hi', seats: 'forty' });
export const b = cs.renderTemplate({ template: 'event', headline: 'Hi', size: 'twitter' });
export const c = cs.renderTemplate({ template: 'event', title: 'Hi' });
`;
    const errors = await typeCheck(dir, { 'cardshot-templates.d.ts': augmentation, 'app.ts': bad });
    expect(errors).toHaveLength(3);
    expect(errors[0]).toContain("Type 'string' is not assignable to type 'number'");
    expect(errors[1]).toContain('"twitter"');
    expect(errors[2]).toMatch(/'title' does not exist|headline/);
  }, 60_000);
});
