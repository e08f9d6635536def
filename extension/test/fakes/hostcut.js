// The host's side of chunking, for tests: how webmcp-host cuts a message
// too big for one native-messaging frame (Go leaves out zero values: no
// "seq" for piece 0, no "last" unless true).

/** Splits text into chunk messages of id, size UTF-16 units of data each. */
export function hostChunks(id, text, size) {
  const out = [];
  for (let i = 0, seq = 0; i < text.length; i += size, seq++) {
    const m = { type: 'chunk', id, data: text.slice(i, i + size) };
    if (seq) m.seq = seq;
    if (i + size >= text.length) m.last = true;
    out.push(m);
  }
  return out;
}
