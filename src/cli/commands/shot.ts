import { stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { linkOrigin } from '../../accounts/origin.js';
import { Cardshot, type ScreenshotResult } from '../../client/cardshot.js';
import { CardshotError } from '../../client/errors.js';
import { apiKeyFromEnv } from '../../config/client-env.js';
import { ConfigError } from '../../config/load.js';
import { UsageError } from '../admin.js';
import { loadCliConfig } from '../data-dir.js';
import { printable } from '../printable.js';
import { defaultFileName, optionHelpLines, parseShotArgs, type ShotArgs } from '../shot/args.js';
import { captureBatch } from '../shot/batch.js';
import { describeFailure, processIo, type ShotIo, sizeText } from '../shot/io.js';

const HELP = `Screenshot web pages through a running Cardshot server: GET /render/url, or a POST
when the page's headers, cookies, Basic auth or User-Agent are given (no URL may carry them).

  npx cardshot shot URL [options] [-o FILE]
  npx cardshot shot --batch urls.txt [options] [-o DIR] [--concurrency N]

Page and output (each with an example):
  --viewport NAME          og 1200×630 (default), desktop, mobile, a preset          --viewport mobile
  --wait-until EVENT       load (default), domcontentloaded, networkidle             --wait-until networkidle
${optionHelpLines().join('\n')}
  --pdf                    the same as --format pdf (or -o FILE.pdf)                 --pdf
  -o, --output FILE        default <host>.<ext> (.json: --response json); - stdout   -o page.webp
Batches:
  --batch FILE             one URL per line, # comments; - reads standard input      --batch urls.txt
  -o, --output DIR         the folder for the files (default screenshots/)           -o shots/
  --concurrency N          captures at once, 1–16 (default 2)                        --concurrency 4
Server:
  --server URL             default CARDSHOT_PUBLIC_URL, else this data dir's server  --server http://localhost:3000
  --api-key KEY|-          default $CARDSHOT_KEY; - reads standard input             --api-key -

Examples:
  npx cardshot shot https://example.com/ --full-page --format webp -o page.webp
  npx cardshot shot https://example.com/pricing --selector '#plans' --scale 2 -o plans.png
  npx cardshot shot --batch urls.txt --dark-mode --block-cookie-banners -o shots/

A batch saves each page as its host, path and query (example.com-blog-post.png). Busy answers
(429, 503) are retried after the server's Retry-After. A page that answers 4xx/5xx is saved
(a picture of its error page) and reported with its status. Exit status: 0 when every page
was written, 1 when a capture failed or a page answered 4xx/5xx, 2 for a command line that
cannot work.`;

/** A shot waits for the server's own time-out (at most 120 s) rather than giving up first. */
const CLIENT_TIMEOUT_MS = 130_000;

/** `cardshot shot`: one page to a file, or a batch of URLs to a folder, through the server. */
export async function runShot(argv: string[], io: ShotIo = processIo): Promise<number> {
  let args: ShotArgs;
  let client: Cardshot;
  try {
    args = parseShotArgs(argv);
    if (args.help) {
      io.stdout.write(`${HELP}\n`);
      return 0;
    }
    client = await clientFor(args, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`cardshot shot: ${err.message}\n\n${HELP}\n`);
      return 2;
    }
    if (err instanceof ConfigError) {
      io.stderr.write(`cardshot shot: configuration error: ${err.message}\n`);
      return 78;
    }
    throw err;
  }
  const { target } = args;
  if (target.kind === 'batch') {
    return captureBatch(
      client,
      {
        file: target.file,
        outDir: target.outDir,
        options: args.options,
        format: args.format,
        concurrency: args.concurrency,
      },
      io,
    );
  }
  return shootOne(client, args, target, io);
}

