// The link to webmcp-host (native messaging, dev.webmcp.bridge). It keeps
// one native Port open and opens it again with backoff (0.5 s doubling to
// 30 s; at once after a link that lived 10 s) when the host exits. On a new
// link it says hello, waits until the frames have settled, sends the whole
// state, and from then on the registry's changes; a state or toolsAdded over
// 32 MiB of JSON goes in parts (lib/chunks.js inParts: the state without
// tools, then toolsAdded of at most 8 MiB each), any other message over
// 32 MiB as chunks (cutMessage). From the host it joins
// chunked messages, unpacks batches, checks what arrives (answering bad
// calls and requests itself) and hands calls, requests and cancels to
// onMessage.
//
// Answers to calls go at once, unless more calls are under way and the
// host takes batches (its hello says "batch":true): then the answers that
// come back within one task turn go together, as one batch message (small
// ones; a big one goes alone), so that under load a native message carries
// several answers; a lone call's answer never waits.

import { ChunkJoiner, cutMessage, inParts } from '../lib/chunks.js';
import { HOST_NAME, T, checkHostMessage, helloMessage } from '../lib/protocol.js';

export const RECONNECT_MIN = 500;
export const RECONNECT_MAX = 30000;
/** A link that lived this long counts as stable: the next one comes at once (after RECONNECT_MIN). */
export const STABLE_LINK = 10000;
/** An answer whose JSON is longer than this (in UTF-16 units) goes alone, never in a batch. */
export const BATCH_ONE_MAX = 64 << 10;
/** A batch holds at most this much JSON (UTF-16 units, at most 3 bytes each: far under the 32 MiB of a frame). */
export const BATCH_MAX = 1 << 20;

/** HostLink owns the native Port and what goes over it. */
export class HostLink {
  /**
   * @param {object} o
   * @param {typeof chrome} o.chrome
   * @param {{now: () => number, setTimeout: Function, clearTimeout: Function}} o.clock
   * @param {{info: Function, warn: Function}} o.log
   * @param {() => Promise<void>} o.settled resolves when the first state may go out
   * @param {() => object} o.state the whole state message
   * @param {() => Iterable<object>} o.changes the messages for what changed since last asked
   * @param {(msg: object) => void} o.onMessage a checked call, request or cancel
   * @param {{hold: () => void, release: () => void}} [o.batches] told when the messages of a batch begin and end
   * @param {() => void} o.onLost the link was lost (the host answered everything under way)
   */
  constructor({ chrome, clock, log, settled, state, changes, onMessage, onLost, batches }) {
    Object.assign(this, { chrome, clock, log, settled, state, changes, onMessage, onLost, batches });
    this.identity = { name: 'Chromium', version: '', instance: '', extensionId: chrome.runtime.id };
    this.port = null;
    this.ready = false; // hello and state went out on port
    this.since = 0;
    this.delay = 0;
    this.timer = 0;
    this.lastError = '';
    this.flushQueued = false;
    this.joiner = new ChunkJoiner();
    this.chunkSeq = 0; // the last chunked message's number (ids x1, x2, …)
    this.peerBatch = false; // the host's hello said it takes batches
    /** @type {object[]} answers waiting for the others of their task turn (answer) */
    this.answers = [];
    this.answerTimer = 0;
  }

  /**
   * Sends the answer to a call. more: other calls are under way, so their
   * answers may come right after; then, when the host takes batches, the
   * answer waits for the end of this task turn and goes with those that
   * came meanwhile. A lone call's answer goes at once.
   */
  answer(msg, more) {
    if (!this.port || !this.peerBatch || (!more && !this.answers.length)) {
      this.send(msg);
      return;
    }
    this.answers.push(msg);
    if (!more) {
      this.flushAnswers();
      return;
    }
    if (!this.answerTimer) this.answerTimer = this.clock.setTimeout(() => this.flushAnswers(), 0);
  }

  /** Sends the answers that wait: one alone, several small ones as one batch. */
  flushAnswers() {
    this.clock.clearTimeout(this.answerTimer);
    this.answerTimer = 0;
    const list = this.answers;
    this.answers = [];
    if (list.length === 1) {
      this.send(list[0]);
      return;
    }
    let batch = [];
    let size = 0;
    // Measured already, and far under the 32 MiB that would need chunks.
    const flush = () => {
      if (batch.length === 1) this.send(batch[0], { small: true });
      else if (batch.length > 1) this.send({ type: T.batch, messages: batch }, { small: true });
      batch = [];
      size = 0;
    };
    for (const m of list) {
      let n;
      try {
        n = JSON.stringify(m).length;
      } catch {
        n = Infinity; // send() says why
      }
      if (n > BATCH_ONE_MAX) {
        flush();
        this.send(m);
        continue;
      }
      if (size + n > BATCH_MAX) flush();
      batch.push(m);
      size += n;
    }
    flush();
  }

