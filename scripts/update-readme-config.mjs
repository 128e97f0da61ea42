#!/usr/bin/env node
// Rewrites the README's configuration table from the settings schema (run `npm run docs:config`).
import { readFileSync, writeFileSync } from 'node:fs';
import { configTableMarkdown } from '../dist/src/settings.js';

const START = '<!-- config-table:start -->';
const END = '<!-- config-table:end -->';
const readme = readFileSync('README.md', 'utf8');
const a = readme.indexOf(START);
const b = readme.indexOf(END);
if (a < 0 || b < a) throw new Error('README.md has no config-table markers');
writeFileSync(
  'README.md',
  `${readme.slice(0, a + START.length)}\n${configTableMarkdown()}\n${readme.slice(b)}`,
);
