/**
 * Our JSX runtime (no React): `<div>` and friends become takumi container nodes, `<img>` an image
 * node, strings and numbers text nodes, and function components are called straight away. A
 * template's tree is therefore takumi's own node tree, built in one pass with no diffing.
 * esbuild compiles template files with `jsxImportSource: 'cardshot/template'`.
 */
import type { Node, NodeMetadata } from '@takumi-rs/core';
import type { Style } from '../../text/nodes.js';

/** What may appear between tags: nodes, text, numbers, nothing (false, null, undefined), lists of those. */
export type Child = Node | string | number | boolean | null | undefined | readonly Child[];

/** Attributes every intrinsic element takes. */
interface BaseProps {
  style?: Style;
  dir?: 'ltr' | 'rtl';
  lang?: string;
  /** Tailwind classes, as takumi reads them. */
  tw?: string;
  children?: Child;
}

/** A function component: called with its props, returns a node (or several, or nothing). */
export type Component<P> = (props: P) => Child;

const Fragment = Symbol.for('cardshot.fragment');

export { Fragment };

type ElementType = string | typeof Fragment | Component<Record<string, unknown>>;

/** The automatic runtime's entry point (`jsx` for one child, `jsxs` for several: same here). */
export function jsx(type: ElementType, props: Record<string, unknown>): Child {
  if (typeof type === 'function') return type(props);
  const children = flatten(props.children as Child);
  if (type === Fragment) return children;
  if (type === 'img') return imageNode(props);
  const meta = metaOf(props);
  // A span of plain text is one text node (its style applies to the run), as in HTML.
  if (type === 'span' && children.every((c) => c.type === 'text' && c.style === undefined)) {
    return { type: 'text', text: children.map((c) => (c as { text: string }).text).join(''), ...meta };
  }
  return { type: 'container', children, ...meta };
}
export const jsxs = jsx;
export const jsxDEV = jsx;

/** The classic runtime's factory, for files that set `@jsx h`. */
export function h(type: ElementType, props: Record<string, unknown> | null, ...children: Child[]): Child {
  return jsx(type, { ...props, children });
}

function metaOf(props: Record<string, unknown>): NodeMetadata {
  const meta: Record<string, unknown> = {};
  if (props.style !== undefined) meta.style = props.style;
  for (const key of ['dir', 'lang', 'tw'] as const) if (props[key] !== undefined) meta[key] = props[key];
  return meta as NodeMetadata;
}

function imageNode(props: Record<string, unknown>): Node {
  if (typeof props.src !== 'string') {
    throw new Error('<img src> must be a string: register bytes with image(name, bytes) and pass its result');
  }
  const node: Record<string, unknown> = { type: 'image', src: props.src, ...metaOf(props) };
  if (typeof props.width === 'number') node.width = props.width;
  if (typeof props.height === 'number') node.height = props.height;
  return node as Node;
}

/** Text nodes made here from strings, which the next string may extend. */
const plainText = new WeakSet<Node>();

/** Children as nodes: nested lists flattened, nothing dropped, text and numbers as text nodes. */
export function flatten(child: Child, out: Node[] = []): Node[] {
  if (child === null || child === undefined || typeof child === 'boolean') return out;
  if (typeof child === 'string' || typeof child === 'number') {
    // `Day {n}` is two children: one text node keeps its space (takumi trims each node's ends).
    const last = out[out.length - 1];
    if (last && plainText.has(last)) (last as { text: string }).text += String(child);
    else {
      const node: Node = { type: 'text', text: String(child) };
      plainText.add(node);
      out.push(node);
    }
  } else if (Array.isArray(child)) {
    for (const c of child) flatten(c, out);
  } else {
    out.push(child as Node);
  }
  return out;
}

export namespace JSX {
  /** What an element evaluates to: a node, or several (a fragment, a component). */
  export type Element = Child;
  export interface ElementChildrenAttribute {
    children: unknown;
  }
  export interface IntrinsicElements {
    div: BaseProps;
    span: BaseProps;
    p: BaseProps;
    section: BaseProps;
    header: BaseProps;
    footer: BaseProps;
    main: BaseProps;
    img: Omit<BaseProps, 'children'> & { src: string; alt?: string; width?: number; height?: number };
  }
}