  /**
   * Sends one message, as chunks when its JSON is over 32 MiB (a big result
   * or state); false when there is no link or it failed. small: the caller
   * knows it is far under that (its JSON is not written to measure it).
   */
  send(msg, { small = false } = {}) {
    if (!this.port) return false;
    try {
      for (const m of small ? [msg] : cutMessage(msg, `x${this.chunkSeq + 1}`)) {
        if (m !== msg && m.seq === 0) this.chunkSeq++;
        this.port.postMessage(m);
      }
      return true;
    } catch (e) {
      this.log.warn(`cannot send ${msg.type} to the native host: ${e.message}`);
      return false;
    }
  }

  /** Sends msg only once the host has the state (else the state carries it). */
  sendIfReady(msg) {
    if (this.ready) this.send(msg);
  }

  /** Sends the host what changed since it was last told. */
  flush() {
    if (!this.ready) return;
    for (const m of this.changes()) for (const part of inParts(m)) this.send(part);
  }

  /** Flushes once the current task's changes are done. */
  schedule() {
    if (this.flushQueued) return;
    this.flushQueued = true;
    queueMicrotask(() => {
      this.flushQueued = false;
      this.flush();
    });
  }

  /** Opens the link, unless it is open. */
  connect() {
    this.clock.clearTimeout(this.timer);
    this.timer = 0;
    if (this.port) return;
    let port;
    try {
      port = this.chrome.runtime.connectNative(HOST_NAME);
    } catch (e) {
      this.noteError(e.message);
      this.reconnectLater();
      return;
    }
    this.port = port;
    this.ready = false;
    this.peerBatch = false;
    this.dropAnswers();
    this.since = this.clock.now();
    this.joiner.reset();
    port.onMessage.addListener((m) => {
      if (this.port === port) this.receive(m, false);
    });
    port.onDisconnect.addListener(() => {
      const why = this.chrome.runtime.lastError?.message || 'the host exited';
      if (this.port !== port) return;
      this.port = null;
      this.ready = false;
      this.dropAnswers(); // the host answered them all (no_browser)
      this.noteError(why);
      this.onLost();
      this.reconnectLater();
    });
    this.send(helloMessage(this.identity));
    this.settled().then(() => {
      if (this.port !== port) return;
      // A state over 32 MiB goes as the state without tools, then its tools in parts.
      for (const m of inParts(this.state())) this.send(m);
      this.ready = true;
      this.schedule();
    });
  }

  dropAnswers() {
    this.clock.clearTimeout(this.answerTimer);
    this.answerTimer = 0;
    this.answers = [];
  }

  // Said once per distinct reason: a missing host would otherwise log every 30 s.
  noteError(why) {
    if (why === this.lastError) return;
    this.lastError = why;
    const reason = why.replace(/\.$/, '');
    const hint = /not found/i.test(why)
      ? 'install webmcp-host with install.sh (see the README), then it connects by itself'
      : 'reconnecting with backoff';
    this.log.warn(`native host ${HOST_NAME}: ${reason}; ${hint}`);
  }

  reconnectLater() {
    if (this.timer) return;
    const stable = this.since && this.clock.now() - this.since > STABLE_LINK;
    this.delay = stable ? RECONNECT_MIN : Math.min(Math.max(this.delay * 2, RECONNECT_MIN), RECONNECT_MAX);
    this.timer = this.clock.setTimeout(() => this.connect(), this.delay);
  }

  /** One message from the host; inner: it came joined from chunks or in a batch (no chunk or batch may). */
  receive(raw, inner) {
    const { msg, ignore, reply } = checkHostMessage(raw);
    if (reply) {
      this.send(reply);
      return;
    }
    if (ignore) {
      this.log.warn(`ignored from the host: ${ignore}`);
      return;
    }
    switch (msg.type) {
      case T.hello:
        this.lastError = '';
        this.delay = 0;
        this.peerBatch = !!(msg.host && msg.host.batch === true);
        this.log.info('host hello', JSON.stringify(msg.host || {}));
        break;
      case T.chunk:
        this.receiveChunk(msg, inner);
        break;
      case T.batch:
        if (inner) {
          this.log.warn('ignored a batch inside a batch or a chunked message');
          break;
        }
        if (this.batches) this.batches.hold();
        try {
          for (const m of msg.messages) this.receive(m, true);
        } finally {
          if (this.batches) this.batches.release();
        }
        break;
      default:
        this.onMessage(msg);
    }
  }

  receiveChunk(msg, inner) {
    if (inner) {
      this.log.warn('ignored a chunk inside a chunked message or a batch');
      return;
    }
    let text;
    try {
      text = this.joiner.add(msg);
    } catch (e) {
      this.log.warn(e.message);
      return;
    }
    if (text === null) return;
    let whole;
    try {
      whole = JSON.parse(text);
    } catch (e) {
      this.log.warn(`chunked message ${msg.id} is not JSON: ${e.message}`);
      return;
    }
    this.receive(whole, true);
  }
}
