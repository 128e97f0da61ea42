// Cardshot dashboard: progressive enhancement only. Every page works without this file; it adds
// copy buttons, the custom-environment toggle and the playground's live preview.

/** Copies text to the clipboard, falling back to a selection where the Clipboard API is missing. */
async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.className = 'visually-hidden';
  document.body.append(area);
  area.select();
  document.execCommand('copy');
  area.remove();
}

function initCopyButtons() {
  document.addEventListener('click', async (event) => {
    const button = event.target instanceof Element ? event.target.closest('[data-copy]') : null;
    if (!button) return;
    const source = document.getElementById(button.getAttribute('data-copy'));
    if (!source) return;
    const label = button.textContent;
    try {
      await copyText(source.textContent);
      button.textContent = 'Copied';
    } catch {
      button.textContent = 'Press Ctrl+C';
      const range = document.createRange();
      range.selectNodeContents(source);
      const selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
    }
    setTimeout(() => {
      button.textContent = label;
    }, 1800);
  });
}

function initCustomEnvironment() {
  for (const select of document.querySelectorAll('select[data-custom-toggle]')) {
    const field = document.getElementById(select.getAttribute('data-custom-toggle'));
    if (!field) continue;
    const input = field.querySelector('input');
    const sync = () => {
      const custom = select.value === 'custom';
      field.hidden = !custom;
      if (input) input.required = custom;
    };
    select.addEventListener('change', () => {
      sync();
      if (select.value === 'custom' && input) input.focus();
    });
    sync();
  }
}

function initPlayground() {
  const root = document.querySelector('[data-playground]');
  const form = document.getElementById('pg-form');
  if (!root || !form) return;
  const csrf = root.getAttribute('data-csrf');
  const img = document.getElementById('pg-preview');
  const frame = img.closest('.preview-frame');
  const status = document.getElementById('pg-status');
  const errorBox = document.getElementById('pg-error');
  const meta = document.getElementById('pg-meta');
  const metaHint = document.getElementById('pg-meta-hint');
  const curl = document.getElementById('pg-curl');
  const fields = document.getElementById('pg-fields');
  const sizeLabel = document.getElementById('pg-size-label');
  let timer;
  let seq = 0;

  const showError = (message) => {
    errorBox.textContent = message;
    errorBox.hidden = !message;
  };
  const setCopyEnabled = (on) => {
    for (const b of root.querySelectorAll('.snippet [data-copy]')) b.disabled = !on;
  };
  // Each template's inputs come from its declaration; the server renders the chosen one's and
  // a <template> of each other's. Switching swaps them in, keeping what was typed into a field
  // of the same name (a title stays a title).
  const swapFields = () => {
    const name = form.elements.template.value;
    if (fields.getAttribute('data-fields-for') === name) return;
    const source = root.querySelector(`template[data-fields="${CSS.escape(name)}"]`);
    if (!source) return;
    const stash = document.createElement('template');
    stash.setAttribute('data-fields', fields.getAttribute('data-fields-for'));
    const typed = new Map();
    for (const el of fields.querySelectorAll('[name]')) {
      typed.set(el.name, el.type === 'checkbox' ? el.checked : el.value);
    }
    stash.content.append(...fields.childNodes);
    root.append(stash);
    fields.append(source.content.cloneNode(true));
    source.remove();
    fields.setAttribute('data-fields-for', name);
    for (const el of fields.querySelectorAll('[name]')) {
      if (!typed.has(el.name) || el.name === 'size') continue;
      if (el.type === 'checkbox') el.checked = typed.get(el.name);
      else if (el.type !== 'color' || /^#[0-9a-f]{6}$/i.test(typed.get(el.name)))
        el.value = typed.get(el.name);
    }
  };

  // When the image itself fails (an imageUrl that cannot be fetched, a rate limit), the same
  // URL is asked again with fetch to read the API's { "error": … } message.
  img.addEventListener('error', async () => {
    frame.classList.remove('loading');
    if (!img.getAttribute('src')) return;
    try {
      const res = await fetch(img.src, { credentials: 'omit' });
      const body = await res.json();
      showError(body.error || `The preview failed (HTTP ${res.status}).`);
    } catch {
      showError('The preview could not be loaded.');
    }
    status.textContent = '';
  });
  img.addEventListener('load', () => {
    frame.classList.remove('loading');
    status.textContent = 'Up to date';
  });

  const update = async () => {
    const mine = ++seq;
    const data = Object.fromEntries(new FormData(form));
    status.textContent = 'Rendering…';
    frame.classList.add('loading');
    try {
      const res = await fetch('/dashboard/playground/preview', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'x-csrf-token': csrf },
        body: JSON.stringify(data),
        credentials: 'same-origin',
      });
      if (mine !== seq) return;
      const body = await res.json();
      if (res.status === 401) {
        window.location.href = '/dashboard/sign-in?expired=1';
        return;
      }
      if (!res.ok) {
        frame.classList.remove('loading');
        status.textContent = '';
        showError(body.error || `HTTP ${res.status}`);
        return;
      }
      showError('');
      meta.textContent = body.metaTag;
      if (metaHint && body.ogHint) metaHint.textContent = body.ogHint;
      curl.textContent = body.curl;
      sizeLabel.textContent = `${body.width} × ${body.height} PNG`;
      img.width = body.width;
      img.height = body.height;
      setCopyEnabled(true);
      img.hidden = false;
      if (img.getAttribute('src') === body.previewUrl) {
        frame.classList.remove('loading');
        status.textContent = 'Up to date';
      } else {
        img.src = body.previewUrl;
      }
      const url = new URL(window.location.href);
      url.search = new URLSearchParams(data).toString();
      window.history.replaceState(null, '', url);
    } catch {
      if (mine !== seq) return;
      frame.classList.remove('loading');
      status.textContent = '';
      showError('The dashboard could not be reached. Check your connection and try again.');
    }
  };

  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(update, 350);
  };
  form.addEventListener('input', schedule);
  form.addEventListener('change', (event) => {
    if (event.target === form.elements.template) swapFields();
    schedule();
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearTimeout(timer);
    update();
  });
}

function focusReveal() {
  const panel = document.getElementById('new-key-panel');
  if (panel) panel.focus();
}

document.addEventListener('DOMContentLoaded', () => {
  initCopyButtons();
  initCustomEnvironment();
  initPlayground();
  focusReveal();
});
