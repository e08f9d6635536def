// One link between two parts of the bridge (the native Port to the host, a
// frame's Port between relay and worker, both ends of the channel between
// the relay and the page's world): what batches, chunks and measures
// messages, so that the code on either end sees one message at a time.
//
// Sending: send(msg) posts msg at once, as chunk messages
// {type:"chunk", id, seq, last, data} when its JSON is over maxWhole bytes
// (lib/chunks.js cutMessage, the bridge's one cutter). send(msg,
// {together: true}) lets msg wait for the end of the task turn (later), and
// hold() … release() keep every message until release(): the messages that
// waited then go as one {type:"batch", messages:[…]} (several), or alone
// (one), when the peer takes batches (a peer that does not gets each at
// once). A message whose JSON is over oneMax UTF-16 units never waits: it
// goes at once, alone; a batch holds at most batchMax units. Each message's
// JSON is written once, and only when a limit needs it (a link with no limit
// measures nothing); a caller that has it passes it as text.
//
// Receiving: receive(raw) takes what came over the link: a batch's messages
// are handed on one by one, in order, between the hooks hold() and release()
// (so that a router may keep together what came together), each with
// inBatch true; a chunked message is joined (lib/chunks.js ChunkJoiner) and
// handed on whole. A batch or chunk inside a batch or a chunked message is
// refused (problem), as is a malformed chunk or batch.

import { CHUNK_UNITS, ChunkJoiner, cutMessage } from './chunks.js';

// The built-ins a link uses, taken as the module loads: the page's world
// (content/source/bridge.js) loads it before any page script runs, and a
// page may later replace JSON.stringify or queueMicrotask. For the same
// reason arrays are walked with index loops (a page may replace their
// iterator and map).
const isArray = Array.isArray;
const stringify = JSON.stringify;
const parse = JSON.parse;
const microtask = queueMicrotask;

// The types of the two messages a link makes and takes apart (the same on
// every link: lib/protocol.js T and PageLinkType).
const BATCH = 'batch';
const CHUNK = 'chunk';

/** The most of a message's JSON (UTF-16 units) that goes in a batch on the links that limit it. */
export const BATCH_ONE_MAX = 64 << 10;
/** The most JSON (UTF-16 units, at most 3 bytes each) of one batch on the links that limit it. */
export const BATCH_MAX = 1 << 20;

/**
 * Makes a link that posts with post(m) (which may return false, or throw,
 * when the message did not go).
 * @param {(m: object) => (boolean|void)} post
 * @param {object} [o]
 * @param {() => boolean} [o.batches] whether the peer takes batch messages now (default: it does)
 * @param {number} [o.maxWhole] the most bytes of JSON one message may take whole; a longer one goes as chunks (default: no limit, no chunks)
 * @param {number} [o.units] the most UTF-16 units of JSON in one chunk's data
 * @param {string} [o.chunkPrefix] the ids of chunked messages: prefix, then 1, 2, …
 * @param {number} [o.oneMax] a message whose JSON is longer than this (UTF-16 units) never waits for a batch
 * @param {number} [o.batchMax] the most UTF-16 units of JSON of one batch
 * @param {(msg: object) => boolean} [o.measure] whether msg's JSON is written to measure it (when the caller gives no text); one that is not goes whole, and counts as nothing in a batch
 * @param {(fn: () => void) => void} [o.later] runs fn at the end of the task turn (send's together)
 * @param {number} [o.joinMax] the most bytes of unfinished chunked messages held (ChunkJoiner maxBytes)
 * @param {(msg: object, e: Error) => void} [o.unsent] msg could not be measured or posted (post threw)
 * @param {(text: string) => void} [o.problem] something that came was refused
 * @param {{hold: () => void, release: () => void}} [o.batchHooks] told when the messages of a batch that came begin and end
 */
