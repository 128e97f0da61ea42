import type { Node } from '../../../src/render/template/types.js';

/** All the text a node draws, its children's included (a paragraph may be a container of spans). */
export const textOf = (n: Node): string =>
  n.type === 'text'
    ? (n.text ?? '')
    : 'children' in n && Array.isArray(n.children)
      ? n.children.map(textOf).join('')
      : '';
