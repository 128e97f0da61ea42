import { describe, expect, it } from 'vitest';
import { startArea } from '../../src/area.js';
import { createCloser } from '../../src/lib/closer.js';
import { capturedLogger } from '../helpers/logs.js';

/** A part that records when it is closed, and fails or never settles when told to. */
function part(closed: string[], name: string, how: 'ok' | 'fails' = 'ok') {
  return async () => {
    closed.push(name);
    if (how === 'fails') throw new Error(`${name} would not close`);
  };
}

describe('closing parts', () => {
  it('closes in reverse start order; one failing close is logged and the rest still close', async () => {
    const { log, lines } = capturedLogger();
    const closed: string[] = [];
    const parts = createCloser(log);
    parts.add('database', part(closed, 'database'));
    parts.add('redis', part(closed, 'redis', 'fails'));
    parts.add('cache', part(closed, 'cache'));
    await expect(parts.close()).resolves.toBeUndefined();
    expect(closed).toEqual(['cache', 'redis', 'database']);
    const failures = lines.filter((l) => l.msg === 'module close failed');
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({
      level: 50,
      module: 'redis',
      err: { message: 'redis would not close' },
    });
  });

  it('closes each part once, however often close() is called', async () => {
    const closed: string[] = [];
    const parts = createCloser(capturedLogger().log);
    parts.add('a', part(closed, 'a'));
    parts.add('b', part(closed, 'b'));
    await parts.close();
    await parts.close();
    expect(closed).toEqual(['b', 'a']);
  });
});

describe('starting an area', () => {
  it('returns its service, checks and a close() for the parts it started', async () => {
    const closed: string[] = [];
    const area = await startArea(capturedLogger().log, (parts) => {
      parts.add('pool', part(closed, 'pool'));
      parts.add('queue', part(closed, 'queue'));
      return { service: 'the service', checks: { ready: { critical: true, run: async () => 'yes' } } };
    });
    expect(area.service).toBe('the service');
    expect(await area.checks?.ready?.run()).toBe('yes');
    expect(closed).toEqual([]);
    await area.close();
    expect(closed).toEqual(['queue', 'pool']);
  });

  it('closes what it had started when starting fails, then rejects with that error', async () => {
    const closed: string[] = [];
    const failing = startArea(capturedLogger().log, async (parts) => {
      parts.add('artwork', part(closed, 'artwork'));
      parts.add('fonts', part(closed, 'fonts'));
      throw new Error('no fonts');
    });
    await expect(failing).rejects.toThrow('no fonts');
    expect(closed).toEqual(['fonts', 'artwork']);
  });
});
