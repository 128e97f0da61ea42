import type { TestResult } from '../../delivery/service.js';
import type { TargetView } from '../../delivery/views.js';
import type { Account } from '../../storage/store.js';
import { type Html, html } from '../html.js';
import { alertBox } from './auth.js';
import { relative, timeTag } from './format.js';
import { appPage } from './layout.js';

/** What the add form had, to show it again with an error (never the secret). */
export interface TargetForm {
  endpoint: string;
  region: string;
  bucket: string;
  prefix: string;
  pathTemplate: string;
  syncPathTemplate: string;
  accessKeyId: string;
  error?: string;
}

function targetRow(t: TargetView, now: number, csrf: string): Html {
  const created = Date.parse(t.createdAt);
  return html`<tr>
  <th scope="row"><span class="key-name">${t.name}</span><span class="key-id">${t.id}</span></th>
  <td data-label="Bucket"><code>${t.bucket}</code>${t.prefix ? html` <span class="subtle">/${t.prefix}</span>` : ''}<br><span class="subtle url-cell">${t.endpoint}</span></td>
  <td data-label="Keys"><code>${t.pathTemplate}</code><br><code>${t.syncPathTemplate}</code></td>
  <td data-label="Added">${timeTag(created, relative(created, now))}</td>
  <td><div class="row-actions">
    <form method="post" action="/dashboard/storage/${t.id}/test"><input type="hidden" name="_csrf" value="${csrf}"><button class="button small" type="submit">Test</button></form>
    <form method="post" action="/dashboard/storage/${t.id}/delete"><input type="hidden" name="_csrf" value="${csrf}"><button class="button small danger" type="submit">Delete</button></form>
  </div></td>
</tr>`;
}

function input(id: string, label: string, value: string, hint: string, attrs: Html | string = ''): Html {
  return html`<div class="field">
      <label for="st-${id}">${label}</label>
      <input id="st-${id}" name="${id}" value="${value}" aria-describedby="st-${id}-hint" ${attrs}>
      <p class="field-hint" id="st-${id}-hint">${hint}</p>
    </div>`;
}

function addForm(csrf: string, form: TargetForm | undefined): Html {
  const f = form ?? {
    endpoint: '',
    region: '',
    bucket: '',
    prefix: '',
    pathTemplate: '',
    syncPathTemplate: '',
    accessKeyId: '',
  };
  return html`<section class="card" id="add" aria-labelledby="add-title">
  <div class="card-head"><h2 id="add-title">Add a storage target</h2></div>
  ${f.error ? html`<div class="alert error" role="alert" id="add-error">${f.error}</div>` : ''}
  <form method="post" action="/dashboard/storage" class="stack" novalidate autocomplete="off">
    <input type="hidden" name="_csrf" value="${csrf}">
    ${input('endpoint', 'Endpoint', f.endpoint, 'The S3 API address: https://s3.eu-west-1.amazonaws.com, https://ACCOUNT.r2.cloudflarestorage.com, or a MinIO the operator allows.', html`type="url" required placeholder="https://s3.eu-west-1.amazonaws.com"`)}
    ${input('region', 'Region', f.region, 'us-east-1 when left empty (MinIO and R2 expect it).', html`placeholder="eu-west-1"`)}
    ${input('bucket', 'Bucket', f.bucket, 'Lower-case letters, digits, dots and hyphens.', html`required placeholder="my-cards"`)}
    ${input('prefix', 'Prefix', f.prefix, 'Put before every key, for example cardshot/.', html`placeholder="cardshot/"`)}
    ${input('pathTemplate', 'Job item key', f.pathTemplate, 'Default {job}/{index}-{name}.{ext}. Placeholders: {job} {index} {id} {name} {ext} {date} {etag}.', html`placeholder="{job}/{index}-{name}.{ext}"`)}
    ${input('syncPathTemplate', 'Render key', f.syncPathTemplate, 'For store=s3 on a render; default {date}/{id}.{ext}.', html`placeholder="{date}/{id}.{ext}"`)}
    ${input('accessKeyId', 'Access key id', f.accessKeyId, 'A key that may write (and delete, for the test) in this bucket only.', html`required spellcheck="false"`)}
    <div class="field">
      <label for="st-secret">Secret access key</label>
      <input id="st-secret" name="secretAccessKey" type="password" required autocomplete="new-password" aria-describedby="st-secret-hint">
      <p class="field-hint" id="st-secret-hint">Stored encrypted with the server secret; it is never shown again, here or in the API.</p>
    </div>
    <div class="form-actions"><button class="button primary" type="submit">Add target</button></div>
  </form>
</section>`;
}

/** The Storage page: the account's targets, a test's outcome, and the add form. */
export function storagePage(opts: {
  account: Account;
  csrf: string;
  targets: TargetView[];
  now: number;
  notice?: string | null;
  tested?: { id: string; result: TestResult } | null;
  form?: TargetForm;
}): Html {
  const tested = opts.tested;
  return appPage({
    title: 'Storage',
    section: 'storage',
    account: opts.account,
    csrf: opts.csrf,
    body: html`<div class="page-head">
  <div>
    <h1>Storage</h1>
    <p class="subtle">S3-compatible buckets your renders (<code>store=s3</code> with <code>response=json</code>) and jobs (<code>"store": "s3"</code>) are uploaded to.</p>
  </div>
  <a class="button primary" href="#add">Add target</a>
</div>
${alertBox('success', opts.notice)}
${tested ? alertBox(tested.result.ok ? 'success' : 'error', tested.result.ok ? `Target ${tested.id}: wrote and deleted a test object in ${tested.result.durationMs} ms.` : `Target ${tested.id}: ${tested.result.error}`) : ''}
<section class="card flush" aria-labelledby="list-title">
  <div class="card-head padded"><h2 id="list-title">Targets</h2><span class="subtle">${opts.targets.length}</span></div>
  ${
    opts.targets.length === 0
      ? html`<p class="empty-state">No storage targets yet. Add one below to have results written to your bucket.</p>`
      : html`<div class="table-wrap"><table class="stacked endpoints">
    <thead><tr><th scope="col">Name</th><th scope="col">Bucket</th><th scope="col">Keys (jobs, renders)</th><th scope="col">Added</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
    <tbody>${opts.targets.map((t) => targetRow(t, opts.now, opts.csrf))}</tbody>
  </table></div>`
  }
</section>
${addForm(opts.csrf, opts.form)}`,
  });
}
