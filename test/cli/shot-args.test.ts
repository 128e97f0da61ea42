import { describe, expect, it } from 'vitest';
import { createProgress } from '../../src/cli/progress.js';
import { chooseFormat, parseShotArgs } from '../../src/cli/shot/args.js';
import { batchFileNames, parseBatchFile } from '../../src/cli/shot/batch-file.js';

// `npx cardshot shot` without a server: what a command line turns into (the options the client
// sends, the file written, the format), what it refuses, the batch file format, and what the
// progress output looks like on a terminal and in a log.

const refused = (argv: string[]) => {
  try {
    parseShotArgs(argv);
  } catch (err) {
    expect((err as Error).constructor.name).toBe('UsageError');
    return (err as Error).message;
  }
  throw new Error(`expected ${argv.join(' ')} to be refused`);
};

describe('shot command line', () => {
  it('PDF and sign-in flags: -o x.pdf, --no-print-background, --header, --cookie, --basic-auth (issue 29)', () => {
    const args = parseShotArgs([
      'https://example.com/account',
      '-o',
      'invoice.pdf',
      '--paper',
      'letter',
      '--no-print-background',
      '--header',
      'X-Token: abc',
      '--header',
      'X-Tenant: 7',
      '--cookie',
      'session=s1',
      '--cookie',
      'consent=yes',
      '--basic-auth',
      'ada:pa:ss',
      '--user-agent',
      'MyBot/1.0',
      '--locale',
      'de-DE',
    ]);
    expect(args.format).toBe('pdf');
    expect(args.options).toMatchObject({
      format: 'pdf',
      paper: 'letter',
      printBackground: false,
      headers: { 'X-Token': 'abc', 'X-Tenant': '7' },
      cookies: [
        { name: 'session', value: 's1' },
        { name: 'consent', value: 'yes' },
      ],
      basicAuth: { username: 'ada', password: 'pa:ss' },
      userAgent: 'MyBot/1.0',
      locale: 'de-DE',
    });
  });

  it('turns every flag into the option the client sends', () => {
    const args = parseShotArgs([
      'https://example.com/pricing',
      '--viewport',
      'desktop',
      '--wait-until',
      'networkidle',
      '--full-page',
      '--selector',
      '#plans',
      '--wait-for-selector',
      'main h1',
      '--delay',
      '1500',
      '--dark-mode',
      '--hide',
      '.chat,#promo',
      '--hide',
      '.ad',
      '--block-ads',
      '--block-cookie-banners',
      '--scale',
      '2',
      '--format',
      'webp',
      '--quality',
      '80',
      '--ttl',
      '3600',
      '--fresh',
      '-o',
      'plans.webp',
      '--server',
      'http://127.0.0.1:3999',
      '--api-key',
      'cs_test_x',
    ]);
    expect(args).toEqual({
      help: false,
      target: { kind: 'one', url: 'https://example.com/pricing', output: 'plans.webp' },
      options: {
        viewport: 'desktop',
        waitUntil: 'networkidle',
        fullPage: true,
        selector: '#plans',
        waitForSelector: 'main h1',
        delay: 1500,
        darkMode: true,
        hideSelectors: ['.chat', '#promo', '.ad'],
        blockAds: true,
        blockCookieBanners: true,
        scale: 2,
        format: 'webp',
        quality: 80,
        ttl: 3600,
        fresh: true,
      },
      format: 'webp',
      concurrency: 2,
      server: 'http://127.0.0.1:3999',
      apiKey: 'cs_test_x',
    });
  });

  it('names the file from the host and format, and infers the format from -o', () => {
    expect(parseShotArgs(['https://www.Example.com/a/b?c=1'])).toMatchObject({
      target: { output: 'www.example.com.png' },
      format: 'png',
      options: {},
    });
    expect(parseShotArgs(['https://example.com/', '--format', 'jpeg'])).toMatchObject({
      target: { output: 'example.com.jpg' },
      options: { format: 'jpeg' },
    });
    expect(parseShotArgs(['http://127.0.0.1:8080/', '--format', 'avif']).target).toMatchObject({
      output: '127.0.0.1.avif',
    });
    for (const [file, format] of [
      ['page.webp', 'webp'],
      ['shot.JPG', 'jpeg'],
      ['shot.jpeg', 'jpeg'],
      ['x.avif', 'avif'],
      ['x.png', 'png'],
      ['noext', 'png'],
      ['-', 'png'],
    ] as const) {
      expect(parseShotArgs(['https://example.com/', '-o', file]).format, file).toBe(format);
    }
    expect(parseShotArgs(['https://example.com/', '--format', 'jpg', '-o', 'a.jpeg']).format).toBe('jpeg');
    // PNG is the default: it is not sent, so the URL is the same as without the flag.
    expect(parseShotArgs(['https://example.com/', '--format', 'png']).options).toEqual({});
  });

  it('reads a batch: the file, the folder (default screenshots/) and the concurrency', () => {
    expect(parseShotArgs(['--batch', 'urls.txt', '--format', 'webp'])).toMatchObject({
      target: { kind: 'batch', file: 'urls.txt', outDir: 'screenshots' },
      format: 'webp',
      concurrency: 2,
    });
    expect(parseShotArgs(['--batch', '-', '-o', 'shots/', '--concurrency', '5'])).toMatchObject({
      target: { kind: 'batch', file: '-', outDir: 'shots/' },
      concurrency: 5,
    });
  });

  it('refuses command lines that cannot work, naming the flag', () => {
    expect(refused([])).toBe('give the URL of the page');
    expect(refused(['https://a.example/', 'https://b.example/'])).toBe('give one URL (or --batch FILE)');
    expect(refused(['https://a.example/', '--batch', 'u.txt'])).toBe(
      'give one URL or --batch FILE, not both',
    );
    expect(refused(['example.com'])).toBe(
      '"example.com" is not an absolute http or https URL: did you mean https://example.com?',
    );
    expect(refused(['https://a.example/', '--format', 'gif'])).toBe(
      '--format must be png, jpeg, webp, avif or pdf (got "gif")',
    );
    expect(refused(['https://a.example/', '-o', 'a.gif'])).toBe(
      'cannot write .gif files: -o must end in .png, .jpg, .webp or .avif',
    );
    expect(refused(['https://a.example/', '--format', 'webp', '-o', 'a.png'])).toBe(
      '--format webp does not match -o a.png: use a .webp name',
    );
    expect(refused(['https://a.example/', '--quality', '80'])).toBe(
      '--quality is for jpeg, webp and avif (PNG is lossless)',
    );
    expect(refused(['https://a.example/', '--scale', '4'])).toBe('--scale must be 1, 2 or 3 (got "4")');
    expect(refused(['https://a.example/', '--delay', '1.5s'])).toBe(
      '--delay must be a whole number (got "1.5s")',
    );
    expect(refused(['--batch', 'u.txt', '--concurrency', '0'])).toBe('--concurrency must be 1 to 16 (got 0)');
    expect(refused(['https://a.example/', '--fullpage'])).toMatch(/Unknown option '--fullpage'/);
    expect(refused(['https://a.example/', '--selector'])).toMatch(/--selector/);
  });

  it('leaves ranges to the server, which names the option', () => {
    // 20000 ms is past the server's limit: sent as given, so the server's 400 says why.
    expect(parseShotArgs(['https://a.example/', '--delay', '20000', '--ttl', '5']).options).toEqual({
      delay: 20000,
      ttl: 5,
    });
  });

  it('chooses the format for a batch from --format only (-o is a folder there)', () => {
    expect(chooseFormat(undefined, undefined)).toBe('png');
    expect(parseShotArgs(['--batch', 'u.txt', '-o', 'out.webp']).format).toBe('png');
  });
});