export function createLink(post, {
  batches = () => true,
  maxWhole = Infinity,
  units = CHUNK_UNITS,
  chunkPrefix = 'c',
  oneMax = Infinity,
  batchMax = Infinity,
  measure = () => true,
  later = (fn) => microtask(fn),
  joinMax,
  unsent = () => {},
  problem = () => {},
  batchHooks = null,
} = {}) {
  const measures = maxWhole !== Infinity || oneMax !== Infinity || batchMax !== Infinity;
  // Made when the first chunk comes (most links never get one).
  let joiner = null;
  /** @type {{msg: object, text: string|undefined}[]} what waits for the end of the turn or release() */
  let queue = [];
  let held = 0;
  let queued = false;
  let chunkSeq = 0;
  let handler = () => {};

  // Posts one message as it is; false when it did not go.
  function postOne(m, msg) {
    try {
      return post(m) !== false;
    } catch (e) {
      unsent(msg, e);
      return false;
    }
  }

  // Posts msg now: whole, or as chunks when its JSON (text) is over maxWhole bytes.
  function postNow(msg, text) {
    if (text === undefined) return postOne(msg, msg);
    const parts = cutMessage(msg, `${chunkPrefix}${chunkSeq + 1}`, { text, maxWhole, units });
    if (parts[0] !== msg) chunkSeq++;
    for (let i = 0; i < parts.length; i++) if (!postOne(parts[i], msg)) return false;
    return true;
  }

  /**
   * Sends msg (text: its JSON, when the caller has it): at once, or, when
   * together or between hold() and release(), with the others that wait
   * (now: at once even then). False when it could not go (at once only).
   */
  function send(msg, { text, together = false, now = false } = {}) {
    if (measures && text === undefined && measure(msg)) {
      try {
        text = stringify(msg);
      } catch (e) {
        unsent(msg, e);
        return false;
      }
    }
    if (!now && (held || together) && batches() && !(text !== undefined && text.length > oneMax)) {
      queue.push({ msg, text });
      if (!held && !queued) {
        queued = true;
        later(() => {
          queued = false;
          if (!held) flush();
        });
      }
      return true;
    }
    return postNow(msg, text);
  }

  /**
   * Sends what waits now: one message alone, several as batches of at most
   * batchMax units. Returns the messages that could not go.
   */
  function flush() {
    const list = queue;
    queue = [];
    const failed = [];
    let batch = [];
    let size = 0;
    const go = () => {
      if (batch.length === 1) {
        if (!postNow(batch[0].msg, batch[0].text)) failed.push(batch[0].msg);
      } else if (batch.length > 1) {
        const messages = [];
        for (let i = 0; i < batch.length; i++) messages.push(batch[i].msg);
        if (!postOne({ type: BATCH, messages }, messages[0])) for (let i = 0; i < messages.length; i++) failed.push(messages[i]);
      }
      batch = [];
      size = 0;
    };
    for (let i = 0; i < list.length; i++) {
      const e = list[i];
      const n = e.text === undefined ? 0 : e.text.length;
      if (batch.length && size + n > batchMax) go();
      batch.push(e);
      size += n;
    }
    go();
    return failed;
  }

  /** Keeps what is sent until release(). */
  function hold() {
    held++;
  }

  /** Ends a hold(): what waits goes (flush); returns the messages that could not go. */
  function release() {
    if (held > 0) held--;
    return held ? [] : flush();
  }

  // One message that came; inner: it came in a batch or joined from chunks.
  function take(m, inner, inBatch) {
    if (m !== null && typeof m === 'object' && m.type === BATCH) {
      if (inner) return problem('ignored a batch inside a batch or a chunked message');
      const list = m.messages;
      if (!isArray(list)) return problem('ignored a batch without a "messages" list');
      if (batchHooks) batchHooks.hold();
      try {
        for (let i = 0; i < list.length; i++) take(list[i], true, true);
      } finally {
        if (batchHooks) batchHooks.release();
      }
      return;
    }
    if (m !== null && typeof m === 'object' && m.type === CHUNK) {
      if (inner) return problem('ignored a chunk inside a chunked message or a batch');
      let text;
      try {
        if (!joiner) joiner = new ChunkJoiner(joinMax === undefined ? {} : { maxBytes: joinMax });
        text = joiner.add(m);
      } catch (e) {
        return problem(e.message);
      }
      if (text === null) return;
      let whole;
      try {
        whole = parse(text);
      } catch (e) {
        return problem(`chunked message ${m.id} is not JSON: ${e.message}`);
      }
      return take(whole, true, false);
    }
    handler(m, inBatch);
  }

  return {
    send,
    flush,
    hold,
    release,
    /** Takes one message that came over the link. */
    receive: (raw) => take(raw, false, false),
    /** fn(msg, inBatch) gets each single message that came. */
    onMessage(fn) {
      handler = fn;
    },
    /** Forgets what waits, to go or to be joined (the link was lost). */
    reset() {
      queue = [];
      if (joiner) joiner.reset();
    },
    /** How many messages wait (send's together, or a hold). */
    get waiting() {
      return queue.length;
    },
  };
}
