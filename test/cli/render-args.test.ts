import { describe, expect, it } from 'vitest';
import { parseRenderArgs, templateHelp } from '../../src/cli/render/args.js';
import { createStaticRegistry } from '../../src/render/template/registry.js';
import type { TemplateDefinition } from '../../src/render/template/types.js';
import { TEMPLATES } from '../helpers/builtins.js';

const event: TemplateDefinition = {
  ...TEMPLATES.blog,
  name: 'event',
  description: 'Meetup card.',
  fields: {
    headline: { type: 'text', required: true, maxLength: 80, description: 'The talk.' },
    accentColor: { type: 'color', default: '#6366F1' },
    seats: { type: 'number', min: 1, max: 500, integer: true },
    layout: { type: 'choice', options: ['left', 'center'], default: 'left' },
  },
  sizes: ['og', 'square', 'story'],
  uses: { brand: false, artwork: false, theme: true },
};
const registry = createStaticRegistry([...Object.values(TEMPLATES), event]);

describe('render: options follow the template declaration', () => {
  it("takes a custom template's fields as --<field> (camelCase or kebab-case), size and --no-theme", () => {
    const args = parseRenderArgs(
      [
        'event',
        '--headline',
        'Rust meetup',
        '--accent-color',
        '#0EA5E9',
        '--seats',
        '40',
        '--size',
        'story',
        '--no-theme',
        '-o',
        'e.png',
      ],
      registry,
    );
    expect(args.input).toEqual({
      template: 'event',
      headline: 'Rust meetup',
      accentColor: '#0EA5E9',
      seats: '40',
      size: 'story',
      theme: 'none',
    });
    expect(args.output).toBe('e.png');
    const camel = parseRenderArgs(['--template', 'event', '--accentColor', '#111111'], registry);
    expect(camel.input).toEqual({ template: 'event', accentColor: '#111111' });
  });

  it('keeps the built-ins as they were: --title, --subtitle, --brand, --image-url, --format', () => {
    const args = parseRenderArgs(
      [
        'product',
        '--title',
        'Chair',
        '--subtitle',
        'Oak',
        '--brand',
        'Acme',
        '--image-url',
        'https://x.test/a.png',
        '--format',
        'webp',
      ],
      registry,
    );
    expect(args.input).toEqual({
      template: 'product',
      title: 'Chair',
      subtitle: 'Oak',
      brand: 'Acme',
      imageUrl: 'https://x.test/a.png',
      format: 'webp',
    });
  });

  it("refuses an option the template does not declare, listing the template's own", () => {
    expect(() => parseRenderArgs(['event', '--title', 'x'], registry)).toThrow(
      'unknown option --title; event takes: --headline, --accent-color, --seats, --layout, --size, --account, --no-theme',
    );
    expect(() => parseRenderArgs(['blog', '--headline', 'x'], registry)).toThrow(
      /; blog takes: --title, --subtitle, --brand, --size, --account, --no-theme$/,
    );
    expect(() => parseRenderArgs(['--template', 'blog', 'saas'], registry)).toThrow(
      'give the template once: --template blog or "saas", not both',
    );
  });

  it('--help --template lists the fields, their types, limits and sizes', () => {
    expect(templateHelp(event)).toBe(
      [
        'event: Meetup card.',
        '',
        '  --headline      text, required, at most 80 characters  The talk.',
        '  --accent-color  colour #RRGGBB, optional, default #6366F1',
        '  --seats         whole number 1–500, optional',
        '  --layout        one of left, center, optional, default left',
        '  --size          one of og (1200×630), square (1080×1080), story (1080×1920); default og',
        "  --account       id or email: draw that account's brand theme (without it, none is drawn)",
        "  --no-theme      the template's own look, not the account's theme",
        '',
        'In a batch file, use the field names as columns: template, headline, accentColor, seats, layout, size.',
      ].join('\n'),
    );
  });
});
