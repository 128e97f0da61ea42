import { describe, expect, it } from 'vitest';
import { docCommands, jsonDifferences, stripComment, textMatches } from '../helpers/doc-blocks.js';

// The reader of the docs' examples that test/ops/docs-commands.test.ts runs: what it takes for a
// command and for the output the docs promise, so a drift cannot slip through the harness itself.

const FENCE = '```';

describe('reading commands out of Markdown', () => {
  it('joins continued lines, drops comments, and keeps quoted # and the line it starts on', () => {
    const md = [
      '# Title',
      '',
      `${FENCE}bash`,
      "curl -sS -H 'x: 1' \\",
      "  'http://localhost:3000/a?b=%23c' -o card.png   # a comment",
      '',
      "npx cardshot shot https://example.com/ --selector '#plans'",
      FENCE,
      '',
      `${FENCE}ts`,
      'const notRun = 1;',
      FENCE,
    ].join('\n');
    expect(docCommands('x.md', md)).toEqual([
      {
        file: 'x.md',
        line: 4,
        command: "curl -sS -H 'x: 1' 'http://localhost:3000/a?b=%23c' -o card.png",
      },
      { file: 'x.md', line: 7, command: "npx cardshot shot https://example.com/ --selector '#plans'" },
    ]);
    expect(stripComment('echo "a # b" # c')).toBe('echo "a # b"');
  });

  it('takes a console session as commands each with the lines it prints', () => {
    const md = [
      `${FENCE}console`,
      '$ npx cardshot render blog \\',
      '    --headline x',
      'cardshot render: unknown option --headline',
      '…',
      '$ curl -sS http://localhost:3000/healthz',
      '{"status":"ok"}',
      FENCE,
    ].join('\n');
    expect(docCommands('cli.md', md)).toEqual([
      {
        file: 'cli.md',
        line: 2,
        command: 'npx cardshot render blog --headline x',
        expected: { lang: 'console', text: 'cardshot render: unknown option --headline\n…' },
      },
      {
        file: 'cli.md',
        line: 6,
        command: 'curl -sS http://localhost:3000/healthz',
        expected: { lang: 'console', text: '{"status":"ok"}' },
      },
    ]);
  });

  it('takes a json block right after a one-command block as its output, and not one further down', () => {
    const direct = `${FENCE}bash\ncurl -sS http://localhost:3000/readyz\n${FENCE}\n\n${FENCE}json\n{"status":"ok"}\n${FENCE}\n`;
    expect(docCommands('api.md', direct)[0]?.expected).toEqual({ lang: 'json', text: '{"status":"ok"}' });
    const apart = `${FENCE}bash\ncurl -sS http://localhost:3000/readyz\n${FENCE}\n\nSome prose.\n\n${FENCE}json\n{}\n${FENCE}\n`;
    expect(docCommands('api.md', apart)[0]?.expected).toBeUndefined();
  });
});

describe('comparing output with the docs', () => {
  // Regression: docs/cli.md quoted this message without the --no-theme the CLI had gained.
  it('fails a quoted message that lost part of what the command prints', () => {
    const printed =
      'cardshot render: unknown option --headline; blog takes: --title, --subtitle, --brand, --size, --no-theme\n\nRender cards locally…\n';
    expect(
      textMatches(
        'cardshot render: unknown option --headline; blog takes: --title, --subtitle, --brand, --size\n…',
        printed,
      ),
    ).toBe(false);
    expect(
      textMatches(
        'cardshot render: unknown option --headline; blog takes: --title, --subtitle, --brand, --size, --no-theme\n…',
        printed,
      ),
    ).toBe(true);
  });

  it('lets … stand for text on its line only, and a line of … for any lines', () => {
    expect(textMatches('key: cs_development_…', 'key: cs_development_Ab12')).toBe(true);
    expect(textMatches('key: cs_development_…', 'key: cs_development_Ab12\nmore')).toBe(false);
    expect(textMatches('first\n…\nlast', 'first\na\nb\nlast')).toBe(true);
    expect(textMatches('first\n…\nlast', 'first\na\nb\nlast but one')).toBe(false);
  });

  // Regression: the /readyz example in docs/api.md lacked the storage check.
  it('reports a key the docs leave out, and one they show that is missing', () => {
    expect(
      jsonDifferences(
        { status: 'ok', checks: { database: { ms: 0.4 } } },
        { status: 'ok', checks: { database: { ms: 3 }, storage: { ms: 1 } } },
      ),
    ).toEqual(['$.checks.storage: not in the docs']);
    expect(jsonDifferences({ a: 1, b: 'x' }, { a: 1 })).toEqual(['$.b: missing']);
  });

  it('takes numbers, and digits inside strings, as samples, but words exactly', () => {
    const doc = { detail: 'rendered a card in 9 ms; 0 rendering', checkedAt: '2026-01-01T12:00:00.000Z' };
    expect(
      jsonDifferences(doc, {
        detail: 'rendered a card in 12 ms; 3 rendering',
        checkedAt: '2026-11-27T21:03:20.660Z',
      }),
    ).toEqual([]);
    expect(
      jsonDifferences(doc, { detail: 'drew a card in 12 ms; 3 rendering', checkedAt: 'now' }),
    ).toHaveLength(2);
    expect(jsonDifferences({ n: 1 }, { n: '1' })).toEqual(['$.n: not a number']);
  });
});
