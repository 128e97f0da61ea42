import type { UnfurlReport } from '../../sites/unfurl/types.js';
import type { Account } from '../../storage/store.js';
import { type Html, html } from '../html.js';
import type { SuggestedCard } from '../link-card.js';
import { appPage } from './layout.js';
import { type ImageSrc, platformCard } from './link-preview-cards.js';
import { snippet } from './playground.js';

/** The og:image tag of the checked page from one of the account's sites. */
export interface SiteFix {
  siteId: string;
  siteName: string;
  tag: string;
}

/** The Link preview page: the form, then each network's card, the problems and the tags to paste. */
export function linkPreviewPage(opts: {
  account: Account;
  csrf: string;
  url: string;
  report: UnfurlReport | null;
  error: string | null;
  imageSrc: ImageSrc;
  card: SuggestedCard | null;
  siteFix?: SiteFix | null;
}): Html {
  const { report } = opts;
  return appPage({
    title: 'Link preview',
    section: 'link-preview',
    account: opts.account,
    csrf: opts.csrf,
    scripts: ['link-preview.js'],
    styles: ['link-preview.css'],
    body: html`<div class="page-head">
  <div>
    <h1>Link preview</h1>
    <p class="subtle">How X, LinkedIn, Facebook, Slack, Discord, WhatsApp, iMessage, Telegram and Mastodon will show a link: each page read with that network's own crawler, every problem with its fix.</p>
  </div>
</div>
<section class="card">
  <form method="get" action="/dashboard/link-preview" class="lp-form">
    <div class="field">
      <label for="lp-url">Page URL</label>
      <input id="lp-url" name="url" type="url" required maxlength="2048" placeholder="https://example.com/blog/post-1" value="${opts.url}" ${opts.error ? html`aria-invalid="true" aria-errormessage="lp-error"` : ''}>
    </div>
    <button class="button primary" type="submit">Check</button>
  </form>
  ${opts.error ? html`<div class="alert error" role="alert" id="lp-error">${opts.error}</div>` : ''}
</section>
${report ? results(report, opts.imageSrc, opts.card, opts.siteFix ?? null) : ''}`,
  });
}

function results(r: UnfurlReport, src: ImageSrc, card: SuggestedCard | null, site: SiteFix | null): Html {
  const { errors, warnings, infos } = r.summary;
  const hops = r.page.redirects.length;
  return html`<p class="lp-summary-line" role="status"><strong>${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}, ${infos} note${infos === 1 ? '' : 's'}</strong> · ${r.page.status === null ? 'the page did not answer' : `HTTP ${r.page.status}`}${hops > 0 ? ` after ${hops} redirect${hops > 1 ? 's' : ''}` : ''} · checked ${r.checkedAt.replace('T', ' ').slice(0, 16)} UTC</p>
<div class="lp-grid">${r.platforms.map((v) => platformCard(v, src))}</div>
${fixSection(r, card, site)}`;
}

function fixSection(r: UnfurlReport, card: SuggestedCard | null, site: SiteFix | null): Html {
  const tags = [...new Set(r.problems.flatMap((p) => (p.fix?.startsWith('<meta') ? [p.fix] : [])))];
  const other = r.problems.filter((p) => p.fix !== null && !p.fix.startsWith('<meta'));
  const cardTags = card
    ? [
        `<meta property="og:image" content="${attr(card.ogUrl)}">`,
        '<meta property="og:image:width" content="1200">',
        '<meta property="og:image:height" content="630">',
        '<meta name="twitter:card" content="summary_large_image">',
      ].join('\n')
    : '';
  return html`<section class="card" aria-labelledby="fix-title" id="fix">
  <div class="card-head"><h2 id="fix-title">Fix</h2></div>
  ${r.problems.length === 0 ? html`<p>Nothing to fix: every network shows this link as intended.</p>` : html`<ul class="lp-fix-list">${r.problems.map((p) => html`<li class="lp-${p.severity}"><strong>${p.severity}</strong> <code>${p.code}</code> ${p.message} <span class="subtle">(${p.platforms.length === r.platforms.length ? 'every network' : p.platforms.join(', ')})</span></li>`)}</ul>`}
  ${tags.length > 0 ? snippet('lp-tags', 'Tags to paste into <head>', tags.join('\n'), 'Each tag fixes one of the problems above; replace … with your text.') : ''}
  ${other.map((p, i) => snippet(`lp-other-${i}`, p.code.replace(/_/g, ' '), p.fix ?? '', p.message))}
  ${site ? snippet('lp-site-tag', `The og:image tag for this page from your site ${site.siteName}`, site.tag, `This page is on the origin of ${site.siteId}: the tag gives it its card from the site, read from the page itself, with no key.`) : ''}
  ${card && !site ? html`<div class="lp-cardshot"><img src="${card.previewUrl}" alt="The Cardshot card for this page" width="600" height="315">${snippet('lp-cardshot-tags', 'A Cardshot card as this page’s og:image', cardTags, 'A signed URL of your blog card with the page’s title: it renders this exact card for a year and shows no key.')}</div>` : ''}
</section>`;
}

function attr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
}
