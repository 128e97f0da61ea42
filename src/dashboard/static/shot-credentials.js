// Cardshot dashboard, screenshot playground: the "Signed in" fieldset (issue 29 §2). Its inputs
// have no `name`, so no form submission or address can carry them; this reveals the fieldset,
// adds and removes header and cookie rows, and reads the values in POST /render/url's shapes
// when a capture is made. Nothing is written to storage, the history or the page's address.

/**
 * Sets up the fieldset inside `root`; `changed` is called when a row is removed (typing fires the
 * form's own input events). Returns `read()` (the credentials, or null when none is filled in)
 * and `names(c)` (what the signing call may know of them: names, never values).
 */
window.cardshotShotCredentials = (root, changed) => {
  const fieldset = root.querySelector('[data-credentials]');
  if (fieldset) fieldset.hidden = false;
  const rowsOf = (kind) => root.querySelector(`[data-rows="${kind}"]`);
  root.addEventListener('click', (event) => {
    const add = event.target.closest('[data-add-row]');
    const remove = event.target.closest('[data-remove-row]');
    if (add) {
      const rows = rowsOf(add.getAttribute('data-add-row'));
      const row = rows.firstElementChild.cloneNode(true);
      for (const input of row.querySelectorAll('input')) input.value = '';
      rows.append(row);
      row.querySelector('input').focus();
    } else if (remove) {
      const row = remove.closest('.cred-row');
      const rows = row.parentElement;
      // The last row stays, emptied: it is where the next one is typed.
      if (rows.children.length > 1) row.remove();
      else for (const input of row.querySelectorAll('input')) input.value = '';
      changed();
    }
  });
  const pairs = (kind) =>
    rowsOf(kind)
      ? [...rowsOf(kind).children]
          .map((row) => [
            row.querySelector('[data-part="name"]').value.trim(),
            row.querySelector('[data-part="value"]').value,
          ])
          .filter(([name]) => name !== '')
      : [];
  const credentialValue = (key) => root.querySelector(`[data-credential="${key}"]`)?.value ?? '';
  /** The credentials in the API's shapes, or null when none is filled in. */
  const readCredentials = () => {
    const found = {};
    const headers = pairs('header');
    const cookies = pairs('cookie');
    if (headers.length > 0) found.headers = Object.fromEntries(headers);
    if (cookies.length > 0) found.cookies = cookies.map(([name, value]) => ({ name, value }));
    const username = credentialValue('basicAuth.username');
    const password = credentialValue('basicAuth.password');
    if (username !== '' || password !== '') found.basicAuth = { username, password };
    const userAgent = credentialValue('userAgent').trim();
    if (userAgent !== '') found.userAgent = userAgent;
    return Object.keys(found).length > 0 ? found : null;
  };
  /** What the signing call may know of them: names, never values. */
  const credentialNames = (c) =>
    c && {
      headers: Object.keys(c.headers ?? {}),
      cookies: (c.cookies ?? []).map((k) => k.name),
      basicAuth: Boolean(c.basicAuth),
      userAgent: Boolean(c.userAgent),
    };
  return { read: readCredentials, names: credentialNames };
};
