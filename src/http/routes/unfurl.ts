import type { FastifyInstance } from 'fastify';
import type { AccountsModule } from '../../accounts/open.js';
import { baseUrl } from '../../dashboard/context.js';
import { cardSuggester } from '../../dashboard/link-card.js';
import { AppError } from '../../errors.js';
import type { TemplateRegistry } from '../../render/template/types.js';
import type { Sites } from '../../sites/module.js';
import type { UsageRecorder } from '../../usage/recorder.js';
import type { HttpConfig } from '../settings.js';

/** The og:image fix when no card can be signed (no title, or the plan lacks the template). */
const PLACEHOLDER = 'https://example.com/og/card.png';

import { clientGoneSignal } from '../client-gone.js';
import { documentOnly } from '../schemas/common.js';
import { UNFURL_SCHEMAS, unfurlSchema } from '../schemas/unfurl.js';

/**
 * GET /unfurl?url= (issue 30 §2): how each network will show a link. API key only (access.ts
 * protects the path and refuses signed URLs here); the request is counted against the
 * account's rate limit like a render, after its input is checked (401 → 400 → 429), and the
 * check itself runs within the account's share of the unfurl queue.
 */
export function registerUnfurlRoute(
  app: FastifyInstance,
  deps: {
    sites: Sites;
    usage: Pick<UsageRecorder, 'record'>;
    accounts: AccountsModule;
    registry: TemplateRegistry;
    config: Pick<HttpConfig, 'publicUrl'>;
  },
): void {
  for (const schema of UNFURL_SCHEMAS) app.addSchema(schema);
  app.get('/unfurl', documentOnly(unfurlSchema), async (req, reply) => {
    const url = readUrl(req.query as Record<string, unknown>);
    const auth = await app.access.admit(req, reply, () => {});
    // The og:image fix names a card of the page's title signed with the key that asked, so the
    // tag is ready to paste (it lives as long as that key, a year at most).
    const key = (await deps.accounts.accounts.listKeys(auth.accountId)).find((k) => k.id === auth.keyId);
    const suggest = cardSuggester({
      plan: auth.plan,
      key,
      secrets: deps.accounts.secrets,
      registry: deps.registry,
      baseUrl: baseUrl(req, deps.config),
      now: Date.now(),
    });
    const report = await deps.sites.unfurl.check(
      url,
      {
        accountId: auth.accountId,
        variant: auth.keyId,
        suggestImage: (title) => suggest(title)?.ogUrl ?? PLACEHOLDER,
      },
      clientGoneSignal(req, reply),
    );
    deps.usage.record(auth.accountId, 'unfurl');
    reply.header('Cache-Control', 'no-store');
    return report;
  });
}

/** The one query parameter; anything else is a 400 naming what is accepted. */
function readUrl(q: Record<string, unknown>): string {
  for (const key of Object.keys(q)) {
    if (key !== 'url') {
      throw new AppError(
        'bad_request',
        `Unknown query parameter ${JSON.stringify(key.slice(0, 40))}. Allowed: url`,
      );
    }
  }
  const v = q.url;
  if (Array.isArray(v)) throw new AppError('bad_request', 'url must be given once');
  if (v === undefined || v === '')
    throw new AppError('bad_request', 'url is required (an absolute http or https URL)');
  return String(v);
}