describe('batch file', () => {
  it('takes one URL per line, skipping blank lines and # comments, and keeps line numbers', () => {
    const text = [
      '\uFEFF# Pages for the launch',
      'https://example.com/',
      '',
      '   ',
      '  https://example.com/pricing   # the plans',
      '# https://example.com/old',
      'https://example.com/docs#install',
      'https://example.com/\r',
    ].join('\n');
    expect(parseBatchFile(text)).toEqual([
      { line: 2, url: 'https://example.com/' },
      { line: 5, url: 'https://example.com/pricing' },
      { line: 7, url: 'https://example.com/docs#install' },
      { line: 8, url: 'https://example.com/' },
    ]);
    expect(parseBatchFile('# nothing\n\n')).toEqual([]);
  });

  it('names each file from its URL, uniquely, in file order', () => {
    const entries = [
      'https://example.com/',
      'https://example.com/blog/Post-1?ref=x&y=2',
      'https://example.com/',
      'https://EXAMPLE.com',
      'https://münchen.example/straße',
      'not a url',
      `https://example.com/${'a'.repeat(300)}`,
    ].map((url, i) => ({ line: i + 1, url }));
    expect(batchFileNames(entries, 'webp')).toEqual([
      'example.com.webp',
      'example.com-blog-post-1-ref-x-y-2.webp',
      'example.com-2.webp',
      'example.com-3.webp',
      'xn--mnchen-3ya.example-stra-e.webp',
      'not-a-url.webp',
      `example.com-${'a'.repeat(108)}.webp`,
    ]);
    expect(batchFileNames([{ line: 1, url: 'https://example.com/a' }], 'jpeg')).toEqual([
      'example.com-a.jpg',
    ]);
  });
});

describe('progress output', () => {
  const recorder = (isTTY: boolean) => {
    const writes: string[] = [];
    return { isTTY, writes, write: (s: string) => writes.push(s) };
  };

  it('draws a bar on a terminal, and prints no per-item lines there', () => {
    const bar = recorder(true);
    const lines = recorder(false);
    const p = createProgress(3, bar, lines);
    p.line('ok    https://a.example/ -> a.png');
    p.tick(1, 0);
    p.tick(3, 1);
    p.finish();
    expect(lines.writes).toEqual([]);
    expect(bar.writes).toEqual([
      `\r${'█'.repeat(10)}${'░'.repeat(20)} 1/3`,
      `\r${'█'.repeat(30)} 3/3 (1 failed)`,
      '\n',
    ]);
  });

  it('prints one plain line per item when the stream is not a terminal, and no bar', () => {
    const bar = recorder(false);
    const lines = recorder(false);
    const p = createProgress(2, bar, lines);
    p.line('ok    https://a.example/ -> a.png');
    p.tick(1, 0);
    p.line('FAIL  https://b.example/ (line 2): Rate limit exceeded (HTTP 429)');
    p.tick(2, 1);
    p.finish();
    expect(bar.writes).toEqual([]);
    expect(lines.writes).toEqual([
      'ok    https://a.example/ -> a.png\n',
      'FAIL  https://b.example/ (line 2): Rate limit exceeded (HTTP 429)\n',
    ]);
  });
});
