import { describe, expect, it } from 'vitest';
import { configTableMarkdown } from '../../src/config/docs.js';
import { ConfigError, loadSettings } from '../../src/config/load.js';
import { assembleSettings } from '../../src/config/setting.js';
import { envName, loadConfig, settings } from '../../src/settings.js';

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

describe('settings groups', () => {
  it('assemble in the order given and refuse a key that two groups declare', () => {
    const a = { first: { kind: 'int', default: 1, min: 0, max: 9, description: 'the first one' } } as const;
    const b = { second: { kind: 'bool', default: false, description: 'the second one' } } as const;
    expect(Object.keys(assembleSettings(a, b))).toEqual(['first', 'second']);
    expect(Object.keys(assembleSettings(b, a))).toEqual(['second', 'first']);
    expect(() => assembleSettings(a, b, { first: b.second })).toThrow(
      'setting first is declared by two groups',
    );
  });

  it('load, check and document a group on its own, as an area test can', () => {
    const group = {
      sandbox: { kind: 'enum', default: 'auto', values: ['auto', 'on', 'off'], description: 'the sandbox' },
      width: { kind: 'int', default: 10, min: 1, max: 20, env: 'WIDTH', description: 'the width' },
    } as const;
    const c = loadSettings(group, {}, { CARDSHOT_SANDBOX: 'on' });
    expect(c).toEqual({ sandbox: 'on', width: 10 });
    expect(() => loadSettings(group, {}, { WIDTH: '30' })).toThrow(
      'WIDTH must be a whole number from 1 to 20 (got "30")',
    );
    expect(configTableMarkdown(group).split('\n').slice(2)).toEqual([
      '| `CARDSHOT_SANDBOX` | `auto` | the sandbox |',
      '| `WIDTH` | `10` | the width |',
    ]);
  });
});
