// @module-tag process
// @module-tag chromium
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable } from '../helpers/browser.js';
import { type DocCommand, docCommands, fences, jsonDifferences, textMatches } from '../helpers/doc-blocks.js';
import { type NodeProcess, startNodeProcess } from '../helpers/node-process.js';

/**
 * Runs the shell examples of the README and the docs, in order, as a reader would: against the
 * built server started as `npm start` starts it (dist/src/main.js) on a fresh data dir, with the
 * key its first start wrote to data/first-run.txt, `npx cardshot` as the built CLI. What a
 * command prints is compared with the output the docs show (test/helpers/doc-blocks.ts has the
 * convention), and every image it writes with `-o` must be an image of that type and, where the
 * request fixes it, that size. A drift in a documented command, message or output fails here.
 */

const root = path.resolve(import.meta.dirname, '../..');
const cli = path.join(root, 'dist/src/cli/index.js');

/** In reading order: a later file may use what an earlier one made (templates, accounts). */
const FILES = [
  'docs/templates-tools.md',
  'README.md',
  'docs/cli.md',
  'docs/templates.md',
  'docs/api.md',
  'docs/themes.md',
];

/** Commands that are not run here, each with why. Everything else in FILES runs. */
const SKIPPED: Array<{ match: RegExp; why: string }> = [
  {
    match: /^npm (start|test)$/,
    why: 'the server under test is started as npm start starts it; npm test runs this file',
  },
  {
    match: /^npm run /,
    why: 'builds, benchmarks and the container image take minutes; each has its own test or writes its own doc',
  },
  {
    match: /<[a-z-]+>|\[[^\]]*\b[A-Z]+\b[^\]]*\]|\w\|\w/,
    why: 'a synopsis (<template>, [--dir DIR], a|b): the examples beside it run',
  },
  {
    match: /\/unfurl\?url=/,
    why: 'its report names problems by severity ("error"), which the check below reads as a failed command; test/http/unfurl.test.ts runs it against a fixture of every problem',
  },
  {
    match: /--data-binary @BrandSans\.woff2/,
    why: "needs the reader's own font file; test/http/fonts.test.ts uploads each format",
  },
  {
    match: /localhost:3000\/storage /,
    why: 'needs a reachable S3 bucket; test/delivery/storage-api.test.ts makes targets against a real S3-protocol server',
  },
  {
    match: /template=event&.*day=12/,
    why: 'the example template above it imports a partial (_badge) the docs do not show',
  },
];

/** Hosts the docs use, served here by a loopback stand-in (tests send traffic only to 127.0.0.1). */
const STAND_INS = ['https://example.com', 'https://your-shop.example', 'https://acme.com'];

/** Files the docs assume the reader has at hand, made in the working directory. */
async function readerFiles(cwd: string, site: string): Promise<void> {
  await writeFile(
    path.join(cwd, 'cards.csv'),
    'template,title,brand\nblog,Hello from a batch,Acme\nsaas,Ship faster,Acme\n',
  );
  await mkdir(path.join(cwd, 'src')); // "keep it in your app's sources"
  await writeFile(path.join(cwd, 'urls.txt'), `${site}/\n# a comment\n${site}/pricing  # the plans\n`);
  await sharp({ create: { width: 200, height: 80, channels: 4, background: '#D97706' } })
    .png()
    .toFile(path.join(cwd, 'logo.png'));
}

