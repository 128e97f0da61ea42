import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config/load.js';
import { normaliseScreenshotUrl, parseScreenshotRequest } from '../../../src/render/screenshot/request.js';
import { screenshotCacheKey } from '../../../src/render/screenshot/service/cache-key.js';
import { parseCustomViewports, viewportCatalogue } from '../../../src/render/screenshot/viewports.js';
import { loadConfig } from '../../../src/settings.js';

const catalogue = viewportCatalogue([]);

describe('screenshot URL normalisation and cache key', () => {
  it.each([
    ['HTTP://Example.COM:80/a?b=1#frag', 'http://example.com/a?b=1'],
    ['https://example.com:443', 'https://example.com/'],
    ['https://example.com:8443/Path', 'https://example.com:8443/Path'],
    ['http://127.1/', 'http://127.0.0.1/'],
    ['http://bücher.example/', 'http://xn--bcher-kva.example/'],
  ])('%s → %s', (raw, normal) => {
    expect(normaliseScreenshotUrl(raw)).toBe(normal);
  });

  it('gives equal keys for equivalent URLs and different keys per viewport or path case', () => {
    const og = catalogue.get('og')!;
    const at = (url: string, viewport = og) =>
      screenshotCacheKey({ url: normaliseScreenshotUrl(url), viewport, waitUntil: 'load' });
    const key = at('HTTP://Example.com:80/a#x');
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(at('http://example.com/a')).toBe(key);
    expect(at('http://example.com/A')).not.toBe(key);
    expect(at('http://example.com/a', catalogue.get('mobile')!)).not.toBe(key);
  });

  it('keys every waitUntil apart, and every account apart from the others and from the shared scope', () => {
    const req = { url: 'http://example.com/a', viewport: catalogue.get('og')! };
    const keys = [
      screenshotCacheKey({ ...req, waitUntil: 'load' }),
      screenshotCacheKey({ ...req, waitUntil: 'domcontentloaded' }),
      screenshotCacheKey({ ...req, waitUntil: 'networkidle' }),
      screenshotCacheKey({ ...req, waitUntil: 'load' }, 'acc_a'),
      screenshotCacheKey({ ...req, waitUntil: 'load' }, 'acc_b'),
    ];
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe('screenshot request parsing', () => {
  it('defaults to the og viewport and waitUntil=load', () => {
    const r = parseScreenshotRequest({ url: 'https://example.com' }, catalogue);
    expect(r).toEqual({
      url: 'https://example.com/',
      viewport: { name: 'og', width: 1200, height: 630, scale: 1, mobile: false },
      waitUntil: 'load',
    });
  });

  it('accepts the parameters another layer consumes (an API key) when told to', () => {
    expect(() => parseScreenshotRequest({ url: 'https://example.com', api_key: 'x' }, catalogue)).toThrow(
      'Unknown query parameter "api_key"',
    );
    expect(
      parseScreenshotRequest({ url: 'https://example.com', api_key: 'x' }, catalogue, new Set(['api_key']))
        .url,
    ).toBe('https://example.com/');
  });
});

describe('custom viewport presets', () => {
  it('parses name=WxH[@scale][:mobile]', () => {
    expect(
      parseCustomViewports(['square=1080x1080', 'retina=1440x900@2', 'tablet=820x1180@2:mobile']),
    ).toEqual([
      { name: 'square', width: 1080, height: 1080, scale: 1, mobile: false },
      { name: 'retina', width: 1440, height: 900, scale: 2, mobile: false },
      { name: 'tablet', width: 820, height: 1180, scale: 2, mobile: true },
    ]);
  });

  it('stops the start with a message naming the variable for a bad preset', () => {
    const load = (v: string) => () => loadConfig({}, { CARDSHOT_SCREENSHOT_VIEWPORTS: v });
    expect(load('huge=4000x4000')).toThrow(ConfigError);
    expect(load('huge=4000x4000')).toThrow(
      'CARDSHOT_SCREENSHOT_VIEWPORTS: viewport preset "huge": width and height must be 100 to 3840 pixels',
    );
    expect(load('og=100x100')).toThrow('viewport preset "og" is defined twice');
    expect(load('big=3840x2160@4')).toThrow('the PNG would exceed 40 megapixels');
    expect(load('Square:1080')).toThrow('must look like name=1080x1080');
    expect(loadConfig({}, { CARDSHOT_SCREENSHOT_VIEWPORTS: 'square=1080x1080' }).screenshotViewports).toEqual(
      ['square=1080x1080'],
    );
  });
});
