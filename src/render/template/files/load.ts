import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { SourceMap } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';
import { withBag } from '../sdk/bag.js';
import * as sdk from '../sdk/index.js';
import * as jsxRuntime from '../sdk/jsx-runtime.js';
import { SIZES } from '../sizes.js';
import type {
  BuildContext,
  BuiltCard,
  FieldSpec,
  ImageSource,
  Node,
  TemplateDefinition,
  TemplateFields,
} from '../types.js';
import { type CompiledTemplate, compileTemplate, SDK, SDK_JSX } from './compile.js';
import { TemplateFileError, where } from './errors.js';
import {
  type CheckedDeclaration,
  checkDeclaration,
  DeclarationError,
  lineOf,
  TEMPLATE_NAME,
} from './validate.js';

/** The extensions a template file may have. */
export const TEMPLATE_EXTENSIONS = ['.tsx', '.jsx'];

/** The template name a file defines, or undefined for partials (`_*`) and other files. */
export function templateNameOf(file: string): string | undefined {
  const ext = path.extname(file);
  const base = path.basename(file, ext);
  if (!TEMPLATE_EXTENSIONS.includes(ext) || base.startsWith('_')) return undefined;
  return base;
}

/**
 * Loads one template file: compiled with its partials, evaluated outside Node's module cache (a
 * reload is fresh), its declaration checked and one card built per declared size with sample
 * text, so a template that throws is reported now rather than on its first request.
 */
export async function loadTemplateFile(file: string, dir: string): Promise<TemplateDefinition> {
  const name = templateNameOf(file) ?? '';
  if (!TEMPLATE_NAME.test(name)) {
    throw new TemplateFileError(
      file,
      `${where(file)}: a template's file name is its name: lower-case letters, digits and dashes, starting with a letter, at most 40 (a partial starts with _)`,
    );
  }
  const compiled = await compileTemplate(file, dir);
  const hash = await hashOf(compiled.inputs);
  const exported = evaluate(compiled, file);
  let decl: CheckedDeclaration;
  try {
    decl = checkDeclaration(exported);
  } catch (err) {
    if (!(err instanceof DeclarationError)) throw err;
    const at = lineOf(compiled.source, err.at);
    throw new TemplateFileError(file, `${where(file, at?.line, at?.column)}: ${err.message}`);
  }
  const def = definition(name, file, hash, decl, compiled);
  for (const size of def.sizes) {
    try {
      def.build(sampleFields(def), { size: SIZES[size] });
    } catch (wrapped) {
      const err = (wrapped as Error).cause ?? wrapped;
      const at = frameOf(err, compiled, file, dir);
      throw new TemplateFileError(
        file,
        `${at ?? where(file)}: render failed at size ${size} with sample text: ${(err as Error)?.message ?? err}`,
      );
    }
  }
  return def;
}

/** sha256 over every input's path (relative to the template) and bytes. */
async function hashOf(inputs: readonly string[]): Promise<string> {
  const h = createHash('sha256');
  for (const input of inputs) {
    h.update(path.basename(input))
      .update('\0')
      .update(await readFile(input))
      .update('\0');
  }
  return h.digest('hex').slice(0, 32);
}

/** Label of the evaluated bundle in stack traces, mapped back through the source map. */
const BUNDLE = 'cardshot-template-bundle:';

function evaluate(compiled: CompiledTemplate, file: string): unknown {
  const module = { exports: {} as Record<string, unknown> };
  const require = (id: string) => {
    if (id === SDK) return sdk;
    if (id === SDK_JSX) return jsxRuntime;
    throw new Error(`cannot import ${JSON.stringify(id)}`);
  };
  try {
    const fn = vm.runInThisContext(`(function (module, exports, require) {${compiled.code}\n})`, {
      filename: `${BUNDLE}${file}`,
    }) as (m: typeof module, e: unknown, r: typeof require) => void;
    fn(module, module.exports, require);
  } catch (err) {
    const at = frameOf(err, compiled, file, path.dirname(file));
    throw new TemplateFileError(file, `${at ?? where(file)}: ${(err as Error)?.message ?? err}`);
  }
  return module.exports.default;
}

/** The first stack frame inside the template's bundle, as `file:line:column` of its source. */
function frameOf(err: unknown, compiled: CompiledTemplate, file: string, dir: string): string | undefined {
  const stack = (err as Error)?.stack ?? '';
  const escaped = `${BUNDLE}${file}`.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp(`${escaped}:(\\d+):(\\d+)`).exec(stack);
  if (!m) return undefined;
  const entry = new SourceMap(compiled.sourceMap).findEntry(Number(m[1]) - 1, Number(m[2]) - 1) as {
    originalSource?: string;
    originalLine?: number;
    originalColumn?: number;
  };
  if (entry.originalSource === undefined || entry.originalLine === undefined) return undefined;
  const source = path.resolve(path.dirname(file), entry.originalSource.replace(/^file:\/\//, ''));
  const original = source.startsWith(dir) ? source : file;
  return where(original, entry.originalLine + 1, (entry.originalColumn ?? 0) + 1);
}

function definition(
  name: string,
  file: string,
  hash: string,
  decl: CheckedDeclaration,
  compiled: CompiledTemplate,
): TemplateDefinition {
  const dir = path.dirname(file);
  return {
    name,
    description: decl.description,
    fields: Object.freeze(decl.fields),
    sizes: Object.freeze(decl.sizes),
    uses: Object.freeze({ brand: decl.brand, artwork: decl.artworkSize !== undefined, theme: decl.theme }),
    ...(decl.artworkSize ? { artworkSize: decl.artworkSize } : {}),
    hash,
    source: file,
    build(fields: TemplateFields, ctx: BuildContext = { size: SIZES.og }): BuiltCard {
      // A template that throws for some input is a 500 like any bug; the log names its line.
      try {
        const { result, bag } = withBag(() => decl.render(fields as never, { ...ctx, size: ctx.size }), hash);
        return toBuilt(result, bag.list());
      } catch (err) {
        throw new Error(
          `${frameOf(err, compiled, file, dir) ?? where(file)}: ${(err as Error)?.message ?? err}`,
          {
            cause: err,
          },
        );
      }
    },
  };
}

/** The render's result as takumi's input: one root node and every image it references. */
function toBuilt(result: unknown, images: ImageSource[]): BuiltCard {
  if (typeof result === 'object' && result !== null && 'node' in result && 'images' in result) {
    const built = result as BuiltCard;
    const seen = new Set(images.map((i) => i.src));
    return { node: built.node, images: [...images, ...built.images.filter((i) => !seen.has(i.src))] };
  }
  const nodes = jsxRuntime.flatten(result as jsxRuntime.Child);
  if (nodes.length !== 1) {
    throw new Error(
      `render must return one root element (got ${nodes.length === 0 ? 'nothing' : `${nodes.length}`})`,
    );
  }
  return { node: nodes[0] as Node, images };
}

/** Values that pass every declared check: what the load-time build draws. */
export function sampleFields(def: Pick<TemplateDefinition, 'fields' | 'uses'>): TemplateFields {
  const out: TemplateFields = {};
  for (const [name, spec] of Object.entries(def.fields)) out[name] = sampleValue(spec);
  if (def.uses.brand) out.brand = 'Cardshot';
  return out;
}

function sampleValue(spec: FieldSpec): string | number {
  if (spec.default !== undefined) return spec.default;
  switch (spec.type) {
    case 'text':
      return [...'Sample text for a card 🚀'].slice(0, spec.maxLength).join('');
    case 'color':
      return '#336699';
    case 'number':
      return spec.min;
    case 'choice':
      return spec.options[0]!;
  }
}
