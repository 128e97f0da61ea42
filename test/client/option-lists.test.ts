import { describe, expect, it } from 'vitest';
import { SCREENSHOT_PARAMS } from '../../src/client/options.js';
import { SHOT_OPTION_FIELDS } from '../../src/dashboard/screenshot-playground.js';
import { CREDENTIAL_FIELDS } from '../../src/render/screenshot/credentials.js';
import { OPTION_NAMES } from '../../src/render/screenshot/option-names.js';

/** The options a URL may carry: all but the credentials, which only a POST body takes. */
const URL_OPTIONS = OPTION_NAMES.filter((n) => !(CREDENTIAL_FIELDS as readonly string[]).includes(n));

// The client keeps its own list so it imports no server code; the playground orders its form
// its own way. Both must still name exactly the options the server parses.
describe('screenshot option lists', () => {
  it('the client sends exactly the options the server knows, after url, viewport and waitUntil', () => {
    expect(SCREENSHOT_PARAMS).toEqual(['url', 'viewport', 'waitUntil', ...URL_OPTIONS]);
  });

  // Its previews are signed GET URLs, which cannot carry credentials.
  it('the dashboard playground offers every option a URL may carry, and no other', () => {
    expect([...SHOT_OPTION_FIELDS].sort()).toEqual([...URL_OPTIONS].sort());
  });
});
