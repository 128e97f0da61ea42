/**
 * Drops the last page of a PDF that Chromium printed, so a page that prints more than the bound
 * is printed once (up to one page more than the bound) rather than twice: each print lays the
 * whole document out again, 10–20 s for a 10,000-page page on this machine (measured,
 * 2026-11-28), so printing it again cut took as long as the first print.
 *
 * How: a PDF incremental update (ISO 32000-1 §7.5.6), the standard way to change a PDF without
 * rewriting it. The page-tree nodes on the path to the last page are written again at the end,
 * without that page and with their /Count one less, followed by an xref section for them and a
 * trailer whose /Prev points at the original one. Readers follow the page tree, so the page is
 * gone for them (pdfinfo counts one page less, pdftotext reads none of its text); its objects
 * stay in the file, unreferenced.
 *
 * Only the layout Chromium (Skia) writes is taken: a classic xref table and trailer, page-tree
 * nodes as flat dictionaries with /Count and /Kids. Anything else answers `undefined` and the
 * caller prints again, cut, as before.
 */

/** The bytes of a PDF: latin1 keeps one character per byte, so string offsets are byte offsets. */
type Pdf = string;

interface Node {
  num: number;
  dict: string;
  kids: number[];
  count: number;
}

/** The dictionary of object `num` (flat: no nested `<<`), or undefined. */
function objectDict(pdf: Pdf, num: number): string | undefined {
  const m = new RegExp(`(?:^|[\\s>])${num} 0 obj\\s*<<((?:(?!<<|>>)[\\s\\S])*)>>\\s*endobj`).exec(pdf);
  return m?.[1];
}

function pagesNode(pdf: Pdf, num: number): Node | undefined {
  const dict = objectDict(pdf, num);
  if (!dict || !/\/Type\s*\/Pages(?![a-zA-Z])/.test(dict)) return undefined;
  const kids = /\/Kids\s*\[([\d\s R]*)\]/.exec(dict);
  const count = /\/Count\s+(\d+)/.exec(dict);
  if (!kids || !count) return undefined;
  const refs = [...(kids[1] ?? '').matchAll(/(\d+)\s+0\s+R/g)].map((r) => Number(r[1]));
  return { num, dict, kids: refs, count: Number(count[1]) };
}

/** The node's dictionary with `kids` and `count` written in. */
function rewrite(node: Node, kids: number[], count: number): string {
  return node.dict
    .replace(/\/Kids\s*\[[\d\s R]*\]/, `/Kids [${kids.map((k) => `${k} 0 R`).join(' ')}]`)
    .replace(/\/Count\s+\d+/, `/Count ${count}`);
}

/** The PDF without its last page, or undefined when its layout is not the one handled here. */
export function dropLastPage(bytes: Buffer): Buffer | undefined {
  const pdf: Pdf = bytes.toString('latin1');
  const startxref = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(pdf);
  const trailerAt = pdf.lastIndexOf('trailer');
  const trailer = trailerAt >= 0 ? /^trailer\s*<<([^<>]*)>>/.exec(pdf.slice(trailerAt))?.[1] : undefined;
  const size = trailer && /\/Size\s+(\d+)/.exec(trailer);
  const root = trailer && /\/Root\s+(\d+)\s+0\s+R/.exec(trailer);
  if (!startxref || !trailer || !size || !root) return undefined;
  const catalog = objectDict(pdf, Number(root[1]));
  const top = catalog && /\/Pages\s+(\d+)\s+0\s+R/.exec(catalog);
  if (!top) return undefined;
  // From the root down the last kid of each node, to the node whose last kid is a page.
  const path: Node[] = [];
  let node = pagesNode(pdf, Number(top[1]));
  while (node) {
    path.push(node);
    const last = node.kids.at(-1);
    if (last === undefined || path.length > 32) return undefined;
    const next = pagesNode(pdf, last);
    if (!next) break;
    node = next;
  }
  if (!node || path.length === 0 || path[0]!.count < 2) return undefined;
  // Bottom up: the leaf loses its last kid; a node left empty is dropped from its parent in turn.
  const updates: Array<[number, string]> = [];
  let drop = true;
  for (let i = path.length - 1; i >= 0; i--) {
    const n = path[i]!;
    const kids: number[] = drop ? n.kids.slice(0, -1) : n.kids;
    drop = kids.length === 0 && i > 0;
    if (!drop) updates.push([n.num, rewrite(n, kids, n.count - 1)]);
  }
  let body = '\n';
  let offset = bytes.length + 1;
  const entries: string[] = [];
  for (const [num, dict] of updates.sort((a, b) => a[0] - b[0])) {
    const obj = `${num} 0 obj\n<<${dict}>>\nendobj\n`;
    entries.push(`${num} 1\n${String(offset).padStart(10, '0')} 00000 n \n`);
    body += obj;
    offset += obj.length;
  }
  const prevTrailer = trailer.replace(/\/Prev\s+\d+/, '').trim();
  body += `xref\n${entries.join('')}trailer\n<<${prevTrailer}\n/Prev ${startxref[1]}>>\nstartxref\n${offset}\n%%EOF\n`;
  return Buffer.concat([bytes, Buffer.from(body, 'latin1')]);
}
