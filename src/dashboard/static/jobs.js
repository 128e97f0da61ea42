// Cardshot dashboard, Jobs pages: while a job runs, its progress and items are fetched again
// every few seconds and swapped in place (no reload: the scroll position and focus stay). The
// region stops updating once the server renders it without data-live (the job has ended).
// Without this file the pages still work; they show the state when they were loaded.

const EVERY_MS = 3000;

function initLiveRegion() {
  const region = document.querySelector('[data-live]');
  if (!region) return;
  const id = region.id;
  const tick = async () => {
    try {
      const res = await fetch(location.href, {
        headers: { accept: 'text/html' },
        credentials: 'same-origin',
      });
      if (!res.ok) return;
      const doc = new DOMParser().parseFromString(await res.text(), 'text/html');
      const fresh = doc.getElementById(id);
      const current = document.getElementById(id);
      if (!fresh || !current) return;
      current.replaceWith(fresh);
      if (!fresh.hasAttribute('data-live')) return;
    } catch {
      // Offline for a moment: try again at the next tick.
    }
    setTimeout(tick, EVERY_MS);
  };
  setTimeout(tick, EVERY_MS);
}

initLiveRegion();
