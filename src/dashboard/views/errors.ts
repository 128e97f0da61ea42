import type { Account } from '../../storage/store.js';
import { type Html, html } from '../html.js';
import { appPage, plainPage } from './layout.js';

/** A friendly error page (404, 403, 429, 500…), inside the app shell when signed in. */
export function errorPage(opts: {
  status: number;
  heading: string;
  message: string;
  account?: Account | undefined;
  csrf?: string;
}): Html {
  const body = html`<section class="error-page" aria-labelledby="error-title">
  <p class="error-code">${opts.status}</p>
  <h1 id="error-title">${opts.heading}</h1>
  <p class="lead">${opts.message}</p>
  <div class="actions">
    <a class="button primary" href="/dashboard">Back to the dashboard</a>
    <a class="button" href="/dashboard/keys">API keys</a>
  </div>
</section>`;
  if (opts.account) {
    return appPage({
      title: opts.heading,
      section: null,
      account: opts.account,
      csrf: opts.csrf ?? '',
      body,
    });
  }
  return plainPage({ title: opts.heading, body: html`<div class="auth-card">${body}</div>` });
}

/** The headline shown for a status on the error page. */
export function headingFor(status: number): string {
  if (status === 404) return 'Page not found';
  if (status === 403) return 'This request was refused';
  if (status === 429) return 'Too many requests';
  if (status === 401) return 'Please sign in';
  if (status >= 500) return 'Something went wrong on our side';
  return 'This request could not be completed';
}
