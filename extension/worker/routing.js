// Call routing: a host's call goes to the frame whose tool it names; the
// frame's result or error goes back to the host, once. A cancel answers
// `cancelled` at once and tells the frame to stop (its late answer is
// dropped). A frame that navigated or went away, or a closed tab, ends its
// calls with `navigated` or `tab_closed`; a lost host link stops them all in
// the pages (the host has answered them with no_browser).

import { PendingCalls } from '../lib/calls.js';
import { Code, T, errorMessage } from '../lib/protocol.js';
import { postToFrame } from './frames.js';

/** CallRouter routes calls between the host and the frames. */
export class CallRouter {
  /**
   * @param {object} o
   * @param {typeof chrome} o.chrome
   * @param {import('../lib/registry.js').Registry} o.registry
   * @param {import('./frames.js').Frames} o.frames
   * @param {(msg: object) => void} o.send to the host
   * @param {{warn: Function}} o.log
   */
  constructor({ chrome, registry, frames, send, log }) {
    Object.assign(this, { chrome, registry, frames, send, log });
    this.pending = new PendingCalls();
  }

  /** A checked call from the host. */
  call(m) {
    const problem = this.registry.route(m.tabId, m.frameId, m.name);
    const conn = this.frames.get(m.tabId, m.frameId);
    if (problem || !conn) {
      const p = problem || { code: Code.notFound, message: `no frame ${m.frameId} in tab ${m.tabId}` };
      this.send(errorMessage(m.id, p.code, p.message));
      return;
    }
    if (!this.pending.add(m.id, m.tabId, m.frameId, conn)) {
      this.log.warn(`call ${m.id} is already under way; the repeated call is ignored`);
      return;
    }
    if (!postToFrame(conn, { type: T.call, id: m.id, name: m.name, arguments: m.arguments })) {
      this.pending.take(m.id);
      this.send(errorMessage(m.id, Code.navigated, `tab ${m.tabId} frame ${m.frameId} went away before the call reached it`));
    }
  }

  /** The host cancels call id; nothing happens when it was answered already. */
  cancel(id) {
    const c = this.pending.take(id);
    if (!c) return;
    postToFrame(c.conn, { type: T.cancel, id });
    this.send(errorMessage(id, Code.cancelled, 'the call was cancelled'));
  }

  /** A frame's result or error message. */
  answer(conn, m) {
    if (typeof m.id !== 'string') return;
    if (!this.pending.takeFrom(m.id, conn)) return; // cancelled, or not this frame's call
    if (m.type === T.result) {
      this.send({ type: T.result, id: m.id, output: m.output === undefined ? null : m.output });
      return;
    }
    const e = m.error && typeof m.error === 'object' ? m.error : {};
    const code = e.code === Code.notFound || e.code === Code.internal ? e.code : Code.toolError;
    this.send(errorMessage(m.id, code, typeof e.message === 'string' ? e.message : 'the tool failed'));
  }

  /** A new document replaced the frame of old: its calls end with `navigated`. */
  frameReplaced(old) {
    this.fail((c) => c.conn === old, Code.navigated, () => `tab ${old.tabId} frame ${old.frameId} navigated while the call ran`);
  }

  /**
   * A frame's Port closed: the tab closed (`tab_closed`), or the frame
   * navigated or was removed (`navigated`); chrome.tabs tells which.
   */
  frameGone(conn) {
    const calls = this.pending.takeWhere((c) => c.conn === conn);
    if (!calls.length) return;
    this.chrome.tabs.get(conn.tabId).then(
      () => calls.forEach((c) => this.send(errorMessage(c.id, Code.navigated, `tab ${c.tabId} frame ${c.frameId} navigated away while the call ran`))),
      () => calls.forEach((c) => this.send(errorMessage(c.id, Code.tabClosed, `tab ${c.tabId} closed while the call ran`))),
    );
  }

  /** A tab closed: its calls end with `tab_closed`. */
  tabClosed(tabId) {
    this.fail((c) => c.tabId === tabId, Code.tabClosed, (c) => `tab ${c.tabId} closed while the call ran`);
  }

  /** The host link was lost: the pages stop every call under way. */
  hostLost() {
    for (const c of this.pending.takeWhere(() => true)) postToFrame(c.conn, { type: T.cancel, id: c.id });
  }

  fail(pred, code, message) {
    for (const c of this.pending.takeWhere(pred)) this.send(errorMessage(c.id, code, message(c)));
  }
}
