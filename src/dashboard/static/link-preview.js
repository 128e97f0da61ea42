// Link preview: Discord's embed edge takes the page's theme-color. The page's CSP allows no
// inline styles, so the colour (checked on the server) travels in data-accent.
for (const el of document.querySelectorAll('[data-accent]')) {
  el.style.borderLeftColor = el.getAttribute('data-accent');
}
