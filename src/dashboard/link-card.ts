import type { Plan } from '../auth/plans.js';
import type { ServerSecrets } from '../auth/secret.js';
import { encodeRfc3986 } from '../auth/signing.js';
import { allowCard } from '../render/plan-gate.js';
import { parseTemplateRequest } from '../render/template/request.js';
import type { TemplateRegistry } from '../render/template/types.js';
import type { ApiKeyRecord } from '../storage/store.js';
import { signPlaygroundUrls } from './playground.js';

/** A Cardshot card offered as a page's og:image: the URL for the tag and a same-origin preview. */
export interface SuggestedCard {
  /** Signed and long-lived (a year, or until the key expires). */
  ogUrl: string;
  /** Same-origin, short-lived: for an <img> in the dashboard. */
  previewUrl: string;
}

/**
 * The og:image the unfurl fixes offer for a page title: the blog template with that title,
 * signed with `key` (the dashboard's best key, or the API key that asked), or null when there
 * is no key, no title, or the plan lacks the template. Shared by GET /unfurl and Link preview.
 */
export function cardSuggester(opts: {
  plan: Plan | undefined;
  key: ApiKeyRecord | undefined;
  secrets: ServerSecrets;
  registry: TemplateRegistry;
  baseUrl: string;
  now: number;
}): (title: string | null) => SuggestedCard | null {
  return (title) => {
    const { key, plan } = opts;
    if (!key || !plan || !title) return null;
    const text = [...title].slice(0, 200).join('');
    try {
      allowCard(
        plan,
        parseTemplateRequest({ template: 'blog', title: text }, 'query', undefined, opts.registry),
      );
    } catch {
      return null;
    }
    const path = `/render/template?template=blog&title=${encodeRfc3986(text)}`;
    const signed = signPlaygroundUrls(path, key, opts);
    return { ogUrl: signed.publicUrl, previewUrl: signed.previewUrl };
  };
}
