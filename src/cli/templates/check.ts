import { type CheckResult, createTemplateChecker, formatResult } from '../../render/template/check.js';
import type { TemplateRegistry } from '../../render/template/types.js';
import { out, UsageError } from '../admin.js';
import { fontCoverage, formatCoverage } from './font-coverage.js';
import type { BrokenTemplate } from './registry.js';

/**
 * `templates check` over `registry` and the files that did not load (`broken`): prints the
 * report, returns 1 when any text does not fit or any file is broken. `template` narrows it to
 * one, loaded or broken; a name that is neither is a usage error naming the known ones.
 */
export async function checkTemplates(
  registry: TemplateRegistry,
  values: { json?: boolean; template?: string; font?: string; dir?: string },
  allBroken: readonly BrokenTemplate[] = [],
): Promise<number> {
  const only = values.template;
  const broken = only === undefined ? allBroken : allBroken.filter((b) => b.template === only);
  if (only !== undefined && !registry.get(only) && broken.length === 0) {
    const known = [...registry.names(), ...allBroken.map((b) => `${b.template} (broken)`)];
    throw new UsageError(`no template "${only}"; known: ${known.join(', ')}`);
  }
  const def = only === undefined ? undefined : registry.get(only);
  // A broken file of that name beside a loaded one is a clash: the loaded one is still checked.
  const checker = only === undefined || def ? await createTemplateChecker() : undefined;
  const results: CheckResult[] = !checker
    ? []
    : def
      ? await checker.check(def)
      : await checker.checkAll(registry);
  const failed = results.filter((r) => r.problems.length > 0);
  const templates = new Set(results.map((r) => r.template)).size;
  const fits =
    results.length === 0 ? '' : failed.length === 0 ? ': all text fits' : `: ${failed.length} with problems`;
  const summary = [
    results.length > 0
      ? `${templates} template${templates === 1 ? '' : 's'}, ${results.length} checks${fits}`
      : '',
    broken.length > 0 ? `${broken.length} template file${broken.length === 1 ? '' : 's'} broken` : '',
  ]
    .filter(Boolean)
    .join('; ');
  const ok = failed.length === 0 && broken.length === 0;
  // The chosen font's gaps are reported, not failed: the bundled families draw those characters.
  const font = values.font === undefined ? undefined : await fontCoverage(values.font, values.dir);
  out(
    values.json ?? false,
    { ok, results, broken, ...(font ? { font } : {}) },
    [
      ...broken.map((b) => `FAIL ${b.template}: ${b.message}`),
      ...results.flatMap(formatResult),
      ...(font ? ['', ...formatCoverage(font)] : []),
      '',
      summary,
    ].join('\n'),
  );
  return ok ? 0 : 1;
}
