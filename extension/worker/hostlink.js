// The link to webmcp-host (native messaging, dev.webmcp.bridge). It keeps
// one native Port open and opens it again with backoff (0.5 s doubling to
// 30 s; at once after a link that lived 10 s) when the host exits. On a new
// link it says hello, waits until the frames have settled, sends the whole
// state, and from then on the registry's changes; a state or toolsAdded over
// 32 MiB of JSON goes in parts (lib/chunks.js inParts: the state without
// tools, then toolsAdded of at most 8 MiB each). The Port is a link
// (lib/link.js): it cuts any other message over 32 MiB into chunks, joins
// the host's chunked messages and unpacks its batches; this checks each
// message that arrives (answering bad calls and requests itself) and hands
// calls, requests and cancels to onMessage.
//
// Answers to calls go at once, unless more calls are under way and the
// host takes batches (its hello says "batch":true): then the answers that
// come back within one task turn go together, as one batch message (small
// ones; a big one goes alone), so that under load a native message carries
// several answers; a lone call's answer never waits.

import { MAX_WHOLE, inParts } from '../lib/chunks.js';
import { BATCH_MAX, BATCH_ONE_MAX, createLink } from '../lib/link.js';
import { HOST_NAME, T, checkHostMessage, helloMessage } from '../lib/protocol.js';


export const RECONNECT_MIN = 500;
export const RECONNECT_MAX = 30000;
/** A link that lived this long counts as stable: the next one comes at once (after RECONNECT_MIN). */
export const STABLE_LINK = 10000;

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
    this.peerBatch = false; // the host's hello said it takes batches
    // Answers over 64 Ki units of JSON go alone, a batch holds at most 1 Mi
    // (at most 3 bytes each: far under the 32 MiB of a frame); chunked
    // messages are x1, x2, ….
    this.link = createLink((m) => {
      if (!this.port) return false;
      this.port.postMessage(m);
      return true;
    }, {
      batches: () => this.peerBatch,
      maxWhole: MAX_WHOLE,
      chunkPrefix: 'x',
      oneMax: BATCH_ONE_MAX,
      batchMax: BATCH_MAX,
      later: (fn) => clock.setTimeout(fn, 0),
      unsent: (msg, e) => log.warn(`cannot send ${msg.type} to the native host: ${e.message}`),
      problem: (why) => log.warn(why),
      batchHooks: batches,
    });
    this.link.onMessage((m) => this.receive(m));
  }

  /**
   * Sends the answer to a call. more: other calls are under way, so their
   * answers may come right after; then, when the host takes batches, the
   * answer waits for the end of this task turn and goes with those that
   * came meanwhile. A lone call's answer goes at once.
   */
  answer(msg, more) {
    if (!this.port) return;
    this.link.send(msg, { together: true });
    if (!more) this.link.flush();
  }

  /**
   * Sends one message, as chunks when its JSON is over 32 MiB (a big result
   * or state); false when there is no link or it failed. text: its JSON,
   * when the caller has it.
   */
  send(msg, text) {
    if (!this.port) return false;
    return this.link.send(msg, { text });
  }

  /**
   * Sends a state or toolsAdded, in parts when its JSON is over 32 MiB
   * (inParts); any other message as send does. Its JSON is written once.
   */
  sendParts(msg) {
    if (msg.type !== T.state && msg.type !== T.toolsAdded) return this.send(msg);
    let text;
    try {
      text = JSON.stringify(msg);
    } catch (e) {
      this.log.warn(`cannot send ${msg.type} to the native host: ${e.message}`);
      return false;
    }
    const parts = inParts(msg, { text });
    if (parts.length === 1) return this.send(msg, text);
    for (const part of parts) this.send(part);
    return true;
  }

  /** Sends msg only once the host has the state (else the state carries it). */
  sendIfReady(msg) {
    if (this.ready) this.send(msg);
  }

  /** Sends the host what changed since it was last told. */
  flush() {
    if (!this.ready) return;
    for (const m of this.changes()) this.sendParts(m);
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
    this.link.reset();
    this.since = this.clock.now();
    port.onMessage.addListener((m) => {
      if (this.port === port) this.link.receive(m);
    });
    port.onDisconnect.addListener(() => {
      const why = this.chrome.runtime.lastError?.message || 'the host exited';
      if (this.port !== port) return;
      this.port = null;
      this.ready = false;
      this.link.reset(); // the host answered them all (no_browser)
      this.noteError(why);
      this.onLost();
      this.reconnectLater();
    });
    this.send(helloMessage(this.identity));
    this.settled().then(() => {
      if (this.port !== port) return;
      // A state over 32 MiB goes as the state without tools, then its tools in parts.
      this.sendParts(this.state());
      this.ready = true;
      this.schedule();
    });
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

  /** One message from the host (its link took batches apart and joined chunks). */
  receive(raw) {
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
      case T.batch:
        break; // never here: the link takes them
      default:
        this.onMessage(msg);
    }
  }
}
