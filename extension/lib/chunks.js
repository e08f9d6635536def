// Reassembly of chunked messages (host -> extension). The host cuts a message
// whose native-messaging frame would exceed 1 MiB into
//   {"type":"chunk","id":"c9","seq":0,"last":false,"data":"…"} …
// and the receiver concatenates "data" of one id in seq order; after the piece
// with "last":true the text is one whole message. Go's encoder leaves out
// zero values, so a missing "seq" is 0 and a missing "last" is false.

import { utf8Length } from './utf8.js';

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

/**
 * The largest output of a tool call the bridge carries: 64 MiB of UTF-8 JSON
 * (protocol.MaxResult). The relay answers a bigger result with too_large.
 */
export const MAX_RESULT = 64 << 20;

/**
 * The most bytes of JSON one message to the host may take whole
 * (protocol.MaxBrowserChunk, half of Chrome's 64 MiB); a longer one goes as
 * chunks.
 */
export const MAX_WHOLE = 32 << 20;

/**
 * The most UTF-16 code units of JSON text in one chunk's "data": at most 3
 * bytes each once encoded (a quote or backslash escaped takes 2, a non-ASCII
 * unit at most 3), so a chunk stays well under MAX_WHOLE.
 */
export const CHUNK_UNITS = 8 << 20;

/**
 * The messages that carry msg's JSON text: [msg] itself when it is at most
 * maxWhole bytes, else chunk messages {type:"chunk", id, seq, last, data} of
 * at most units code units of data each, never cutting a surrogate pair.
 * text is JSON.stringify(msg), when the caller has it.
 */
export function cutMessage(msg, id, { text = JSON.stringify(msg), maxWhole = MAX_WHOLE, units = CHUNK_UNITS } = {}) {
  if (text.length <= maxWhole / 3 || utf8Length(text) <= maxWhole) return [msg];
  const out = [];
  for (let at = 0, seq = 0; at < text.length; seq++) {
    let end = Math.min(at + units, text.length);
    const c = text.charCodeAt(end - 1);
    if (end < text.length && end - 1 > at && c >= 0xd800 && c <= 0xdbff) end--; // keep a pair whole
    out.push({ type: 'chunk', id, seq, last: end === text.length, data: text.slice(at, end) });
    at = end;
  }
  return out;
}

/**
 * The messages that carry a state or toolsAdded message to the host: [msg]
 * itself when its JSON is at most maxWhole bytes; else a state goes as the
 * state without tools, and then (as a toolsAdded does) its tools as
 * toolsAdded messages of at most batch bytes of tools each (one tool is at
 * most 1 MiB), in order (text: msg's JSON, when the caller has it). However many big tabs there are, no message is
 * then too big for the host (protocol.MaxMessage); other messages are [msg].
 */
export function inParts(msg, { text, maxWhole = MAX_WHOLE, batch = MAX_WHOLE / 4 } = {}) {
  const tools = msg.type === 'state' ? msg.state.tools : msg.type === 'toolsAdded' ? msg.tools : null;
  if (!tools) return [msg];
  text ??= JSON.stringify(msg);
  if (text.length <= maxWhole / 3 || utf8Length(text) <= maxWhole) return [msg];
  const out = msg.type === 'state' ? [{ ...msg, state: { ...msg.state, tools: [] } }] : [];
  let part = [];
  let size = 0;
  for (const t of tools) {
    const n = utf8Length(JSON.stringify(t));
    if (part.length && size + n > batch) {
      out.push({ type: 'toolsAdded', tools: part });
      part = [];
      size = 0;
    }
    part.push(t);
    size += n;
  }
  if (part.length) out.push({ type: 'toolsAdded', tools: part });
  return out;
}
