/** How the sites area starts (pages read without a browser), when a process asks for it. */
import type { StartContext } from './modules-wiring.js';

/** The sites area, imported only when started; undefined when the process did not ask for it. */
export async function startSites({ config, log, opts, metrics, start, has }: StartContext) {
  if (!has('sites')) return undefined;
  const { createSitesArea } = await import('./sites/module.js');
  return start(
    'sites',
    createSitesArea(config, {
      log,
      ...(opts.clock ? { clock: opts.clock } : {}),
      ...(opts.unfurlGuard ? { guard: opts.unfurlGuard } : {}),
      ...(opts.unfurlCa ? { ca: opts.unfurlCa } : {}),
      onBusy: () => metrics.queueRejected('unfurl'),
    }),
  );
}
