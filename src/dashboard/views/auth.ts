import { type Html, html } from '../html.js';
import { plainPage } from './layout.js';

/** A message box; `role=alert` so screen readers announce it when the page loads. */
export function alertBox(kind: 'error' | 'info' | 'success', text: string | null | undefined): Html | '' {
  if (!text) return '';
  return html`<div class="alert ${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${text}</div>`;
}

/** The sign-in form. */
export function signInPage(opts: {
  csrf: string;
  email?: string;
  next?: string;
  error?: string | null;
  notice?: string | null;
}): Html {
  return plainPage({
    title: 'Sign in',
    body: html`<section class="auth-card" aria-labelledby="auth-title">
  <h1 id="auth-title">Sign in to your dashboard</h1>
  <p class="lead">Manage API keys, watch usage and design cards.</p>
  ${alertBox('info', opts.notice)}
  ${alertBox('error', opts.error)}
  <form method="post" action="/dashboard/sign-in" class="stack" novalidate>
    <input type="hidden" name="_csrf" value="${opts.csrf}">
    ${opts.next ? html`<input type="hidden" name="next" value="${opts.next}">` : ''}
    <div class="field">
      <label for="email">Email</label>
      <input id="email" name="email" type="email" autocomplete="username" required value="${opts.email ?? ''}" ${opts.email ? '' : html`autofocus`}>
    </div>
    <div class="field">
      <label for="password">Password</label>
      <input id="password" name="password" type="password" autocomplete="current-password" required ${opts.email ? html`autofocus` : ''}>
    </div>
    <button class="button primary block" type="submit">Sign in</button>
  </form>
  <p class="hint">No password yet? Use the invite link from <code>npx cardshot accounts create</code>, or set one with <code>npx cardshot accounts set-password &lt;email&gt;</code>.</p>
</section>`,
  });
}

/** The invite form: choose a password, then go straight in. */
export function invitePage(opts: {
  csrf: string;
  token: string;
  email: string | null;
  error?: string | null;
}): Html {
  if (opts.email === null) {
    return plainPage({
      title: 'Invite link',
      body: html`<section class="auth-card" aria-labelledby="auth-title">
  <h1 id="auth-title">This invite link cannot be used</h1>
  <p class="lead">It has expired or was already used. Ask the operator for a new one (<code>npx cardshot accounts invite &lt;email&gt;</code>), or sign in if you have set your password.</p>
  <a class="button primary block" href="/dashboard/sign-in">Go to sign-in</a>
</section>`,
    });
  }
  return plainPage({
    title: 'Set your password',
    body: html`<section class="auth-card" aria-labelledby="auth-title">
  <h1 id="auth-title">Welcome to Cardshot</h1>
  <p class="lead">Choose a password for <strong>${opts.email}</strong>. This link works once.</p>
  ${alertBox('error', opts.error)}
  <form method="post" action="/dashboard/invite" class="stack" novalidate>
    <input type="hidden" name="_csrf" value="${opts.csrf}">
    <input type="hidden" name="token" value="${opts.token}">
    <input type="text" name="username" autocomplete="username" value="${opts.email}" hidden>
    <div class="field">
      <label for="password">New password</label>
      <input id="password" name="password" type="password" autocomplete="new-password" minlength="10" required aria-describedby="password-hint" autofocus>
      <p class="field-hint" id="password-hint">At least 10 characters. A passphrase of a few words is easy to remember and hard to guess.</p>
    </div>
    <div class="field">
      <label for="confirm">Repeat the password</label>
      <input id="confirm" name="confirm" type="password" autocomplete="new-password" required>
    </div>
    <button class="button primary block" type="submit">Set password and sign in</button>
  </form>
</section>`,
  });
}
