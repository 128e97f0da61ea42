import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hostName, objectKey, parsePrefix, parseTemplate } from '../../src/delivery/paths.js';

// Object keys: placeholder values never add a path segment or climb out of the prefix.
describe('objectKey', () => {
  it('fills the placeholders', () => {
    expect(
      objectKey('cards/', '{job}/{index}-{name}.{ext}', { job: 'job_1', index: 3, name: 'blog', ext: 'png' }),
    ).toBe('cards/job_1/3-blog.png');
    expect(objectKey('', '{date}/{id}.{ext}', { date: '2026-11-28', id: 'req_abc', ext: 'webp' })).toBe(
      '2026-11-28/req_abc.webp',
    );
  });

  it('keeps any value inside one segment of the prefix', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (name, id) => {
        const key = objectKey('p/', '{name}/{id}.{ext}', { name, id, ext: 'png' });
        const segments = key.split('/');
        expect(segments).toHaveLength(3);
        expect(segments[0]).toBe('p');
        for (const s of segments) expect(s === '' || s === '.' || s === '..').toBe(false);
        expect(key).toMatch(/^[A-Za-z0-9_./-]+$/);
      }),
    );
    expect(objectKey('p/', '{name}.{ext}', { name: '../../etc/passwd', ext: 'png' })).toBe(
      'p/etc-passwd.png',
    );
  });

  it('keeps an id exactly, a trailing dash too: two ids never share a key', () => {
    // base64url ids end in "-" one time in 64: such a job's objects once went under the id
    // without it (seen in CI as a job whose four objects were not under `<prefix>/<id>/`).
    expect(
      objectKey('slow/', '{job}/{index}-{name}.{ext}', {
        job: 'job_hZfACEIk1DKHgJV-',
        index: 0,
        name: 'blog',
        ext: 'png',
      }),
    ).toBe('slow/job_hZfACEIk1DKHgJV-/0-blog.png');
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9_-]{16}$/), (tail) => {
        const id = `job_${tail}`;
        expect(objectKey('p/', '{job}/{index}.{ext}', { job: id, index: 1, ext: 'png' })).toBe(
          `p/${id}/1.png`,
        );
      }),
    );
    // Values that are not already safe are still reduced and tidied.
    expect(objectKey('p/', '{name}.{ext}', { name: 'My Card!', ext: 'png' })).toBe('p/My-Card.png');
    expect(objectKey('p/', '{name}.{ext}', { name: '-x', ext: 'png' })).toBe('p/x.png');
  });

  it('names a page by its host', () => {
    expect(hostName('https://Example.com:8443/a?b')).toBe('example.com');
    expect(hostName('http://[::1]/')).toBe('::1');
  });
});

describe('prefix and template checks', () => {
  it('normalises a prefix and refuses unsafe ones', () => {
    expect(parsePrefix('cards')).toBe('cards/');
    expect(parsePrefix(undefined)).toBe('');
    expect(() => parsePrefix('a//b')).toThrow('prefix must not hold empty, "." or ".." path segments');
    expect(() => parsePrefix('/abs')).toThrow('prefix must not start with "/"');
    expect(() => parsePrefix('a b')).toThrow(/^prefix may hold only letters/);
  });

  it('refuses a template ending in / and unknown placeholders', () => {
    expect(() => parseTemplate('{job}/', 'pathTemplate', 'job')).toThrow(
      'pathTemplate must end with a file name, not "/"',
    );
    expect(parseTemplate(undefined, 'syncPathTemplate', 'sync')).toBe('{date}/{id}.{ext}');
  });
});
