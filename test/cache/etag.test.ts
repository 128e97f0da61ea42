import { describe, expect, it } from 'vitest';
import { etagMatches } from '../../src/cache/etag.js';

describe('If-None-Match', () => {
  it('matches the tag weakly, in a list, or any tag for *', () => {
    expect(etagMatches('"abc"', 'abc')).toBe(true);
    expect(etagMatches('W/"abc"', 'abc')).toBe(true);
    expect(etagMatches(' "x", W/"abc" ,"y"', 'abc')).toBe(true);
    expect(etagMatches(' * ', 'abc')).toBe(true);
  });

  it('does not match another tag, a bare token or a prefix', () => {
    expect(etagMatches('"abd"', 'abc')).toBe(false);
    expect(etagMatches('abc', 'abc')).toBe(false);
    expect(etagMatches('"ab"', 'abc')).toBe(false);
    expect(etagMatches('"*"', 'abc')).toBe(false);
    expect(etagMatches('', 'abc')).toBe(false);
  });
});
