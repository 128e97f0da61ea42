import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type FontFormat, FontRejected, sniffFont } from './sniff.js';

/** What a font is, once checked: enough to store it, name it and lay text out with it. */
export interface FontInfo {
  format: FontFormat;
  /** The family name the font gives itself (preferred family, else family). */
  family: string;
  subfamily: string;
  glyphs: number;
  /** Its weight (a variable font's default instance). */
  weight: number;
  /** [min, max]: equal for a static font, the `wght` axis for a variable one. */
  weightRange: [number, number];
  italic: boolean;
  /** Variation axes (`wght`, `opsz`, …); empty for a static font. */
  axes: string[];
  /** Mapped code points (up to U+2FFFF), ascending, and their advances in thousandths of an em. */
  codePoints: Uint32Array;
  widths: Uint16Array;
  /** A variable font's width at 400 and 800 over its default instance's, measured by takumi. */
  scales: Record<number, number>;
}

/** Limits of one check. */
export interface ProbeLimits {
  maxGlyphs: number;
  /** Wall time for parsing and drawing; a font past it is refused. */
  timeoutMs: number;
  /** The child's JS heap; a parser bomb runs out of it and the font is refused. */
  heapMb: number;
}

export const PROBE_DEFAULTS: ProbeLimits = { maxGlyphs: 50_000, timeoutMs: 15_000, heapMb: 256 };

/**
 * Checks `file` as hostile input: the header by arithmetic (sniff.ts), then fontkit and takumi in
 * a child process with a capped heap and a time limit. Resolves with what the font is; rejects
 * with FontRejected (the reason for the 400) or, for a fault of the server, another error.
 */
export async function probeFont(file: Buffer, limits: ProbeLimits = PROBE_DEFAULTS): Promise<FontInfo> {
  const { format } = sniffFont(file);
  const result = await runChild(file, limits);
  if (!result.ok) throw new FontRejected(result.reason);
  const info = result.info;
  return {
    ...info,
    format,
    codePoints: Uint32Array.from(info.codePoints),
    widths: new Uint16Array(info.widths),
  } as FontInfo;
}

type ChildResult =
  | { ok: true; info: Omit<FontInfo, 'format' | 'codePoints'> & { codePoints: number[] } }
  | { ok: false; reason: string };

/** The child's file beside this one: compiled .js in a build, the .ts source under the tests. */
function childPath(): string {
  const js = fileURLToPath(new URL('./probe-child.js', import.meta.url));
  return existsSync(js) ? js : fileURLToPath(new URL('./probe-child.ts', import.meta.url));
}

function runChild(file: Buffer, limits: ProbeLimits): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = fork(childPath(), [], {
      // Structured clone: the font's bytes travel as bytes, not as JSON numbers.
      serialization: 'advanced',
      execArgv: [`--max-old-space-size=${limits.heapMb}`],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString('utf8');
    });
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (child.exitCode === null) child.kill('SIGKILL');
      fn();
    };
    const timer = setTimeout(
      () =>
        settle(() =>
          resolve({ ok: false, reason: `the font took longer than ${limits.timeoutMs / 1000} s to check` }),
        ),
      limits.timeoutMs,
    );
    child.on('message', (msg: ChildResult) => settle(() => resolve(msg)));
    child.on('error', (err) => settle(() => reject(err)));
    child.on('exit', (code, signal) =>
      settle(() => {
        if (/heap out of memory|Allocation failed/i.test(stderr)) {
          resolve({ ok: false, reason: `the font needs more than ${limits.heapMb} MB to check` });
        } else if (signal !== null || /panicked/.test(stderr)) {
          // The renderer aborted on the font: exactly what this process exists to absorb.
          resolve({ ok: false, reason: 'the renderer crashed drawing the font (a damaged glyph table?)' });
        } else {
          reject(new Error(`font check exited with code ${code} before answering: ${stderr.slice(0, 500)}`));
        }
      }),
    );
    child.send({ data: new Uint8Array(file), maxGlyphs: limits.maxGlyphs });
  });
}

export { FontRejected };
