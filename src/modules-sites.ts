/** How the sites area starts (pages read without a browser, site cards), when a process asks for it. */
import { linkOrigin } from './accounts/origin.js';
import type { StartContext, startCore, startRendering } from './modules-wiring.js';

/**
 * The sites area, imported only when started; undefined when the process did not ask for it.
 * Started before the jobs: their workers run the warm jobs' page items through it.
 */
export async function startSites(
  { config, log, opts, metrics, start, has }: StartContext,
  core: Awaited<ReturnType<typeof startCore>>,
  rendering: Awaited<ReturnType<typeof startRendering>>,
) {
  if (!has('sites')) return undefined;
  const { createSitesArea } = await import('./sites/module.js');
  const { accounts, registry, usage, limiter } = core;
  const { cache, render } = rendering;
  const cards =
    accounts && registry && usage && limiter && cache && render
      ? {
          store: accounts.store,
          plans: accounts.plans,
          registry: () => registry,
          cache,
          render,
          usage,
          limiter,
          publicOrigin: () => linkOrigin(config),
        }
      : undefined;
  return start(
    'sites',
    createSitesArea(config, {
      log,
      ...(opts.clock ? { clock: opts.clock } : {}),
      ...(opts.unfurlGuard ? { guard: opts.unfurlGuard } : {}),
      ...(opts.unfurlCa ? { ca: opts.unfurlCa } : {}),
      onBusy: () => metrics.queueRejected('unfurl'),
      ...(cards ? { cards } : {}),
    }),
  );
}
