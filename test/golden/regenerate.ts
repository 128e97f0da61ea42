import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createTemplateRenderer, type TemplateRenderer } from '../../src/render/template/renderer.js';
import { SIZES } from '../../src/render/template/sizes.js';
import { TEMPLATE_NAMES, TEMPLATES } from '../helpers/builtins.js';
import { caseContext, caseFields, goldenCases, goldenPath, repoRoot } from './cases.js';
import { SHOWCASE_COPY, showcaseArtwork } from './showcase.js';

/**
 * Rewrites every golden image and the README pictures. Run `npm run golden` (compiled to
 * dist/test/golden/regenerate.js) or `UPDATE_GOLDEN=1 npx vitest run test/render/template/golden.test.ts`
 * after a deliberate visual change to a template file (its ETags follow the file's content hash),
 * and review the PNGs.
 */
export async function regenerateGoldens(renderer: TemplateRenderer): Promise<string[]> {
  const written: string[] = [];
  for (const c of goldenCases()) {
    const ctx = await caseContext(c);
    const { png } = await renderer.render(c.template, await caseFields(c.template, c.name, ctx.size), {
      ctx,
    });
    const path = goldenPath(c.template, c.name, c.size, c.themed);
    writeFileSync(path, png);
    written.push(path);
  }
  const docs = join(repoRoot(), 'docs', 'img', 'templates');
  mkdirSync(docs, { recursive: true });
  for (const template of TEMPLATE_NAMES) {
    // The README shows each template at its best: short copy, brand, and artwork where drawn,
    // with an illustration instead of the plain test gradient.
    const def = TEMPLATES[template];
    const fields = {
      ...(await caseFields(template, def.uses.artwork ? 'artwork' : 'short')),
      ...SHOWCASE_COPY[template],
    };
    // og as `<name>.png`; square and story beside it, for the README's sizes row.
    for (const size of [SIZES.og, SIZES.square, SIZES.story]) {
      const artSize = def.artworkSize?.(size);
      const art = artSize ? await showcaseArtwork(template, artSize.width, artSize.height) : undefined;
      const { png } = await renderer.render(template, art ? { ...fields, artwork: art } : fields, {
        ctx: { size },
      });
      const path = join(docs, size === SIZES.og ? `${template}.png` : `${template}-${size.name}.png`);
      writeFileSync(path, png);
      written.push(path);
    }
  }
  return written;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const renderer = await createTemplateRenderer();
  const written = await regenerateGoldens(renderer);
  await renderer.close();
  for (const path of written) console.log(`wrote ${path}`);
}
