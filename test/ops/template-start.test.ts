// @module-tag process

import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runNode } from '../helpers/node-process.js';

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
