import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/load.js';
import { envName, settings } from '../../src/config/schema.js';

describe('configuration', () => {
  it('has defaults that serve on localhost:3000 with the data dir ./data', () => {
    const c = loadConfig({}, {});
    expect(c.port).toBe(3000);
    expect(c.host).toBe('127.0.0.1');
    expect(c.dataDir).toBe('./data');
    expect(c.allowPrivateHosts).toEqual([]);
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('derives environment names: conventional ones kept, the rest CARDSHOT_*', () => {
    expect(envName('port')).toBe('PORT');
    expect(envName('host')).toBe('HOST');
    expect(envName('dataDir')).toBe('CARDSHOT_DATA_DIR');
    expect(envName('allowPrivateHosts')).toBe('CARDSHOT_ALLOW_PRIVATE_HOSTS');
    for (const [key, s] of Object.entries(settings)) expect(s.description.length, key).toBeGreaterThan(10);
  });

  it('reads the environment, lists comma-separated', () => {
    const c = loadConfig({}, { PORT: '8080', CARDSHOT_ALLOW_PRIVATE_HOSTS: '127.0.0.1:9000, [::1]:9001 ,' });
    expect(c.port).toBe(8080);
    expect(c.allowPrivateHosts).toEqual(['127.0.0.1:9000', '[::1]:9001']);
  });

  it('stops with a message naming the variable when a value is wrong', () => {
    expect(() => loadConfig({}, { PORT: 'eighty' })).toThrow(ConfigError);
    expect(() => loadConfig({}, { PORT: 'eighty' })).toThrow(
      'PORT must be a whole number from 0 to 65535 (got "eighty")',
    );
    expect(() => loadConfig({}, { NODE_ENV: 'prod' })).toThrow(
      'NODE_ENV must be one of development, production, test',
    );
    expect(() => loadConfig({}, { CARDSHOT_RENDER_CONCURRENCY: '0' })).toThrow('CARDSHOT_RENDER_CONCURRENCY');
  });
});
