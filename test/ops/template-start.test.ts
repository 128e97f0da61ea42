// @module-tag process

import { spawn, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runNode, startNodeProcess } from '../helpers/node-process.js';
import { pixelAt, pngSize } from '../helpers/png.js';

// The built program, as `npm start` runs it: a broken template file stops the start naming the
// file and line; --skip-broken-templates leaves it out with a warning and serves the rest.
const root = path.resolve(import.meta.dirname, '../..');
const main = path.join(root, 'dist/src/main.js');
let dir: string;
let templates: string;

const BROKEN = `import { defineTemplate } from 'cardshot/template';

export default defineTemplate({
  description: 'Broken on purpose',
  fields: {
    title: { type: 'text', required: true, maxLenght: 80 },
  },
  render: () => <div />,
});
`;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-tstart-'));
  templates = path.join(dir, 'templates');
  await mkdir(templates);
  await writeFile(path.join(templates, 'event.tsx'), BROKEN);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const env = () =>
  cleanEnv({
    PORT: '0',
    HOST: '127.0.0.1',
    CARDSHOT_DATA_DIR: path.join(dir, `data-${Math.random().toString(36).slice(2)}`),
    CARDSHOT_TEMPLATES_DIR: templates,
    CARDSHOT_CHROMIUM_PATH: path.join(dir, 'no-chromium'),
  });

describe('a broken template file at start', () => {
  it('stops the start in one line naming the file, line and column, exit 78', async () => {
    const r = await runNode([main], { cwd: dir, env: env() });
    expect(r.stderr).toBe(
      'cardshot: configuration error: templates/event.tsx:6:44: field title: unknown key "maxLenght" (did you mean "maxLength"?); allowed: type, required, maxLength, default, description; fix it, or start with --skip-broken-templates to leave it out\n',
    );
    expect(r.code).toBe(78);
  });

  it('with --skip-broken-templates: left out with a warning naming file and line; the server starts', async () => {
    const child = spawn(process.execPath, [main, '--skip-broken-templates'], {
      cwd: dir,
      env: env(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no start line: ${out}`)), 30_000);
        child.stdout.on('data', () => {
          if (out.includes('Cardshot is serving')) {
            clearTimeout(timer);
            resolve();
          }
        });
        child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
      });
    } finally {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    const warning = out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { level: number; msg: string })
      .find((l) => l.msg.startsWith('template left out'));
    expect(warning?.level).toBe(40);
    expect(warning?.msg).toMatch(
      /^template left out \(--skip-broken-templates\): templates\/event\.tsx:6:\d+: field title: unknown key "maxLenght"/,
    );
  });
});

describe('the README path on a fresh install: first start, templates new, curl', () => {
  it('serves the new template without a restart, and every sed -i edit after it, each logged', async () => {
    // As `npm start` runs it: no NODE_ENV, a data dir with no templates/ in it.
    const node = await startNodeProcess(root, 'tnew', {
      NODE_ENV: '',
      CARDSHOT_CHROMIUM_PATH: path.join(dir, 'no-chromium'),
    });
    try {
      await node.waitFor(/Cardshot is serving|first-run\.txt/);
      const banner = await readFile(path.join(node.dataDir, 'first-run.txt'), 'utf8');
      const key = banner.match(/API key: +(cs_development_[0-9A-Za-z]{28})/)?.[1];
      expect(key, banner).toBeDefined();
      const msgs = () => node.logs().map((l) => String(l.msg));
      const count = async (message: string, n: number) => {
        for (let i = 0; i < 400 && msgs().filter((m) => m === message).length < n; i++) {
          await new Promise((r) => setTimeout(r, 25));
        }
        expect(msgs().filter((m) => m === message).length, JSON.stringify(msgs())).toBe(n);
      };

      const made = await runNode([path.join(root, 'dist/src/cli/index.js'), 'templates', 'new', 'event'], {
        cwd: node.dataDir,
        env: cleanEnv({ CARDSHOT_DATA_DIR: node.dataDir }),
      });
      expect(made.code, made.stderr).toBe(0);
      const file = path.join(node.dataDir, 'templates', 'event.tsx');
      await count('template "event" added from templates/event.tsx', 1);

      // The README's curl.
      const url = `${node.url}/render/template?template=event&title=Launch%20day&size=square`;
      const first = await fetch(url, { headers: { 'x-api-key': key! } });
      expect(first.status).toBe(200);
      const png = Buffer.from(await first.arrayBuffer());
      expect(pngSize(png)).toEqual({ width: 1080, height: 1080 });
      const etags = new Set([first.headers.get('etag')]);

      // GNU sed -i writes a temporary file and renames it over the template, three times.
      const edits: Array<[string, string, 0 | 1 | 2]> = [
        ['#0F172A', '#7F1D1D', 0],
        ['#7F1D1D', '#14532D', 1],
        ['#14532D', '#1E3A8A', 2],
      ];
      for (const [i, [from, to, channel]] of edits.entries()) {
        const sed = spawnSync('sed', ['-i', `s/${from}/${to}/`, file]);
        expect(sed.status).toBe(0);
        await count('template "event" reloaded from templates/event.tsx', i + 1);
        const res = await fetch(url, { headers: { 'x-api-key': key! } });
        expect(res.status).toBe(200);
        etags.add(res.headers.get('etag'));
        // The new background's strongest channel, in the corner away from the accent's glow.
        const px = await pixelAt(Buffer.from(await res.arrayBuffer()), 4, 1075);
        expect(Math.max(px[0], px[1], px[2]), `${to}: ${px}`).toBe(px[channel]);
      }
      expect(etags.size).toBe(4);
    } finally {
      await node.stop();
    }
  }, 90_000);
});
