import { writeFile } from 'node:fs/promises';
import { type CheckResult, createTemplateChecker, formatResult } from '../../render/template/check.js';
import { augmentationModule, builtinTypesModule } from '../../render/template/client-types.js';
import type { TemplateDefinition, TemplateRegistry } from '../../render/template/types.js';
import { out, parseVerbArgs, report, table, UsageError } from '../admin.js';
import { scaffoldTemplate } from '../templates/new.js';
import { BUILTIN_NAMES, openTemplates } from '../templates/registry.js';

const HELP = `Template files: list them, check that their text fits, scaffold one, type them.

  npx cardshot templates list [--dir DIR] [--json]
  npx cardshot templates check [--dir DIR] [--template NAME] [--json]
      renders every template at every size it declares with short, long and multi-script text
      (Latin, CJK, Arabic, Devanagari, Thai, emoji) and reports any text that leaves its box;
      exit 1 on any problem
  npx cardshot templates new NAME [--dir DIR]
      writes DIR/NAME.tsx from the documented starter (a text and a colour field, every size)
  npx cardshot templates types [--dir DIR] [--out FILE]
      TypeScript types of your templates' fields for cardshot/client (a module augmentation)

DIR defaults to the templates directory (CARDSHOT_TEMPLATES_DIR, else templates/ in the data dir).`;

const OPTIONS = {
  dir: { type: 'string' },
  json: { type: 'boolean' },
  template: { type: 'string' },
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
    const registry = await openTemplates(values.dir);
    try {
      if (verb === 'list') return list(registry, values);
      if (verb === 'check') return await checkTemplates(registry, values);
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

function list(registry: TemplateRegistry, values: Values): number {
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
  out(values.json ?? false, { templates: json }, table(rows));
  return 0;
}

/** `templates check` over `registry`: prints the report, returns 1 when any text does not fit. */
export async function checkTemplates(
  registry: TemplateRegistry,
  values: { json?: boolean; template?: string },
): Promise<number> {
  const only = values.template;
  if (only !== undefined && !registry.get(only)) {
    throw new UsageError(`no template "${only}"; known: ${registry.names().join(', ')}`);
  }
  const checker = await createTemplateChecker();
  const results: CheckResult[] = only
    ? await checker.check(registry.get(only)!)
    : await checker.checkAll(registry);
  const failed = results.filter((r) => r.problems.length > 0);
  const templates = new Set(results.map((r) => r.template)).size;
  const summary = `${templates} template${templates === 1 ? '' : 's'}, ${results.length} checks: ${
    failed.length === 0 ? 'all text fits' : `${failed.length} with problems`
  }`;
  out(
    values.json ?? false,
    { ok: failed.length === 0, results },
    [...results.flatMap(formatResult), '', summary].join('\n'),
  );
  return failed.length === 0 ? 0 : 1;
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
