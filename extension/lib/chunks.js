// Reassembly of chunked messages (host -> extension). The host cuts a message
// whose native-messaging frame would exceed 1 MiB into
//   {"type":"chunk","id":"c9","seq":0,"last":false,"data":"…"} …
// and the receiver concatenates "data" of one id in seq order; after the piece
// with "last":true the text is one whole message. Go's encoder leaves out
// zero values, so a missing "seq" is 0 and a missing "last" is false.

/** The most text the joiner holds for all unfinished messages together. */
export const DEFAULT_MAX_BYTES = 64 << 20;

/** ChunkJoiner reassembles chunked messages. */
export class ChunkJoiner {
  /** @param {{maxBytes?: number}} [opts] */
  constructor(opts = {}) {
    this.maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
    /** @type {Map<string, {parts: string[], next: number, size: number}>} */
    this.pending = new Map();
    this.size = 0;
  }

  /**
   * Takes one chunk message. It returns the whole message's JSON text after
   * the last piece, null before it, and throws an Error (dropping that
   * message's pieces) when a piece is malformed, out of order, or the
   * message grows beyond maxBytes.
   * @returns {string|null}
   */
  add(msg) {
    if (msg === null || typeof msg !== 'object') throw new Error('chunk: not an object');
    const id = msg.id;
    if (typeof id !== 'string' || id === '') throw new Error('chunk: missing "id"');
    const seq = msg.seq ?? 0;
    const data = msg.data ?? '';
    if (typeof data !== 'string') {
      this.drop(id);
      throw new Error(`chunk ${JSON.stringify(id)}: "data" is not a string; the message is dropped`);
    }
    let entry = this.pending.get(id);
    const want = entry ? entry.next : 0;
    if (seq !== want) {
      this.drop(id);
      throw new Error(`chunk ${JSON.stringify(id)}: got piece ${seq}, want ${want}; the message is dropped`);
    }
    if (!entry) {
      entry = { parts: [], next: 0, size: 0 };
      this.pending.set(id, entry);
    }
    if (this.size + data.length > this.maxBytes) {
      this.drop(id);
      throw new Error(`chunk ${JSON.stringify(id)}: more than ${this.maxBytes} bytes pending; the message is dropped`);
    }
    entry.parts.push(data);
    entry.next++;
    entry.size += data.length;
    this.size += data.length;
    if (msg.last !== true) return null;
    this.drop(id);
    return entry.parts.join('');
  }

  /** Forgets the pieces of one message. */
  drop(id) {
    const entry = this.pending.get(id);
    if (!entry) return;
    this.size -= entry.size;
    this.pending.delete(id);
  }

  /** Forgets everything (the link to the host was lost). */
  reset() {
    this.pending.clear();
    this.size = 0;
  }
}