/** A page with every element the examples name, and the images they fetch. */
async function startSite(): Promise<{ url: string; hostPort: string; close(): Promise<void> }> {
  const jpeg = await sharp({ create: { width: 800, height: 600, channels: 3, background: '#8B5A2B' } })
    .jpeg()
    .toBuffer();
  const png = await sharp({ create: { width: 300, height: 120, channels: 4, background: '#1D4ED8' } })
    .png()
    .toBuffer();
  const page = `<!doctype html><html><head><meta charset="utf-8"><title>Example</title>
<style>body{margin:0;font:16px sans-serif}section{height:400px;padding:20px}@media (prefers-color-scheme:dark){body{background:#111;color:#eee}}</style></head>
<body><div id="promo-bar">Sale</div><div id="promo">Promo</div><main><h1>Example Domain</h1>
<section id="pricing"><div id="plans">Free · Pro</div></section>
<section><div class="chart ready" id="chart"><svg width="100" height="50"><rect width="100" height="50"/></svg></div></section>
</main><div id="cookie-banner">We use cookies</div><div class="chat-widget">Chat</div></body></html>`;
  const server: Server = createServer((req, res) => {
    const p = new URL(req.url ?? '/', 'http://site').pathname;
    const [type, body] = p.endsWith('.jpg')
      ? ['image/jpeg', jpeg]
      : p.endsWith('.png')
        ? ['image/png', png]
        : ['text/html; charset=utf-8', Buffer.from(page)];
    res.writeHead(200, { 'content-type': type, 'content-length': body.length });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    hostPort: `127.0.0.1:${port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** Ids a command printed; `acc_…`, `key_…` and `cssig_…` in later commands stand for the last. */
const IDS: Record<string, RegExp> = {
  'acc_…': /\bacc_[A-Za-z0-9]+/g,
  'key_…': /\bkey_[A-Za-z0-9]+/g,
  'cssig_…': /\bcssig_[A-Za-z0-9_-]+/g,
  'site_…': /\bsite_[A-Za-z0-9]+/g,
};

const METRICS_TOKEN = 'docs-metrics-token-0123456789';

/** Runs one command in bash; stdout and stderr together, as a terminal shows them. */
function sh(
  command: string,
  opts: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', command], { cwd: opts.cwd, env: opts.env });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 45_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

/** The size a request fixes, when it does: a card's `size`, a screenshot's viewport. */
function expectedSize(command: string): { width: number; height: number } | undefined {
  const sizes: Record<string, [number, number]> = {
    og: [1200, 630],
    twitter: [1200, 675],
    square: [1080, 1080],
    linkedin: [1200, 627],
    story: [1080, 1920],
  };
  if (/render\/template|cardshot render /.test(command)) {
    const s = /[?&]size=(\w+)|--size (\w+)/.exec(command);
    const [width, height] = sizes[s?.[1] ?? s?.[2] ?? 'og']!;
    return { width, height };
  }
  if (/fullPage|selector|full-page|--selector/.test(command)) return undefined;
  if (/render\/url|cardshot shot /.test(command)) {
    const viewport = /viewport=(\w+)/.exec(command)?.[1] ?? 'og';
    const [w, h, base] =
      viewport === 'mobile' ? [390, 844, 3] : viewport === 'desktop' ? [1280, 800, 1] : [1200, 630, 1];
    const scale = Number(/scale=(\d)|--scale (\d)/.exec(command)?.slice(1).find(Boolean) ?? base);
    return { width: w * scale, height: h * scale };
  }
  return undefined;
}

const FORMAT: Record<string, string> = { png: 'png', jpg: 'jpeg', jpeg: 'jpeg', webp: 'webp', avif: 'heif' };

/** What is wrong with the image a command wrote to `file` (relative to cwd), or ''. */
async function imageProblem(file: string, cwd: string, command: string): Promise<string> {
  const full = path.resolve(cwd, file);
  if (!existsSync(full)) return `${file} was not written`;
  if (statSync(full).isDirectory()) {
    const names = await readdir(full);
    return names.length > 0 ? '' : `${file} is empty`;
  }
  const ext = path.extname(file).slice(1).toLowerCase();
  const bytes = await readFile(full);
  // format=pdf: sharp reads no PDFs; its magic bytes say what it is.
  if (ext === 'pdf') {
    return bytes.subarray(0, 5).toString('latin1') === '%PDF-'
      ? ''
      : `${file} is not a PDF: ${bytes.subarray(0, 200).toString('utf8')}`;
  }
  const meta = await sharp(bytes)
    .metadata()
    .catch(() => undefined);
  if (!meta) return `${file} is not an image: ${bytes.subarray(0, 200).toString('utf8')}`;
  if (FORMAT[ext] && meta.format !== FORMAT[ext]) return `${file} is ${meta.format}, not ${ext}`;
  const size = expectedSize(command);
  if (size && (meta.width !== size.width || meta.height !== size.height))
    return `${file} is ${meta.width}×${meta.height}, not ${size.width}×${size.height}`;
  return '';
}

/** The output the docs show, checked against what the command printed; '' when it matches. */
function outputProblem(expected: NonNullable<DocCommand['expected']>, out: string): string {
  if (expected.lang === 'json') {
    let actual: unknown;
    try {
      actual = JSON.parse(out);
    } catch {
      return `printed no JSON: ${out}`;
    }
    const diffs = jsonDifferences(JSON.parse(expected.text), actual);
    return diffs.length ? `${diffs.join('; ')}\nprinted: ${out}` : '';
  }
  return textMatches(expected.text, out) ? '' : `printed:\n${out}\ndocs show:\n${expected.text}`;
}

describe.skipIf(!chromiumAvailable())('the commands the README and the docs show', () => {
  let server: NodeProcess;
  let site: Awaited<ReturnType<typeof startSite>>;
  let cwd: string;
  let bin: string;
  const last: Record<string, string> = {};
  /** The first start's key id and signing secret (the commands revoke and rotate others). */
  let firstRun: { keyId: string; secret: string };
  /** Variables the docs set (`export CARDSHOT_KEY=…`, `K=(…)`), kept for the commands after them. */
  const assignments: string[] = [];

  beforeAll(async () => {
    site = await startSite();
    server = await startNodeProcess(root, 'docs', {
      CARDSHOT_ALLOW_PRIVATE_HOSTS: site.hostPort,
      CARDSHOT_METRICS_TOKEN: METRICS_TOKEN,
    });
    cwd = await mkdtemp(path.join(os.tmpdir(), 'cardshot-docs-reader-'));
    await readerFiles(cwd, site.url);
    // `npx cardshot` is the built CLI here (npx would run the set-up first, which npm test did).
    bin = path.join(cwd, '.bin');
    await mkdir(bin);
    await writeFile(
      path.join(bin, 'npx'),
      `#!/bin/sh\nif [ "$1" = cardshot ]; then shift; exec "${process.execPath}" "${cli}" "$@"; fi\necho "npx $1: not for this test" >&2; exit 127\n`,
      { mode: 0o755 },
    );
    // As the README says: the first start wrote the key to data/first-run.txt (no terminal).
    const first = await readFile(path.join(server.dataDir, 'first-run.txt'), 'utf8');
    last['cs_development_…'] = /API key:\s+(cs_development_\S+)/.exec(first)![1]!;
    for (const [placeholder, pattern] of Object.entries(IDS)) {
      // A site_… comes later, from the README's POST /sites.
      const found = first.match(pattern);
      if (found) last[placeholder] = found.at(-1)!;
    }
    firstRun = { keyId: last['key_…']!, secret: last['cssig_…']! };
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await site?.close();
    if (cwd) await rm(cwd, { recursive: true, force: true });
  });

  /** The command as run here: the stand-ins' addresses, the ids and the key it refers to. */
  const concrete = (command: string): string => {
    let c = command.replace(/ \[--[^\]]*\]/g, '').replaceAll('http://localhost:3000', server.url);
    for (const host of STAND_INS) c = c.replaceAll(host, site.url);
    for (const [placeholder, value] of Object.entries(last)) c = c.replaceAll(placeholder, value);
    return c;
  };

  const commands = FILES.flatMap((file) => docCommands(file, readFileSync(path.join(root, file), 'utf8')));

  it('skips only the commands listed, each for its reason', () => {
    const skipped = commands.filter((c) => SKIPPED.some((s) => s.match.test(c.command)));
    expect(skipped.length).toBeLessThan(commands.length / 3);
    for (const s of SKIPPED)
      expect(
        commands.some((c) => s.match.test(c.command)),
        String(s.match),
      ).toBe(true);
    // Listed in the output, each with its reason (not as skipped tests: every test here runs).
    const why = (c: (typeof commands)[number]) => SKIPPED.find((s) => s.match.test(c.command))!.why;
    console.log(
      skipped.map((c) => `not run: ${c.file}:${c.line} ${c.command.slice(0, 60)} (${why(c)})`).join('\n'),
    );
  });

  /** Run: not skipped, and not the same command (without shown output) as one run before it. */
  const seen = new Set<string>();
  const toRun = commands.filter((c) => {
    if (SKIPPED.some((s) => s.match.test(c.command))) return false;
    if (c.expected) return true;
    if (seen.has(c.command)) return false;
    seen.add(c.command);
    return true;
  });

  it.each(toRun.map((c) => [`${c.file}:${c.line} ${c.command.slice(0, 90)}`, c]))(
    '%s',
    async (_name, doc) => {
      const command = concrete(doc.command);
      if (/^(export )?[A-Za-z_]+=/.test(command) && !/\s(curl|npx)\s/.test(command)) {
        assignments.push(command);
        return;
      }
      const env = {
        ...process.env,
        PATH: `${bin}:${process.env.PATH}`,
        // The reader's CLI runs with the server's settings (the same data dir and config).
        CARDSHOT_DATA_DIR: server.dataDir,
        CARDSHOT_METRICS_TOKEN: METRICS_TOKEN,
        CARDSHOT_ALLOW_PRIVATE_HOSTS: site.hostPort,
      };
      const res = await sh([...assignments, command].join('\n'), { cwd, env });
      for (const [placeholder, pattern] of Object.entries(IDS)) {
        const found = res.out.match(pattern);
        if (found) last[placeholder] = found.at(-1)!;
      }
      const where = `${doc.file}:${doc.line}: ${command}\n`;
      // A session (```console) shows what a command prints, failures included; the rest must succeed.
      if (doc.expected?.lang !== 'console') expect(res.code, `${where}exit ${res.code}:\n${res.out}`).toBe(0);
      if (doc.expected) expect(outputProblem(doc.expected, res.out), where).toBe('');
      else expect(res.out, where).not.toMatch(/"error"/);
      for (const m of command.matchAll(/(?:^|\s)(?:-o|--out-dir|--out)\s+(\S+)/g)) {
        if (m[1] === '-' || /\.(ts|json)$/.test(m[1]!)) continue;
        expect(await imageProblem(m[1]!, cwd, command), where).toBe('');
      }
    },
  );
  // The one code example that is not a shell command: api.md's signing function, which every
  // client that signs by hand copies. Run as written, its URL must be one the server accepts.
  it('docs/api.md: the signing code, run as written, makes a URL the server answers', async () => {
    const api = readFileSync(path.join(root, 'docs/api.md'), 'utf8');
    const code = fences(api).find((f) => f.lang === 'js' && f.body.join('\n').includes('function sign('));
    expect(code, 'the js block with function sign(').toBeDefined();
    const script = path.join(cwd, 'sign-example.mjs');
    await writeFile(
      script,
      `${code!.body.join('\n')}\nconst exp = Math.floor(Date.now() / 1000) + 600;\nconsole.log(sign('/render/template', { template: 'blog', title: "Signed (by the docs)!" }, process.env.KID, process.env.SECRET, exp));\n`,
    );
    const res = await sh(`"${process.execPath}" sign-example.mjs`, {
      cwd,
      env: { ...process.env, KID: firstRun.keyId, SECRET: firstRun.secret },
    });
    expect(res.code, res.out).toBe(0);
    const signed = res.out.trim();
    expect(signed).toMatch(/^\/render\/template\?.*&sig=[\w-]+$/);
    const ok = await fetch(`${server.url}${signed}`);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('image/png');
    const meta = await sharp(Buffer.from(await ok.arrayBuffer())).metadata();
    expect([meta.width, meta.height]).toEqual([1200, 630]);
    const tampered = await fetch(`${server.url}${signed.replace('Signed', 'Forged')}`);
    expect(tampered.status).toBe(401);
    expect(await tampered.json()).toEqual({ error: 'Missing or invalid API key' });
  });
  it('README: the signed URL `cardshot sign` prints for the og:image tag is one the server answers', async () => {
    const readme = docCommands('README.md', readFileSync(path.join(root, 'README.md'), 'utf8'));
    const signCommand = readme.find((c) => c.command.startsWith('npx cardshot sign '))!.command;
    const res = await sh(signCommand.replace('key_…', firstRun.keyId).replace('cssig_…', firstRun.secret), {
      cwd,
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, CARDSHOT_DATA_DIR: server.dataDir },
    });
    expect(res.code, res.out).toBe(0);
    const printed = new URL(
      res.out
        .trim()
        .split('\n')
        .find((l) => l.startsWith('https://'))!,
    );
    expect(printed.origin).toBe('https://cards.example.com');
    const answer = await fetch(`${server.url}${printed.pathname}${printed.search}`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('image/png');
  });
});
