/**
 * Each network's link card drawn as that network draws it (layout, order of the parts, what it
 * leaves out, its colours), from the unfurl report's view of it. Approximations in HTML and
 * CSS (link-preview.css), close enough to see what a reader sees: which title, whether the
 * image is large or a thumbnail, where it is cropped, and when there is no card at all.
 */
import type { PlatformView } from '../../sites/unfurl/types.js';
import { type Html, html } from '../html.js';

/** Where the browser loads an image from (the dashboard's own proxy, see routes/link-preview.ts). */
export type ImageSrc = (url: string) => string;

/** One network's card, in its frame with the network's name and the crawler's answer. */
export function platformCard(v: PlatformView, src: ImageSrc): Html {
  const errors = v.problems.filter((p) => p.severity === 'error').length;
  const warnings = v.problems.filter((p) => p.severity === 'warning').length;
  const state =
    errors > 0
      ? html`<span class="badge error">${errors} error${errors > 1 ? 's' : ''}</span>`
      : warnings > 0
        ? html`<span class="badge warn">${warnings} warning${warnings > 1 ? 's' : ''}</span>`
        : html`<span class="badge active">OK</span>`;
  return html`<section class="lp-platform" aria-label="${v.name}" data-platform="${v.id}">
  <header class="lp-platform-head"><h3>${v.name}</h3>${state}</header>
  <div class="lp-stage lp-stage-${v.id}">${v.card === 'none' ? noCard(v) : card(v, src)}</div>
  ${v.problems.length > 0 ? html`<ul class="lp-problems">${v.problems.map((p) => html`<li class="lp-${p.severity}"><strong>${p.severity}</strong> ${p.message}</li>`)}</ul>` : ''}
</section>`;
}

function noCard(v: PlatformView): Html {
  return html`<div class="lp-none"><p><strong>No card.</strong> ${v.name} shows the bare link:</p><p class="lp-bare">${v.fetch.finalUrl ?? v.domain}</p></div>`;
}

function image(v: PlatformView, src: ImageSrc, cls: string): Html {
  if (!v.image) return html``;
  // The dashboard's CSP allows no style attributes: the frame's proportions are classes.
  const ratio = v.card !== 'large' ? 'lp-ar-1' : v.image.aspect === '2:1' ? 'lp-ar-2' : 'lp-ar-191';
  return html`<div class="${cls} ${ratio}"><img src="${src(v.image.url)}" alt=""></div>`;
}

function text(v: PlatformView, parts: { site?: 'name' | 'domain' | 'DOMAIN'; description?: boolean }): Html {
  const site =
    parts.site === 'name' ? v.siteName : parts.site === 'DOMAIN' ? v.domain.toUpperCase() : v.domain;
  return html`<div class="lp-text">
  ${parts.site ? html`<p class="lp-site">${site}</p>` : ''}
  ${v.title ? html`<p class="lp-title">${v.title}</p>` : ''}
  ${parts.description !== false && v.description ? html`<p class="lp-desc">${v.description}</p>` : ''}
</div>`;
}

/** The card's parts in the network's order; `large` puts the image above (or below) the text. */
function card(v: PlatformView, src: ImageSrc): Html {
  const large = v.card === 'large';
  const layout = large ? 'lp-large' : 'lp-summary';
  switch (v.id) {
    case 'x':
      // Since 2023 X draws a large card as the image with the domain over it, and no title.
      return large
        ? html`<div class="lp-card lp-x ${layout}">${image(v, src, 'lp-img')}<span class="lp-x-domain">${v.domain}</span></div><p class="lp-x-from">From ${v.domain}</p>`
        : html`<div class="lp-card lp-x ${layout}">${image(v, src, 'lp-thumb')}${text(v, { site: 'domain' })}</div>`;
    case 'facebook':
    case 'linkedin':
      return html`<div class="lp-card lp-${v.id} ${layout}">${image(v, src, large ? 'lp-img' : 'lp-thumb')}${text(v, { site: v.id === 'facebook' ? 'DOMAIN' : 'domain' })}</div>`;
    case 'slack':
    case 'discord':
    case 'telegram': {
      // Discord's edge takes the page's theme-color; link-preview.js sets it (no inline styles).
      const accent = v.accentColor ? safeColour(v.accentColor) : '';
      return html`<div class="lp-card lp-${v.id} ${layout}" ${accent ? html`data-accent="${accent}"` : ''}><div class="lp-row">${text(v, { site: 'name' })}${large ? '' : image(v, src, 'lp-thumb')}</div>${large ? image(v, src, 'lp-img') : ''}</div>`;
    }
    case 'whatsapp':
      return html`<div class="lp-bubble lp-whatsapp"><div class="lp-card ${layout}">${image(v, src, large ? 'lp-img' : 'lp-thumb')}${text(v, { site: 'domain' })}</div><p class="lp-link">${v.fetch.finalUrl ?? v.domain}</p></div>`;
    case 'imessage':
      return html`<div class="lp-card lp-imessage ${layout}">${image(v, src, large ? 'lp-img' : 'lp-thumb')}${text(v, { site: 'domain', description: false })}</div>`;
    default:
      return html`<div class="lp-card lp-mastodon ${layout}">${image(v, src, large ? 'lp-img' : 'lp-thumb')}${text(v, { site: 'domain' })}</div>`;
  }
}

/** theme-color comes from the page: only a plain colour reaches the style attribute. */
function safeColour(c: string): string {
  return /^(#[0-9a-f]{3,8}|[a-z]{3,20}|rgba?\([\d\s.,%]+\))$/i.test(c) ? c : 'transparent';
}
