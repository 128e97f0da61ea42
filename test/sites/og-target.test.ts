import { describe, expect, it } from 'vitest';
import { pageUrl } from '../../src/sites/og/target.js';

// The page an /og path names: always on the site's origin, whatever the path holds.
describe('pageUrl', () => {
  const origin = 'https://blog.example.com';

  it('appends the path and query to the origin', () => {
    expect(pageUrl(origin, '')).toBe('https://blog.example.com/');
    expect(pageUrl(origin, '/')).toBe('https://blog.example.com/');
    expect(pageUrl(origin, '?lang=en')).toBe('https://blog.example.com/?lang=en');
    expect(pageUrl(origin, '/blog/post-1?lang=en#top')).toBe('https://blog.example.com/blog/post-1?lang=en');
  });

  it('keeps host-looking paths on the origin', () => {
    for (const [rest, href] of [
      ['//evil.example/x', 'https://blog.example.com//evil.example/x'],
      ['/@evil.example', 'https://blog.example.com/@evil.example'],
      ['/../../x', 'https://blog.example.com/x'],
      ['/%2e%2e/%2e%2e/x', 'https://blog.example.com/x'],
      ['/..%2fx', 'https://blog.example.com/..%2fx'],
      ['/xn--bcher-kva.example', 'https://blog.example.com/xn--bcher-kva.example'],
      ['/bücher.example', 'https://blog.example.com/b%C3%BCcher.example'],
      ['/:@evil.example:443', 'https://blog.example.com/:@evil.example:443'],
    ]) {
      expect(pageUrl(origin, rest as string), rest).toBe(href);
    }
  });

  it('refuses backslashes, control characters and long paths', () => {
    for (const rest of [
      '/\\evil.example',
      '/%5Cx',
      '/%5cx',
      '/a%00',
      '/a\tb',
      `/${'a'.repeat(2048)}`,
      'noslash',
    ]) {
      expect(() => pageUrl(origin, rest), rest).toThrow();
    }
  });

  it('works on an IDN origin in its ASCII form', () => {
    expect(pageUrl(new URL('https://bücher.example').origin, '/x')).toBe('https://xn--bcher-kva.example/x');
  });
});
