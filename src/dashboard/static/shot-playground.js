// Cardshot dashboard, screenshot playground: progressive enhancement only (the page works without
// this file). As the form changes, the signed URL and the curl command follow (the server signs
// them; nothing is captured). A capture runs only on "Capture", since each one loads the page in
// a browser and counts against the account: the signed preview URL is fetched, so the API's
// error message, the format and the X-Page-Height facts can be shown beside the image.

function initShotPlayground() {
  const root = document.querySelector('[data-shot-playground]');
  const form = document.getElementById('shot-form');
  if (!root || !form) return;
  const csrf = root.getAttribute('data-csrf');
  const byId = (id) => document.getElementById(id);
  const img = byId('shot-preview');
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
        body: JSON.stringify(data),
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
      signed.textContent = body.signedUrl;
      if (signedHint) signedHint.textContent = body.signedHint;
      curl.textContent = body.curl;
      setCopyEnabled(true);
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

  const showFacts = (res, blob, started) => {
    const secs = ((performance.now() - started) / 1000).toFixed(1);
    const kind = (res.headers.get('content-type') || 'image/png').replace('image/', '').toUpperCase();
    const cache = res.headers.get('x-cache') || '';
    img.addEventListener(
      'load',
      () => {
        facts.textContent = `${img.naturalWidth} × ${img.naturalHeight} · ${kind} · ${kb(blob.size)} · ${cache} · ${secs} s`;
      },
      { once: true },
    );
    const height = res.headers.get('x-page-height');
    const cut = res.headers.get('x-full-page-truncated') === 'true';
    note.textContent = cut
      ? `The page is ${height} px tall; the image stops at this server's full-page height cap.`
      : height
        ? `The whole page: ${height} px tall.`
        : '';
    note.hidden = !note.textContent;
  };

  const capture = async (previewUrl) => {
    const mine = ++captureSeq;
    status.textContent = 'Capturing…';
    frame.classList.add('loading');
    const started = performance.now();
    try {
      // "Capture again" must reach the server: the browser would otherwise answer the same
      // signed URL from its own cache (screenshots are cacheable for their ttl).
      const fresh = form.elements.fresh?.checked === true;
      const res = await fetch(previewUrl, { credentials: 'omit', cache: fresh ? 'reload' : 'default' });
      if (mine !== captureSeq) return;
      if (!res.ok) {
        const body = await res.json().catch(() => ({}));
        showError(body.error || `The capture failed (HTTP ${res.status}).`);
        status.textContent = '';
        return;
      }
      const blob = await res.blob();
      if (mine !== captureSeq) return;
      showError('');
      showFacts(res, blob, started);
      if (objectUrl) URL.revokeObjectURL(objectUrl);
      objectUrl = URL.createObjectURL(blob);
      img.src = objectUrl;
      img.hidden = false;
      captured = previewUrl;
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
    if (result) await capture(result.previewUrl);
  });
  syncQuality();
  // A page opened with a request in its address (a shared link, a reload): capture it now.
  const initial = img.getAttribute('data-src');
  if (initial) capture(initial);
}

document.addEventListener('DOMContentLoaded', initShotPlayground);
