import { readFile } from 'node:fs/promises';
import type { SourceMapPayload } from 'node:module';
import path from 'node:path';
import { build, type Message, type Plugin } from 'esbuild';
import { TemplateFileError, where } from './errors.js';

/** The SDK's specifiers; everything else a template imports must be a file beside it. */
export const SDK = 'cardshot/template';
export const SDK_JSX = 'cardshot/template/jsx-runtime';

/** Images a template may import as bytes (`import logo from './logo.png'` gives a Uint8Array). */
const BINARY = {
  '.png': 'binary',
  '.jpg': 'binary',
  '.jpeg': 'binary',
  '.webp': 'binary',
  '.svg': 'binary',
} as const;

/** A template file bundled with its partials, ready to evaluate. */
export interface CompiledTemplate {
  /** CommonJS: `module.exports.default` is the declaration; requires only the SDK. */
  code: string;
  /** Absolute paths of the file and every file it imports, sorted (the content hash covers them). */
  inputs: string[];
  /** The template file's own text, to find a declaration key's line. */
  source: string;
  /** Maps the bundle's lines back to the files (for a render that throws). */
  sourceMap: SourceMapPayload;
}

/**
 * Compiles one template file with esbuild (TSX/JSX, types stripped, relative imports bundled).
 * Imports outside the templates directory, packages and Node built-ins are refused: a template
 * draws with the SDK and its own files only.
 */
export async function compileTemplate(file: string, dir: string): Promise<CompiledTemplate> {
  const source = await readFile(file, 'utf8');
  try {
    const out = await build({
      entryPoints: [file],
      bundle: true,
      write: false,
      format: 'cjs',
      platform: 'neutral',
      target: 'node20',
      jsx: 'automatic',
      jsxImportSource: SDK,
      loader: { ...BINARY, '.ts': 'ts', '.tsx': 'tsx', '.js': 'jsx', '.jsx': 'jsx' },
      resolveExtensions: ['.tsx', '.ts', '.jsx', '.js'],
      logLevel: 'silent',
      metafile: true,
      sourcemap: 'external',
      // Never written (write: false); names the bundle so the source map's paths are relative to dir.
      outfile: path.join(dir, '.cardshot-bundle.js'),
      plugins: [confine(dir)],
      absWorkingDir: dir,
    });
    keepStdioNonBlocking();
    const inputs = Object.keys(out.metafile.inputs)
      .map((p) => path.resolve(dir, p))
      .sort();
    const code = out.outputFiles.find((f) => f.path.endsWith('.js'))!.text;
    const map = out.outputFiles.find((f) => f.path.endsWith('.map'))!.text;
    return { code, inputs, source, sourceMap: JSON.parse(map) as SourceMapPayload };
  } catch (err) {
    const first = (err as { errors?: Message[] }).errors?.[0];
    if (!first) throw err;
    const loc = first.location;
    const at = loc ? where(path.resolve(dir, loc.file), loc.line, loc.column + 1) : where(file);
    throw new TemplateFileError(file, `${at}: ${first.text}`);
  }
}

/**
 * esbuild runs as one service process, started by the first build with stderr inherited. libuv
 * makes a child's fds 0–2 blocking, and that flag belongs to the pipe both processes share: the
 * server's stdout (the same pipe under `2>&1`, as in Docker or `node … | logger`) would turn
 * blocking too, and a log reader that stops reading would stop the server on its next line
 * instead of queuing it (src/lib/log-destination.ts). A pipe or socket is set back to
 * non-blocking, as Node opened it; a TTY or a file is left alone.
 */
function keepStdioNonBlocking(): void {
  for (const stream of [process.stdout, process.stderr]) {
    if (stream.isTTY) continue;
    const handle = (stream as unknown as { _handle?: { setBlocking?: (blocking: boolean) => number } })
      ._handle;
    handle?.setBlocking?.(false);
  }
}

/** Keeps imports to the SDK (left to the evaluator) and files inside `dir`. */
function confine(dir: string): Plugin {
  const root = path.resolve(dir);
  return {
    name: 'cardshot-confine',
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind === 'entry-point') return undefined;
        if (args.path === SDK || args.path === SDK_JSX) return { path: args.path, external: true };
        if (!args.path.startsWith('./') && !args.path.startsWith('../')) {
          return {
            errors: [
              {
                text: `cannot import "${args.path}": a template imports only "${SDK}" and files beside it (./_partial.js)`,
              },
            ],
          };
        }
        const target = path.resolve(args.resolveDir, args.path);
        if (target !== root && !target.startsWith(`${root}${path.sep}`)) {
          return {
            errors: [{ text: `cannot import "${args.path}": it is outside the templates directory` }],
          };
        }
        return undefined;
      });
    },
  };
}
