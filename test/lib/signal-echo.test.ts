import { describe, expect, it } from 'vitest';
import { signalEchoes } from '../../src/lib/signal-echo.js';

describe('signalEchoes', () => {
  it('takes the first signal, its echo within the window as the same one, and a later one as a second request', () => {
    let now = 10_000;
    const echoes = signalEchoes(1000, () => now);
    expect(echoes.isEcho()).toBe(false);
    now += 78; // npm passing the terminal's SIGINT on, as measured
    expect(echoes.isEcho()).toBe(true);
    now += 921; // 999 ms after the first
    expect(echoes.isEcho()).toBe(true);
    now += 1; // a second after the first: the operator asking again
    expect(echoes.isEcho()).toBe(false);
    now += 5000;
    expect(echoes.isEcho()).toBe(false);
  });
});
