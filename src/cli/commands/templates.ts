import { writeFile } from 'node:fs/promises';
import { augmentationModule, builtinTypesModule } from '../../render/template/client-types.js';
import type { TemplateDefinition, TemplateRegistry } from '../../render/template/types.js';
import { out, parseVerbArgs, report, table, UsageError } from '../admin.js';
import { checkTemplates } from '../templates/check.js';
import { scaffoldTemplate } from '../templates/new.js';
import { type BrokenTemplate, BUILTIN_NAMES, openTemplates } from '../templates/registry.js';

const HELP = `Template files: list them, check that their text fits, scaffold one, type them.

  npx cardshot templates list [--dir DIR] [--json]
  npx cardshot templates check [--dir DIR] [--template NAME] [--font FILE|FAMILY] [--json]
      renders every template at every size it declares with short, long and multi-script text
      (Latin, CJK, Arabic, Devanagari, Thai, emoji) and reports any text that leaves its box;
      exit 1 on any problem. --font (a font file, or a family in DIR/fonts) also lists the
      sample characters that font lacks (the bundled Noto families draw them instead)
  npx cardshot templates new NAME [--dir DIR]
      writes DIR/NAME.tsx from the documented starter (a text and a colour field, every size)
  npx cardshot templates types [--dir DIR] [--out FILE]
      TypeScript types of your templates' fields for cardshot/client (a module augmentation)

DIR defaults to the templates directory (CARDSHOT_TEMPLATES_DIR, else templates/ in the data dir).`;

const OPTIONS = {
  dir: { type: 'string' },
  json: { type: 'boolean' },
  template: { type: 'string' },
  font: { type: 'string' },
  out: { type: 'string' },
  builtins: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parseVerbArgs<typeof OPTIONS>>['values'];

/** `cardshot templates <list|check|new|types>`. */
export async function runTemplates(argv: string[]): Promise<number> {
  try {
    const { values, positionals } = parseVerbArgs(argv, OPTIONS);
    const [verb, ...rest] = positionals;
    if (values.help || verb === undefined) {
      process.stdout.write(`${HELP}\n`);
      return values.help ? 0 : 2;
    }
    if (verb === 'new') return await scaffold(rest, values);
    if (rest.length > 0) throw new UsageError(`unexpected argument "${rest[0]}"`);
    if (verb !== 'list' && verb !== 'check' && verb !== 'types') {
      throw new UsageError(`unknown subcommand "${verb}"; use list, check, new or types`);
    }
    const { registry, broken } = await openTemplates(values.dir);
    try {
      if (verb === 'list') return list(registry, broken, values);
      if (verb === 'check') return await checkTemplates(registry, values, broken);
      warnBroken(broken);
      return await types(registry, values);
    } finally {
      await registry.close();
    }
  } catch (err) {
    return report('templates', HELP, err);
  }
}

function draws(def: TemplateDefinition): string {
  const uses = [def.uses.brand && 'brand', def.uses.artwork && 'imageUrl', def.uses.theme && 'theme'];
  return uses.filter(Boolean).join(', ') || '-';
}

/** Files left out, one line each on stderr: the commands that read the rest still say so. */
function warnBroken(broken: readonly BrokenTemplate[]): void {
  for (const b of broken) {
    process.stderr.write(`cardshot templates: left out, does not load: ${b.message}\n`);
  }
}

function list(registry: TemplateRegistry, broken: readonly BrokenTemplate[], values: Values): number {
  warnBroken(broken);
  const defs = registry.list();
  const json = defs.map((d) => ({
    name: d.name,
    description: d.description,
    sizes: d.sizes,
    fields: d.fields,
    uses: d.uses,
    source: d.source,
  }));
  const rows = [['NAME', 'SIZES', 'FIELDS', 'DRAWS', 'SOURCE']];
  for (const d of defs) {
    const fields = Object.entries(d.fields).map(([n, f]) => `${n}${f.required ? '' : '?'}:${f.type}`);
    rows.push([d.name, d.sizes.join(','), fields.join(' '), draws(d), d.source]);
  }
  out(values.json ?? false, { templates: json, broken }, table(rows));
  return 0;
}

async function types(registry: TemplateRegistry, values: Values): Promise<number> {
  const text = values.builtins
    ? builtinTypesModule(registry, BUILTIN_NAMES)
    : augmentationModule(registry, BUILTIN_NAMES);
  if (values.out === undefined) {
    process.stdout.write(text);
    return 0;
  }
  await writeFile(values.out, text);
  process.stdout.write(`${values.out}: types for ${registry.names().length} templates\n`);
  return 0;
}

async function scaffold(rest: string[], values: Values): Promise<number> {
  const [name, extra] = rest;
  if (name === undefined) throw new UsageError('templates new needs a NAME, e.g. templates new event');
  if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`);
  const file = await scaffoldTemplate(name, values.dir);
  process.stdout.write(
    `${file}: created from the starter. Edit it, then run \`npx cardshot templates check\`.\n`,
  );
  return 0;
}
