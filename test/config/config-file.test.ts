import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/settings.js';

// A typo in cardshot.config.json stops the start, like a bad value; these check it names the
// key that was meant, as a misspelt request field or environment variable does.

const dir = mkdtempSync(path.join(os.tmpdir(), 'cardshot-config-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The message loadConfig stops with for a config file holding `values`. */
function refusal(values: Record<string, unknown>): string {
  const file = path.join(dir, `c-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(values));
  try {
    loadConfig({}, { CARDSHOT_CONFIG: file });
  } catch (err) {
    return (err as Error).message.replace(file, 'FILE');
  }
  throw new Error('the config file was accepted');
}

describe('an unknown key in the config file', () => {
  it('names the closest setting: a slip, a case or separator change, or the environment name', () => {
    expect(refusal({ dataDri: './d' })).toBe('FILE: unknown setting "dataDri" (did you mean "dataDir"?)');
    expect(refusal({ datadir: './d' })).toBe('FILE: unknown setting "datadir" (did you mean "dataDir"?)');
    expect(refusal({ data_dir: './d' })).toBe('FILE: unknown setting "data_dir" (did you mean "dataDir"?)');
    expect(refusal({ CARDSHOT_DATA_DIR: './d' })).toBe(
      'FILE: unknown setting "CARDSHOT_DATA_DIR" (did you mean "dataDir"?)',
    );
    expect(refusal({ PORT: 4000 })).toBe('FILE: unknown setting "PORT" (did you mean "port"?)');
    expect(refusal({ databseUrl: '' })).toBe(
      'FILE: unknown setting "databseUrl" (did you mean "databaseUrl"?)',
    );
  });

  it('suggests nothing for a key that is no near miss', () => {
    expect(refusal({ port: 4000, colour: 'blue' })).toBe('FILE: unknown setting "colour"');
  });

  it('a file of known keys loads, and its values apply', () => {
    const file = path.join(dir, 'good.json');
    writeFileSync(file, JSON.stringify({ port: 4000, dataDir: './elsewhere' }));
    const c = loadConfig({}, { CARDSHOT_CONFIG: file });
    expect(c.port).toBe(4000);
    expect(c.dataDir).toBe('./elsewhere');
  });
});
