import { describe, expect, it } from 'vitest';
import { maskUrl } from '../../src/doctor/finding.js';

describe('maskUrl (cardshot config and doctor)', () => {
  it('masks the password in the user part', () => {
    expect(maskUrl('postgres://cards:hunter2@db.internal:5432/cards')).toBe(
      'postgres://cards:****@db.internal:5432/cards',
    );
  });

  it('masks credentials given as query parameters, which pg and ioredis also read', () => {
    expect(maskUrl('postgres://u@127.0.0.1:5432/db?password=hunter3&sslmode=require')).toBe(
      'postgres://u@127.0.0.1:5432/db?password=****&sslmode=require',
    );
    expect(maskUrl('redis://127.0.0.1:6379/0?password=rq')).toBe('redis://127.0.0.1:6379/0?password=****');
    expect(maskUrl('rediss://h:6380/?db=2&authToken=abc&Password=x')).toBe(
      'rediss://h:6380/?db=2&authToken=****&Password=****',
    );
  });

  it('leaves a URL without credentials as it was', () => {
    expect(maskUrl('redis://127.0.0.1:6379/15')).toBe('redis://127.0.0.1:6379/15');
  });
});
