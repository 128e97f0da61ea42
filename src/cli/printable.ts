/**
 * Text from outside (a URL file, a server's message) made safe to print on a terminal: C0 and C1
 * control characters and DEL become `\xNN`, the bidirectional controls `\u{NNNN}`. A raw ESC or
 * BEL lets a URL file drive the terminal (OSC 52 writes the clipboard, OSC 8 fakes links, CSI
 * moves the cursor over earlier lines), and a bidi override makes a line read differently from
 * what it holds. Tab and newline are escaped too: one entry stays one line.
 */
export function printable(text: string): string {
  let out = '';
  for (const c of text) {
    const code = c.codePointAt(0)!;
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) out += `\\x${hex(code, 2)}`;
    else if (isBidiOrSeparator(code)) out += `\\u{${hex(code, 4)}}`;
    else out += c;
  }
  return out;
}

/** LRM/RLM, the line and paragraph separators, the embeddings, overrides and isolates. */
function isBidiOrSeparator(code: number): boolean {
  return (
    code === 0x200e ||
    code === 0x200f ||
    (code >= 0x2028 && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069)
  );
}

function hex(n: number, width: number): string {
  return n.toString(16).toUpperCase().padStart(width, '0');
}
