import { describe, expect, it } from 'vitest';
import { html, raw } from '../../src/dashboard/html.js';

describe('html template', () => {
  it('escapes every interpolated value, in text and in attributes', () => {
    const evil = `"><script>alert('x')</script>&\``;
    expect(html`<p title="${evil}">${evil}</p>`.value).toBe(
      '<p title="&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;&#96;">&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;&#96;</p>',
    );
  });

  it('nests without double escaping, joins arrays and drops null, undefined and booleans', () => {
    const items = ['a<b', 'c'].map((x) => html`<li>${x}</li>`);
    expect(html`<ul>${items}</ul>${null}${undefined}${false}${true}${0}`.value).toBe(
      '<ul><li>a&lt;b</li><li>c</li></ul>0',
    );
    expect(html`${raw('<br>')}`.value).toBe('<br>');
  });
});
