// Cardshot dashboard, Theme page: keeps each colour picker and its text field together, redraws
// the preview with the unsaved values (debounced; a newer change cancels the older request) and
// uploads a logo file. Without this file the form still saves and the preview shows the saved theme.

const DEBOUNCE_MS = 250;

function initTheme() {
  const root = document.querySelector('[data-theme-page]');
  const form = document.getElementById('theme-form');
  const img = document.getElementById('theme-preview');
  if (!root || !form) return;
  const csrf = root.getAttribute('data-csrf');
  const frame = img ? img.closest('.preview-frame') : null;
  const template = document.getElementById('theme-template');
  const size = document.getElementById('theme-size');
  const status = document.getElementById('theme-status');
  const errorBox = document.getElementById('theme-error');
  const uses = document.getElementById('theme-uses');
  const sizeLabel = document.getElementById('theme-preview-size');
  let timer;
  let inflight;
  let seq = 0;
  let shownUrl;

  const showError = (box, message) => {
    box.textContent = message;
    box.hidden = !message;
  };

  // Picker and text field show the same colour; the text field is what the form sends.
  for (const picker of root.querySelectorAll('input[type="color"][data-color-for]')) {
    const text = document.getElementById(picker.getAttribute('data-color-for'));
    picker.addEventListener('input', () => {
      text.value = picker.value.toUpperCase();
      schedule();
    });
    text.addEventListener('input', () => {
      const v = text.value.trim();
      if (/^#?[0-9a-f]{6}$/i.test(v)) picker.value = `#${v.replace('#', '').toLowerCase()}`;
    });
  }

  const syncTemplate = () => {
    if (!template) return;
    const option = template.selectedOptions[0];
    const sizes = (option?.getAttribute('data-sizes') || 'og').split(',');
    for (const o of size.options) o.disabled = !sizes.includes(o.value);
    if (size.selectedOptions[0]?.disabled) size.value = sizes[0];
    const themed = option?.getAttribute('data-themed') === '1';
    uses.textContent = themed
      ? 'Drawn with the values in the form, saved or not.'
      : 'This template does not draw themes: the preview shows its own look.';
  };

  const showPreview = (blob, mine) => {
    const option = size.selectedOptions[0];
    const [w, h] = (option?.textContent.split('·')[1] || '1200 × 630').split('×').map((n) => n.trim());
    img.width = Number(w);
    img.height = Number(h);
    sizeLabel.textContent = `${w} × ${h} PNG`;
    if (shownUrl) URL.revokeObjectURL(shownUrl);
    shownUrl = URL.createObjectURL(blob);
    img.src = shownUrl;
    img.setAttribute('data-drawn', String(mine));
    showError(errorBox, '');
    frame.classList.remove('loading');
    status.textContent = 'Preview up to date (not saved)';
  };

  const update = async () => {
    if (!img || !template) return;
    const mine = ++seq;
    inflight?.abort();
    inflight = new AbortController();
    const data = Object.fromEntries(new FormData(form));
    delete data._csrf;
    data.template = template.value;
    data.size = size.value;
    status.textContent = 'Rendering…';
    frame.classList.add('loading');
    try {
      const res = await fetch('/dashboard/theme/preview', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'x-csrf-token': csrf },
        body: JSON.stringify(data),
        credentials: 'same-origin',
        signal: inflight.signal,
      });
      if (mine !== seq) return;
      if (res.status === 401) {
        window.location.href = '/dashboard/sign-in?expired=1';
        return;
      }
      if (res.status === 429) {
        // One preview at a time per account: this change is drawn once the last one is done.
        timer = setTimeout(update, 400);
        return;
      }
      if (!res.ok) {
        const body = await res.json().catch(() => ({}));
        frame.classList.remove('loading');
        status.textContent = '';
        showError(errorBox, body.error || `The preview failed (HTTP ${res.status}).`);
        return;
      }
      const blob = await res.blob();
      if (mine === seq) showPreview(blob, mine);
    } catch (err) {
      if (err && err.name === 'AbortError') return;
      if (mine !== seq) return;
      frame.classList.remove('loading');
      status.textContent = '';
      showError(errorBox, 'The preview could not be loaded.');
    }
  };

  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(update, DEBOUNCE_MS);
  }

  form.addEventListener('input', schedule);
  form.addEventListener('change', schedule);
  template?.addEventListener('change', () => {
    syncTemplate();
    schedule();
  });
  size?.addEventListener('change', schedule);
  syncTemplate();
  // The image the server put in the page shows the saved theme (or none); the form may differ
  // (the defaults before a first save, or values sent back with an error): draw what it says.
  update();

  const file = document.getElementById('theme-logo-file');
  // The new logo is shown in place and drawn in the preview: unsaved colours stay in the form.
  const showLogo = (body) => {
    let logo = document.getElementById('theme-logo');
    if (!logo) {
      const box = document.createElement('div');
      box.className = 'logo-frame';
      logo = document.createElement('img');
      logo.id = 'theme-logo';
      logo.alt = 'Your logo';
      box.append(logo);
      file.closest('.field').before(box);
    }
    logo.width = body.logo.width;
    logo.height = body.logo.height;
    logo.src = `/dashboard/theme/logo.png?v=${body.updatedAt}`;
    document.getElementById('theme-logo-size').textContent = `${body.logo.width} × ${body.logo.height} PNG`;
    document.getElementById('theme-saved').textContent = 'Logo saved';
    update();
  };
  const logoError = document.getElementById('theme-logo-error');
  file?.addEventListener('change', async () => {
    const chosen = file.files?.[0];
    if (!chosen) return;
    showError(logoError, '');
    try {
      const res = await fetch('/dashboard/theme/logo', {
        method: 'POST',
        headers: { 'Content-Type': 'application/octet-stream', 'x-csrf-token': csrf },
        body: chosen,
        credentials: 'same-origin',
      });
      const body = await res.json().catch(() => ({}));
      if (res.ok) showLogo(body);
      else showError(logoError, body.error || `The upload failed (HTTP ${res.status}).`);
    } catch {
      showError(logoError, 'The upload failed; check your connection and try again.');
    }
    file.value = '';
  });

  // A font is kept as soon as it is chosen (checked by the server first); the page reloads to
  // list it and offer its family.
  const fontFile = document.getElementById('theme-font-file');
  const fontError = document.getElementById('theme-font-error');
  fontFile?.addEventListener('change', async () => {
    const chosen = fontFile.files?.[0];
    if (!chosen) return;
    showError(fontError, '');
    const family = document.getElementById('theme-font-upload-family')?.value.trim() ?? '';
    fontFile.disabled = true;
    try {
      const res = await fetch(
        `/dashboard/theme/fonts${family ? `?family=${encodeURIComponent(family)}` : ''}`,
        {
          method: 'POST',
          headers: { 'Content-Type': 'application/octet-stream', 'x-csrf-token': csrf },
          body: chosen,
          credentials: 'same-origin',
        },
      );
      const body = await res.json().catch(() => ({}));
      if (res.ok) {
        window.location.assign('/dashboard/theme?notice=font-added');
        return;
      }
      showError(fontError, body.error || `The upload failed (HTTP ${res.status}).`);
    } catch {
      showError(fontError, 'The upload failed; check your connection and try again.');
    }
    fontFile.disabled = false;
    fontFile.value = '';
  });
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', initTheme);
else initTheme();
