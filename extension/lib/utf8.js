// The UTF-8 size of JavaScript text, the one measure of "bytes" in the
// extension: the limits of results (lib/chunks.js), of schemas
// (lib/schema.js), of tools (lib/registry.js) and of UI context
// (lib/snapshot.js) all count with it, as Go counts len(b) of the UTF-8.

/**
 * The length of s in UTF-8 bytes, as TextEncoder encodes it: a surrogate
 * pair is 4 bytes, a lone surrogate 3 (U+FFFD). JSON.stringify never writes
 * a lone surrogate (it escapes it as ASCII), so for JSON text this is the
 * size of the text on the wire.
 */
export function utf8Length(s) {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 2; // the pair's two units: 4 bytes
      i++;
    } else n += 2;
  }
  return n;
}
