import { describe, expect, it } from 'vitest';
import { describeUnknownVariables } from '../../src/config/unknown-env.js';
import { findUnknownVariables } from '../../src/settings.js';

describe('unknown CARDSHOT_* variables', () => {
  it('a misspelt setting is found, with the setting it probably meant', () => {
    expect(findUnknownVariables({ CARDSHOT_SCREENSHOT_CONCURENCY: '4' })).toEqual([
      { name: 'CARDSHOT_SCREENSHOT_CONCURENCY', suggestion: 'CARDSHOT_SCREENSHOT_CONCURRENCY' },
    ]);
    // Swapped letters count as one slip; a conventional name given the prefix is recognised.
    expect(
      findUnknownVariables({ CARDSHOT_SECERT: 'x', CARDSHOT_DATABASE_URL: 'x', CARDSHOT_CHROME_PATH: 'x' }),
    ).toEqual([
      { name: 'CARDSHOT_CHROME_PATH', suggestion: 'CARDSHOT_CHROMIUM_PATH' },
      { name: 'CARDSHOT_DATABASE_URL', suggestion: 'DATABASE_URL' },
      { name: 'CARDSHOT_SECERT', suggestion: 'CARDSHOT_SECRET' },
    ]);
  });

  it('settings, the config file path and the README’s CARDSHOT_KEY are not reported; other prefixes are not looked at', () => {
    expect(
      findUnknownVariables({
        CARDSHOT_SCREENSHOT_CONCURRENCY: '4',
        CARDSHOT_CONFIG: 'cardshot.config.json',
        CARDSHOT_KEY: 'cs_live_x',
        CARDSHOT_SIGNING_SECRET: 'cssig_x',
        PORT: '3000',
        CARDSHOTX: '1',
        cardshot_port: '1',
      }),
    ).toEqual([]);
  });

  it('a name near no setting is reported without a guess, and all of them go in one line', () => {
    const unknown = findUnknownVariables({ CARDSHOT_WIDGET_MODE: 'on', CARDSHOT_LOG_LEVL: 'debug' });
    expect(describeUnknownVariables(unknown)).toBe(
      'ignoring unknown environment variables CARDSHOT_LOG_LEVL (did you mean CARDSHOT_LOG_LEVEL?), CARDSHOT_WIDGET_MODE',
    );
    expect(describeUnknownVariables([])).toBe('');
  });
});
