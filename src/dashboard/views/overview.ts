import type { UsageDay } from '../../accounts/manager.js';
import type { Plan } from '../../auth/plans.js';
import type { RateDecision } from '../../ratelimit/limiter.js';
import { TEMPLATE_NAMES } from '../../render/template/registry.js';
import type { Account } from '../../storage/store.js';
import { type Html, html } from '../html.js';
import { alertBox } from './auth.js';
import { count, seconds } from './format.js';
import { appPage } from './layout.js';
import { SERIES, seriesOf, usageChart } from './usage-chart.js';

/** Everything the overview shows. */
export interface OverviewData {
  account: Account;
  csrf: string;
  plan: Plan | undefined;
  budget: RateDecision | null;
  days: UsageDay[];
  activeKeys: number;
  welcome: boolean;
  /** Every template the server has, in display order (default: the built-ins). */
  templates?: readonly string[];
}

/** Usage, plan and the rate-limit budget left now. */
export function overviewPage(d: OverviewData): Html {
  const sums = Object.fromEntries(SERIES.map((s) => [s.id, 0])) as Record<
    (typeof SERIES)[number]['id'],
    number
  >;
  for (const day of d.days) {
    const s = seriesOf(day);
    for (const k of SERIES) sums[k.id] += s[k.id];
  }
  const total = SERIES.reduce((n, s) => n + sums[s.id], 0);
  const served = sums.template + sums.screenshot + sums.cache;
  const hitRate = served === 0 ? null : Math.round((sums.cache / served) * 100);

  return appPage({
    title: 'Overview',
    section: 'overview',
    account: d.account,
    csrf: d.csrf,
    body: html`<div class="page-head">
  <div>
    <h1>Overview</h1>
    <p class="subtle">${d.account.name} · usage of the last 30 days (UTC) and what your plan allows.</p>
  </div>
  <a class="button primary" href="/dashboard/playground">Design a card</a>
</div>
${d.welcome ? alertBox('success', 'Your password is set and you are signed in. Create an API key to start rendering cards.') : ''}
${d.activeKeys === 0 ? html`<div class="callout"><div><strong>No active API key.</strong> Every request to the API needs one.</div><a class="button primary small" href="/dashboard/keys#create">Create a key</a></div>` : ''}
<section class="stats" aria-label="Last 30 days">
  ${stat('Requests', count(total), 'last 30 days')}
  ${stat('Template renders', count(sums.template), 'cards drawn')}
  ${stat('Screenshots', count(sums.screenshot), 'pages captured')}
  ${stat('Cache hit rate', hitRate === null ? '–' : `${hitRate}%`, `${count(sums.cache)} served from cache`)}
  ${stat('Errors', count(sums.error), 'incl. rate-limited', sums.error > 0 ? 'warn' : '')}
</section>
<section class="card" aria-labelledby="usage-title">
  <div class="card-head"><h2 id="usage-title">Requests per day</h2></div>
  ${usageChart(d.days)}
</section>
<section class="card" aria-labelledby="plan-title">
  <div class="card-head"><h2 id="plan-title">Plan</h2>${d.plan ? html`<span class="badge plan">${d.plan.name}</span>` : ''}</div>
  ${d.plan ? planDetails(d.plan, d.budget, d.templates ?? TEMPLATE_NAMES) : html`<p>Your account is on the plan “${d.account.plan}”, which this server does not define. Requests are refused until the operator adds it.</p>`}
</section>`,
  });
}

function stat(label: string, value: string, note: string, tone = ''): Html {
  return html`<div class="stat ${tone}"><p class="stat-label">${label}</p><p class="stat-value">${value}</p><p class="stat-note">${note}</p></div>`;
}

function planDetails(plan: Plan, budget: RateDecision | null, names: readonly string[]): Html {
  const templates = names.map((t) => {
    const ok = plan.templates === '*' || plan.templates.includes(t);
    return html`<li class="${ok ? 'yes' : 'no'}"><span class="visually-hidden">${ok ? 'Included: ' : 'Not included: '}</span>${t}</li>`;
  });
  const shots =
    plan.screenshots === false
      ? 'Not included'
      : plan.screenshots.viewports === '*'
        ? 'All viewports (og, desktop, mobile and custom presets)'
        : plan.screenshots.viewports.join(', ');
  const window = seconds(plan.rateLimit.windowSeconds);
  const remaining = budget?.remaining ?? plan.rateLimit.requests;
  return html`<div class="plan-grid">
  <dl class="facts">
    <div><dt>Templates</dt><dd><ul class="chips">${templates}</ul></dd></div>
    <div><dt>Screenshots</dt><dd>${shots}</dd></div>
    <div><dt>Rate limit</dt><dd>${count(plan.rateLimit.requests)} requests per ${window}, sliding window, shared by all your keys</dd></div>
  </dl>
  <div class="budget">
    <p class="stat-label" id="budget-label">Rate-limit budget left now</p>
    <p class="budget-value"><strong>${count(remaining)}</strong> of ${count(plan.rateLimit.requests)}</p>
    <meter min="0" max="${plan.rateLimit.requests}" low="${Math.ceil(plan.rateLimit.requests * 0.2)}" optimum="${plan.rateLimit.requests}" value="${remaining}" aria-labelledby="budget-label">${remaining} of ${plan.rateLimit.requests}</meter>
    <p class="stat-note">${
      remaining === plan.rateLimit.requests
        ? `Nothing used in the last ${window}.`
        : `One more request frees up in ${Math.max(1, Math.ceil((budget?.resetMs ?? 0) / 1000))} s.`
    }</p>
  </div>
</div>`;
}
