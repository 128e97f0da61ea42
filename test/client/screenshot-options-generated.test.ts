import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  SHOT_TYPES_COMMAND,
  SHOT_TYPES_FILE,
  screenshotOptionsModule,
} from '../../src/render/screenshot/client-types.js';

const root = path.resolve(import.meta.dirname, '../..');

describe("the client's screenshot options, generated from the option table", () => {
  it('the committed module is what the generator writes (regenerate with the command in its header)', async () => {
    const committed = await readFile(path.join(root, SHOT_TYPES_FILE), 'utf8');
    expect(committed.split('\n')[0]).toContain(SHOT_TYPES_COMMAND);
    expect(committed).toBe(screenshotOptionsModule());
  });
});
