import { describe, expect, it } from 'vitest';
import { SCREENSHOT_PARAMS } from '../../src/client/options.js';
import { SHOT_OPTION_FIELDS } from '../../src/dashboard/screenshot-playground.js';
import { OPTION_NAMES } from '../../src/render/screenshot/option-names.js';

// The client keeps its own list so it imports no server code; the playground orders its form
// its own way. Both must still name exactly the options the server parses.
describe('screenshot option lists', () => {
  it('the client sends exactly the options the server knows, after url, viewport and waitUntil', () => {
    expect(SCREENSHOT_PARAMS).toEqual(['url', 'viewport', 'waitUntil', ...OPTION_NAMES]);
  });

  it('the dashboard playground offers every option the server knows, and no other', () => {
    expect([...SHOT_OPTION_FIELDS].sort()).toEqual([...OPTION_NAMES].sort());
  });
});
