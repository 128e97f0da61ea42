import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseShotArgs } from '../../src/cli/shot/args.js';
import { cliFlag, SHOT_OPTIONS } from '../../src/render/screenshot/option-table.js';

// `npx cardshot shot` flags for every option of the table (issue 29 §5: the CLI gains them):
// each help example turns into its option, and the flags that differ from a plain value.

const refused = (argv: string[]) => {
  try {
    parseShotArgs(argv);
  } catch (err) {
    expect((err as Error).constructor.name).toBe('UsageError');
    return (err as Error).message;
  }
  throw new Error(`expected ${argv.join(' ')} to be refused`);
};

describe('shot flags of every option', () => {
  it('has a flag for every option of the table: its help example turns into that option', () => {
    /** A shell line's words (single quotes only, as the examples use). */
    const words = (line: string) => [...line.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]!);
    for (const spec of SHOT_OPTIONS) {
      const flag = words(spec.cli.example);
      expect(flag[0], spec.name).toBe(`--${cliFlag(spec)}`);
      // An option of one format only is given with that format; quality with a lossy one.
      const format =
        'only' in spec && spec.only === 'pdf'
          ? ['--pdf']
          : spec.name === 'quality'
            ? ['--format', 'webp']
            : [];
      const args = parseShotArgs(['https://example.com/', ...format, ...flag]);
      expect(Object.keys(args.options), spec.name).toContain(spec.name);
    }
  });

  it('--pdf, --scale for a PDF, --css @file, --clip, --response json and the reader options (issue 29)', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'cardshot-shot-css-'));
    const css = path.join(dir, 'print.css');
    writeFileSync(css, '.chat { display: none }\n');
    const args = parseShotArgs([
      'https://example.com/invoice',
      '--pdf',
      '--scale',
      '0.5',
      '--landscape',
      '--margin',
      '1cm 2cm',
      '--page-ranges',
      '1-3',
      '--media',
      'screen',
      '--css',
      `@${css}`,
      '--timezone',
      'Europe/Berlin',
      '--reduced-motion',
    ]);
    expect(args.format).toBe('pdf');
    expect(args.target).toEqual({
      kind: 'one',
      url: 'https://example.com/invoice',
      output: 'example.com.pdf',
    });
    expect(args.options).toEqual({
      format: 'pdf',
      scale: 0.5,
      landscape: true,
      margin: '1cm 2cm',
      pageRanges: '1-3',
      media: 'screen',
      css: '.chat { display: none }\n',
      timezone: 'Europe/Berlin',
      reducedMotion: true,
    });
    const json = parseShotArgs(['https://example.com/', '--clip', '0,0,600,400', '--response', 'json']);
    expect(json.options).toEqual({ clip: '0,0,600,400', response: 'json' });
    expect(json.target).toEqual({ kind: 'one', url: 'https://example.com/', output: 'example.com.json' });
    expect(refused(['https://example.com/', '--pdf', '--format', 'webp'])).toBe(
      '--pdf and --format webp disagree: give one of them',
    );
    expect(refused(['https://example.com/', '--css', '@/nonexistent/x.css'])).toBe(
      '--css @/nonexistent/x.css: cannot read it (ENOENT)',
    );
    expect(refused(['https://example.com/', '--pdf', '--scale', 'big'])).toBe(
      '--scale must be a number (got "big")',
    );
    // An image's scale is still the device scale factor.
    expect(refused(['https://example.com/', '--scale', '0.5'])).toBe('--scale must be 1, 2 or 3 (got "0.5")');
  });
});
