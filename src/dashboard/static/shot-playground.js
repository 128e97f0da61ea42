// Cardshot dashboard, screenshot playground: progressive enhancement only (the page works without
// this file). As the form changes, the signed URL and the curl command follow (the server signs
// them; nothing is captured). A capture runs only on "Capture", since each one loads the page in
// a browser and counts against the account: the signed preview URL is fetched, so the API's
// error message, the format and the X-Page-Height facts can be shown beside the image.
//
// Credentials (shot-credentials.js) are sent only in the body of a capture POST to the
// dashboard, which renders it as the API's POST /render/url: never in the address, the history,
// the signing call or any browser storage.

function initShotPlayground() {
  const root = document.querySelector('[data-shot-playground]');
  const form = document.getElementById('shot-form');
  if (!root || !form) return;
  const csrf = root.getAttribute('data-csrf');
  const byId = (id) => document.getElementById(id);
  const img = byId('shot-preview');
  const pdf = byId('shot-pdf');
  const jsonBox = byId('shot-json');
  const pageFacts = byId('shot-page-facts');
  const jsonBody = byId('shot-json-body');
  const download = byId('shot-download');
  const frame = img.closest('.shot-frame');
  const status = byId('shot-status');
  const errorBox = byId('shot-error');
  const note = byId('shot-note');
  const facts = byId('shot-facts');
  const signed = byId('shot-signed');
  const signedHint = byId('shot-signed-hint');
  const curl = byId('shot-curl');
  const format = form.elements.format;
  const quality = form.elements.quality;
  let timer;
  let seq = 0;
  let captureSeq = 0;
  let objectUrl = null;
  let captured = null;

  const showError = (message) => {
    errorBox.textContent = message;
    errorBox.hidden = !message;
  };
  const setCopyEnabled = (on) => {
    for (const b of root.querySelectorAll('.snippet [data-copy]')) b.disabled = !on;
  };
  // PNG is lossless: quality is sent only for the other formats (the API refuses it with PNG).
  const syncQuality = () => {
    if (!quality || !format || quality.hasAttribute('data-plan-off')) return;
    quality.disabled = format.value === 'png';
  };
  // The signed-in fieldset (shot-credentials.js): read at each capture, never stored.
  const secretsOf = window.cardshotShotCredentials(root, () => schedule());
  const readCredentials = secretsOf.read;
  const credentialNames = secretsOf.names;
  const kb = (bytes) => (bytes < 1000 ? `${bytes} B` : `${(bytes / 1000).toFixed(1)} KB`);

  const update = async () => {
    const mine = ++seq;
    const data = Object.fromEntries(new FormData(form));
    if (!data.url) {
      showError('');
      signed.textContent = '';
      curl.textContent = '';
      setCopyEnabled(false);
      return null;
    }
    try {
      const res = await fetch('/dashboard/playground/screenshot/preview', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'x-csrf-token': csrf },
        body: JSON.stringify({ ...data, credentialNames: credentialNames(readCredentials()) }),
        credentials: 'same-origin',
      });
      if (mine !== seq) return null;
      if (res.status === 401) {
        window.location.href = '/dashboard/sign-in?expired=1';
        return null;
      }
      const body = await res.json();
      if (!res.ok) {
        showError(body.error || `HTTP ${res.status}`);
        setCopyEnabled(false);
        return null;
      }
      showError('');
      body.data = data;
      signed.textContent = body.signedUrl;
      if (signedHint) signedHint.textContent = body.signedHint;
      curl.textContent = body.curl;
      setCopyEnabled(true);
      if (!body.signedUrl) root.querySelector('[data-copy="shot-signed"]')?.setAttribute('disabled', '');
      // The address holds the form's named fields only: never a credential.
      const url = new URL(window.location.href);
      url.search = new URLSearchParams(data).toString();
      window.history.replaceState(null, '', url);
      status.textContent =
        body.previewUrl === captured ? 'Up to date' : 'Press Capture to take the screenshot';
      return body;
    } catch {
      if (mine !== seq) return null;
      showError('The dashboard could not be reached. Check your connection and try again.');
      return null;
    }
  };

  const shown = (which) => {
    img.hidden = which !== 'img';
    pdf.hidden = which !== 'pdf';
    jsonBox.hidden = which !== 'json';
  };

  const showFacts = (res, blob, started, kind) => {
    const secs = ((performance.now() - started) / 1000).toFixed(1);
    const cache = res.headers.get('x-cache') || '';
    const tail = `${kb(blob.size)} · ${cache} · ${secs} s`;
    if (kind === 'PDF') {
      const pages = res.headers.get('x-pdf-pages');
      facts.textContent = `PDF · ${pages} page${pages === '1' ? '' : 's'} · ${tail}`;
    } else {
      img.addEventListener(
        'load',
        () => {
          facts.textContent = `${img.naturalWidth} × ${img.naturalHeight} · ${kind} · ${tail}`;
        },
        { once: true },
      );
    }
    const height = res.headers.get('x-page-height');
    const cut = res.headers.get('x-full-page-truncated') === 'true';
    note.textContent =
      res.headers.get('x-pdf-truncated') === 'true'
        ? 'The page prints more pages than this server allows in one PDF; it stops at the last one allowed.'
        : cut
          ? `The page is ${height} px tall; the image stops at this server's full-page height cap.`
          : height
            ? `The whole page: ${height} px tall.`
            : '';
    note.hidden = !note.textContent;
  };

  /** response=json: the page's facts, the answer itself, and the image from its signed URL. */
  const showJson = (answer, res, blob, started) => {
    pageFacts.replaceChildren();
    const page = answer.page || {};
    const rows = [
      ['Title', page.title],
      ['Description', page.description],
      ['Final URL', page.finalUrl],
      ['Status', page.status],
      ['Language', page.lang],
      ['Canonical', page.canonical],
      ['Theme colour', page.themeColor],
      ['og:title', page.openGraph?.title],
      ['og:image', page.openGraph?.image],
    ];
    for (const [term, value] of rows) {
      if (value === null || value === undefined || value === '') continue;
      const div = document.createElement('div');
      const dt = document.createElement('dt');
      const dd = document.createElement('dd');
      dt.textContent = term;
      dd.textContent = String(value);
      div.append(dt, dd);
      pageFacts.append(div);
    }
    jsonBody.textContent = JSON.stringify(answer, null, 2);
    const image = answer.image || {};
    const secs = ((performance.now() - started) / 1000).toFixed(1);
    const size = image.width ? `${image.width} × ${image.height} · ` : '';
    facts.textContent = `JSON · ${size}${(image.contentType || '').replace(/^\w+\//, '').toUpperCase()} · ${kb(image.bytes || 0)} · ${res.headers.get('x-cache') || ''} · ${secs} s`;
    note.textContent = image.url
      ? ''
      : 'No image URL: a URL cannot carry the headers, cookies or password this capture was made with.';
    note.hidden = !note.textContent;
    jsonBox.hidden = false;
    img.hidden = true;
    pdf.hidden = true;
    if (image.url && !/pdf/.test(image.contentType || '')) {
      img.src = image.url;
      img.hidden = false;
    }
    setDownload(blob, 'page.json');
  };

  const setDownload = (blob, name) => {
    if (objectUrl) URL.revokeObjectURL(objectUrl);
    objectUrl = URL.createObjectURL(blob);
    download.href = objectUrl;
    download.download = name;
    download.textContent = `Download ${name}`;
    download.hidden = false;
    return objectUrl;
  };

  /** The capture: the signed GET preview, or with credentials a POST that carries them. */
  const request = (result, fresh) => {
    const secrets = readCredentials();
    if (!secrets)
      return fetch(result.previewUrl, { credentials: 'omit', cache: fresh ? 'reload' : 'default' });
    return fetch('/dashboard/playground/screenshot/capture', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'x-csrf-token': csrf },
      body: JSON.stringify({ ...result.data, ...secrets }),
      credentials: 'same-origin',
      cache: 'no-store',
    });
  };

  const capture = async (result) => {
    const mine = ++captureSeq;
    status.textContent = 'Capturing…';
    frame.classList.add('loading');
    const started = performance.now();
    try {
      // "Capture again" must reach the server: the browser would otherwise answer the same
      // signed URL from its own cache (screenshots are cacheable for their ttl).
      const fresh = form.elements.fresh?.checked === true;
      const res = await request(result, fresh);
      if (mine !== captureSeq) return;
      if (res.status === 401 && !result.previewUrl.startsWith('/render/')) {
        window.location.href = '/dashboard/sign-in?expired=1';
        return;
      }
      const type = res.headers.get('content-type') || '';
      if (!res.ok) {
        const body = await res.json().catch(() => ({}));
        showError(body.error || `The capture failed (HTTP ${res.status}).`);
        status.textContent = '';
        return;
      }
      const blob = await res.blob();
      if (mine !== captureSeq) return;
      showError('');
      if (type.startsWith('application/json')) {
        showJson(JSON.parse(await blob.text()), res, blob, started);
      } else if (type.startsWith('application/pdf')) {
        showFacts(res, blob, started, 'PDF');
        pdf.src = setDownload(blob, 'page.pdf');
        shown('pdf');
      } else {
        const kind = (type || 'image/png').replace('image/', '').toUpperCase();
        showFacts(res, blob, started, kind);
        img.src = setDownload(blob, `page.${kind === 'JPEG' ? 'jpg' : kind.toLowerCase()}`);
        shown('img');
      }
      captured = result.previewUrl;
      status.textContent = 'Up to date';
    } catch {
      if (mine === captureSeq)
        showError('The capture could not be loaded. Check your connection and try again.');
      status.textContent = '';
    } finally {
      if (mine === captureSeq) frame.classList.remove('loading');
    }
  };

  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(update, 300);
  };
  form.addEventListener('input', schedule);
  form.addEventListener('change', () => {
    syncQuality();
    schedule();
  });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clearTimeout(timer);
    const result = await update();
    if (result) await capture(result);
  });
  syncQuality();
  // A page opened with a request in its address (a shared link, a reload): capture it now.
  const initial = img.getAttribute('data-src');
  if (initial) capture({ previewUrl: initial, data: Object.fromEntries(new FormData(form)) });
}

document.addEventListener('DOMContentLoaded', initShotPlayground);