async function clientFor(args: ShotArgs, io: ShotIo): Promise<Cardshot> {
  if (args.apiKey === '-' && args.target.kind === 'batch' && args.target.file === '-') {
    throw new UsageError('--api-key - and --batch - cannot both read standard input');
  }
  const apiKey = args.apiKey === '-' ? (await io.readStdin()).trim() : (args.apiKey ?? apiKeyFromEnv());
  if (!apiKey) {
    throw new UsageError(
      'no API key: export CARDSHOT_KEY=cs_… (`npx cardshot keys create` makes one) or pass --api-key',
    );
  }
  const baseUrl = args.server ?? linkOrigin(loadCliConfig(io.stderr, { refuse: false }));
  try {
    new URL(baseUrl);
  } catch {
    throw new UsageError(`--server must be an absolute URL such as http://localhost:3000 (got "${baseUrl}")`);
  }
  // Batches meet busy answers by design (more URLs than the account's share): wait them out.
  const retries = args.target.kind === 'batch' ? 5 : 2;
  return new Cardshot({ baseUrl, apiKey, retries, maxRetryDelayMs: 60_000, timeoutMs: CLIENT_TIMEOUT_MS });
}

async function shootOne(
  client: Cardshot,
  args: ShotArgs,
  target: { url: string; output: string },
  io: ShotIo,
): Promise<number> {
  const started = performance.now();
  let shot: ScreenshotResult;
  try {
    shot = await client.screenshot({ ...args.options, url: target.url } as Parameters<
      Cardshot['screenshot']
    >[0]);
  } catch (err) {
    io.stderr.write(`cardshot shot: ${printable(describeFailure(err))}${hintFor(err, client)}\n`);
    return 1;
  }
  if (shot.notModified) throw new Error('the server answered 304 Not Modified to a request without an ETag');
  const secs = ((performance.now() - started) / 1000).toFixed(1);
  const toStdout = target.output === '-';
  const file = toStdout ? '-' : await outputFile(target.output, target.url, args);
  if (toStdout) io.stdout.write(shot.image);
  else await writeFile(file, shot.image);
  // --response json: the page's facts and a signed image URL, written as they came.
  const json = args.options.response === 'json';
  const size = json ? '' : await dimensions(shot.image);
  const info = toStdout ? io.stderr : io.stdout;
  info.write(
    `${toStdout ? 'stdout' : printable(file)}: ${size}${json ? 'JSON' : shot.format.toUpperCase()}, ${sizeText(shot.image.length)} in ${secs} s (${shot.cache})\n`,
  );
  if (shot.fullPageTruncated) {
    io.stderr.write(
      `note: the page is ${shot.pageHeight ?? '?'} px tall; the image stops at the server's full-page height cap\n`,
    );
  }
  // The capture worked, but of an error page: a script should not take it for the page.
  if ((shot.targetStatus ?? 200) >= 400) {
    io.stderr.write(
      `cardshot shot: the page answered HTTP ${shot.targetStatus}; the image shows its error page\n`,
    );
    return 1;
  }
  return 0;
}

/** `-o` naming a folder (existing, or written with a trailing slash) gets the default file name inside it. */
async function outputFile(output: string, url: string, args: ShotArgs): Promise<string> {
  const isDir = output.endsWith('/') || (await stat(output).catch(() => null))?.isDirectory() === true;
  const json = args.options.response === 'json' ? 'json' : undefined;
  return isDir ? path.join(output, defaultFileName(new URL(url), args.format, json)) : output;
}

/** `1200×630 ` from the image itself, or nothing when it cannot be read. */
async function dimensions(image: Uint8Array): Promise<string> {
  try {
    const { default: sharp } = await import('sharp');
    const meta = await sharp(image).metadata();
    return meta.width && meta.height ? `${meta.width}×${meta.height} ` : '';
  } catch {
    return '';
  }
}

function hintFor(err: unknown, client: Cardshot): string {
  if (err instanceof CardshotError && err.code === 'network') {
    return `\nIs Cardshot running at ${client.baseUrl}? Start it with \`npm start\`, or give --server URL.`;
  }
  return '';
}
