// Call routing: a host's call goes to the frame whose tool it names; the
// frame's result or error goes back to the host, once. A cancel answers
// `cancelled` at once and tells the frame to stop (its late answer is
// dropped). A frame that navigated or went away, or a closed tab, ends its
// calls with `navigated` or `tab_closed`; a lost host link stops them all in
// the pages (the host has answered them with no_browser).
//
// Ask-before-acting (consent.js): a call that needs the user's consent
// (by the settings of its frame's site and its tab's site, the stricter)
// waits for it before it goes to the frame; declined, it is answered with
// `declined` and never reaches the page. A call that ends while it waits
// (cancel, tab closed, navigated, host lost) leaves the consent queue.
// Every call and its answer are reported to the activity log (activity.js).
//
// The calls and cancels of one batch from the host go to each frame as one
// batch message on its Port (hold, release: the frame's link, lib/link.js,
// makes the batch); any other goes at once. A frame's batch of results and
// errors reaches answer() one by one (its link takes it apart).

import { webOrigin } from '../lib/allowlist.js';
import { PendingCalls } from '../lib/calls.js';
import { Code, T, errorMessage, mark, resultMessage } from '../lib/protocol.js';
import { frameKey } from '../lib/registry.js';
import { fingerprint } from '../lib/toolprints.js';
import { postToFrame } from './frames.js';

/** The error codes a frame may answer with; any other is tool_error. */
const FRAME_CODES = new Set([Code.notFound, Code.internal, Code.navigated, Code.tooLarge]);

/** CallRouter routes calls between the host and the frames. */
/** Why a call was declined, as the activity log tells the user (the agent's message speaks to the agent). */
export function declinedForUser(answer) {
  switch (answer.how) {
    case 'deny': return 'You denied it.';
    case 'closed': return 'You closed the consent window.';
    case 'timeout': return 'You did not answer before the agent stopped waiting.';
    case 'failed': return `It could not ask you: ${answer.message || 'the consent window did not open'}.`;
    default: return 'Declined.';
  }
}

/**
 * The answer to a call whose frame is blocked by a dialog: the page runs no
 * script until the user answers it, so the call does not go to the page.
 * `declined`: the page did not run it, and the user is who can change that.
 */
export function dialogError(id, dialog) {
  const text = dialog.text.length > 200 ? `${dialog.text.slice(0, 200)}…` : dialog.text;
  return errorMessage(id, Code.blocked,
    `the page is blocked by a dialog (${dialog.kind}: ${JSON.stringify(text)}): the user must answer it in the browser; ` +
    'the call did not reach the page. Call again once the user has answered it');
}

/**
 * How long a call to a frame that shows a dialog waits for the user to
 * close it (ms): the call then goes to the page as usual, or, while the
 * dialog is still up, is answered "blocked". So an agent's call that comes
 * just as the user answers the dialog is not refused for it.
 */
export const DIALOG_GRACE = 1000;

/** What the activity log tells the user of such a call. */
function dialogForUser(dialog) {
  return `The page was showing a dialog (${dialog.kind}).`;
}

export class CallRouter {
  /**
   * @param {object} o
   * @param {typeof chrome} o.chrome
   * @param {import('../lib/registry.js').Registry} o.registry
   * @param {import('./frames.js').Frames} o.frames
   * @param {(msg: object) => void} o.send to the host
   * @param {(msg: object, more: boolean) => void} [o.sendAnswer] a frame's answer to the host; more: other calls are under way (the link may send their answers together)
   * @param {{warn: Function}} o.log
   * @param {import('./consent.js').Consent} [o.consent] ask-before-acting
   * @param {import('./activity.js').Activity} [o.activity] the activity log
   * @param {{nameFor: (id: string) => string}} [o.agents] names the agent behind a call
   * @param {{hold: (conn: object, out: object) => void}} [o.navAnswers] holds the answer of a
   *   call that navigated its frame until the next document loaded (navanswers.js); without
   *   it such an answer goes at once
   * @param {{viaExecuteTool(): boolean}} [o.callPaths] whether native mode's calls go through the
   *   browser's executeTool (callpath.js); without it they go the default way
   */
  constructor({ chrome, registry, frames, send, sendAnswer, log, consent, activity, agents, navAnswers, clock, callPaths }) {
    Object.assign(this, { chrome, registry, frames, send, log, consent, activity, agents, navAnswers, callPaths });
    this.clock = clock || globalThis;
    /** @type {Map<string, {m: object, timer: any}>} calls that wait for a frame's dialog to close (DIALOG_GRACE) */
    this.dialogHeld = new Map();
    this.sendAnswer = sendAnswer || ((m) => send(m));
    this.pending = new PendingCalls();
    /** @type {Map<string, (answer: object) => void>} the user's own calls (runForUser), answered to the panel, never to the host */
    this.own = new Map();
    /** @type {Set<object>} the frames (Conn) whose links hold messages until release() */
    this.held = new Set();
    this.holding = false;
  }

  /**
   * Sends msg to conn's frame: at once (false when the frame's Port is
   * gone), or, between hold() and release(), with the others for that
   * frame (its link sends them as one batch).
   */
  toFrame(conn, msg) {
    if (this.holding && !this.held.has(conn)) {
      this.held.add(conn);
      conn.link.hold();
    }
    return conn.link.send(msg);
  }

  /** The messages for the frames wait for release() (a batch from the host is being taken apart). */
  hold() {
    this.holding = true;
  }

  /** Sends what waits: to each frame one message, or several as one batch; a call that could not go ends `navigated`. */
  release() {
    this.holding = false;
    const held = [...this.held];
    this.held.clear();
    for (const conn of held) {
      for (const m of conn.link.release()) {
        if (m.type !== T.call || !this.pending.takeFrom(m.id, conn)) continue;
        this.reply(errorMessage(m.id, Code.navigated, `tab ${conn.tabId} frame ${conn.frameId} went away before the call reached it`));
      }
    }
  }

  /** Answers call id: to the host, and to the activity log (detail: what the log tells the user instead of the agent's message). */
  reply(m, detail) {
    // The answer first: the log's bookkeeping need not delay it.
    if (!this.answerOwn(m)) this.send(m);
    if (this.activity) this.activity.end(m.id, m, detail);
  }

  /** A checked call from the host. */
  call(m) {
    mark(m, 'worker.in');
    const problem = this.registry.route(m.tabId, m.frameId, m.name);
    const conn = this.frames.get(m.tabId, m.frameId);
    if (problem || !conn) {
      const p = problem || { code: Code.notFound, message: `no frame ${m.frameId} in tab ${m.tabId}` };
      this.send(errorMessage(m.id, p.code, p.message));
      return;
    }
    if (this.pending.has(m.id) || this.dialogHeld.has(m.id)) {
      this.log.warn(`call ${m.id} is already under way; the repeated call is ignored`);
      return;
    }
    if (this.frames.dialogFor(conn)) {
      this.holdForDialog(m);
      return;
    }
    this.pending.add(m.id, m.tabId, m.frameId, conn);
    // The call's site is its frame's, which may be framed by another site:
    // the stricter of the two settings holds (consent.js).
    const tab = this.registry.tabs.get(m.tabId);
    const tabOrigin = webOrigin(tab && tab.url);
    const frame = this.registry.frames.get(frameKey(m.tabId, m.frameId));
    const site = frame.origin;
    const tool = frame.tools.get(m.name);
    const ask = !!this.consent && this.consent.needs(site, tool, tabOrigin);
    if (this.activity) this.activity.start({ ...m, origin: site, tabTitle: tab && tab.title }, ask);
    if (!ask) {
      this.dispatch(m, conn);
      return;
    }
    this.consent.ask({
      id: m.id, tabId: m.tabId, tabTitle: tab && tab.title, origin: tabOrigin, frameOrigin: site, tool, arguments: m.arguments, timeout: m.timeout,
      agent: this.agents && this.agents.nameFor ? this.agents.nameFor(m.id) : 'an agent',
    }).then((answer) => {
      const c = this.pending.has(m.id) ? this.pending.take(m.id) : undefined;
      if (!c) return; // it ended while it waited (cancelled, navigated, tab closed)
      if (!answer.allow) {
        this.reply(errorMessage(m.id, Code.declined,
          `the user declined the call of ${m.name} on ${site} (${answer.message || 'declined'}); the page's tool did not run. ` +
          'Do not call it again unless the user asks you to.'), declinedForUser(answer));
        return;
      }
      // The tool may have gone while the user thought about it.
      const again = this.registry.route(m.tabId, m.frameId, m.name);
      if (again || this.frames.get(m.tabId, m.frameId) !== conn) {
        const p = again || { code: Code.navigated, message: `tab ${m.tabId} frame ${m.frameId} navigated while the call waited for the user` };
        this.reply(errorMessage(m.id, p.code, p.message));
        return;
      }
      // Nor may it be another tool now: the user allowed the one shown.
      const now = this.registry.frames.get(frameKey(m.tabId, m.frameId));
      const current = now && now.tools.get(m.name);
      if (current && current !== tool && fingerprint(current) !== fingerprint(tool)) {
        this.reply(errorMessage(m.id, Code.declined,
          `the page changed the definition of ${m.name} on ${site} while the call waited for the user, who allowed the one before; ` +
          'the page\'s tool did not run. Read its description again, and call it again to ask the user about the new one.'));
        return;
      }
      // A dialog may have opened while the user thought about it.
      const dialog = this.frames.dialogFor(conn);
      if (dialog) {
        this.reply(dialogError(m.id, dialog), dialogForUser(dialog));
        return;
      }
      this.pending.add(m.id, m.tabId, m.frameId, conn);
      if (this.activity) this.activity.running(m.id);
      this.dispatch(m, conn);
    });
  }

  /**
   * Runs a call the user made in the panel (the inspector's Run): m {id,
   * tabId, frameId, name, arguments}, id the worker's own (never a shim's).
   * It goes to the frame as an agent's call does, without asking first (the
   * user is who acts), and is logged as the user's (by; quiet: not logged,
   * as the context samples the user asked for in the panel). Resolves with
   * the answer, a result or error message, which goes to the panel only.
   */
  runForUser(m, by, { quiet = false } = {}) {
    return new Promise((resolve) => {
      const problem = this.registry.route(m.tabId, m.frameId, m.name);
      const conn = this.frames.get(m.tabId, m.frameId);
      if (problem || !conn) {
        const p = problem || { code: Code.notFound, message: `no frame ${m.frameId} in tab ${m.tabId}` };
        resolve(errorMessage(m.id, p.code, p.message));
        return;
      }
      const dialog = this.frames.dialogFor(conn);
      if (dialog) {
        resolve(dialogError(m.id, dialog));
        return;
      }
      if (!this.pending.add(m.id, m.tabId, m.frameId, conn)) {
        resolve(errorMessage(m.id, Code.internal, `call ${m.id} is already under way`));
        return;
      }
      this.own.set(m.id, resolve);
      const tab = this.registry.tabs.get(m.tabId);
      const frame = this.registry.frames.get(frameKey(m.tabId, m.frameId));
      if (this.activity && !quiet) this.activity.start({ ...m, origin: frame.origin, tabTitle: tab && tab.title, by }, false);
      this.dispatch(m, conn);
    });
  }

  /** Answers m to the panel when it is the user's own call (runForUser); false when it is not. */
  answerOwn(m) {
    const resolve = this.own.get(m.id);
    if (!resolve) return false;
    this.own.delete(m.id);
    resolve(m);
    return true;
  }

  /** Sends a pending call to its frame. */
  dispatch(m, conn) {
    const msg = { type: T.call, id: m.id, name: m.name, arguments: m.arguments };
    if (this.callPaths && this.callPaths.viaExecuteTool()) msg.via = 'executeTool';
    if (m.trace) {
      msg.trace = m.trace;
      mark(msg, 'worker.out');
    }
    if (!this.toFrame(conn, msg)) {
      this.pending.take(m.id);
      this.reply(errorMessage(m.id, Code.navigated, `tab ${m.tabId} frame ${m.frameId} went away before the call reached it`));
    }
  }

  /** Whether call id still waits for the user (it never reached the frame). */
  waiting(id) {
    return !!this.consent && this.consent.waiting(id);
  }

  /** The host cancels call id; nothing happens when it was answered already. */
  /** Holds call m, whose frame shows a dialog, for DIALOG_GRACE or until the dialog closes. */
  holdForDialog(m) {
    const timer = this.clock.setTimeout(() => {
      if (!this.dialogHeld.delete(m.id)) return;
      const conn = this.frames.get(m.tabId, m.frameId);
      const dialog = conn && this.frames.dialogFor(conn);
      if (dialog) this.send(dialogError(m.id, dialog));
      else this.call(m);
    }, DIALOG_GRACE);
    this.dialogHeld.set(m.id, { m, timer });
  }

  /** A dialog of a frame of tabId closed: the calls that waited for it go on. */
  dialogClosed(tabId) {
    for (const [id, h] of [...this.dialogHeld]) {
      if (h.m.tabId !== tabId) continue;
      this.clock.clearTimeout(h.timer);
      this.dialogHeld.delete(id);
      this.call(h.m);
    }
  }

  cancel(id) {
    const held = this.dialogHeld.get(id);
    if (held) {
      this.clock.clearTimeout(held.timer);
      this.dialogHeld.delete(id);
      this.send(errorMessage(id, Code.cancelled, 'the call was cancelled'));
      return;
    }
    const c = this.pending.take(id);
    if (!c) return;
    if (this.waiting(id)) this.consent.drop(id);
    else this.toFrame(c.conn, { type: T.cancel, id });
    this.reply(errorMessage(id, Code.cancelled, 'the call was cancelled'));
  }

  /** A frame's result or error message. */
  answer(conn, m) {
    if (typeof m.id !== 'string') return;
    if (!this.pending.takeFrom(m.id, conn)) return; // cancelled, or not this frame's call
    let out;
    if (m.type === T.result) {
      out = resultMessage(m.id, m.output);
    } else {
      const e = m.error && typeof m.error === 'object' ? m.error : {};
      // A frame names not_found, internal, navigated (the call navigated the page: executeTool's null) or
      // too_large (the relay's: a result over 64 MiB); anything else is the tool's error.
      const code = FRAME_CODES.has(e.code) ? e.code : Code.toolError;
      out = errorMessage(m.id, code, typeof e.message === 'string' ? e.message : 'the tool failed');
      // The frame itself says the call navigated the page: it ran (its
      // form was submitted), unlike a frame that went away under a call.
      if (code === Code.navigated) out.error.ran = true;
    }
    if (Array.isArray(m.trace)) {
      out.trace = m.trace;
      mark(out, 'worker.back');
    }
    if (this.answerOwn(out)) {
      if (this.activity) this.activity.end(out.id, out);
      return;
    }
    if (out.error && out.error.ran && this.navAnswers) {
      // Its answer is the next document's (navanswers.js): sent once that has loaded.
      this.navAnswers.hold(conn, out);
      return;
    }
    this.sendAnswer(out, this.pending.size > 0);
    if (this.activity) this.activity.end(out.id, out);
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
    const calls = this.take((c) => c.conn === conn);
    if (!calls.length) return;
    this.chrome.tabs.get(conn.tabId).then(
      () => calls.forEach((c) => this.reply(errorMessage(c.id, Code.navigated, `tab ${c.tabId} frame ${c.frameId} navigated away while the call ran`))),
      () => calls.forEach((c) => this.reply(errorMessage(c.id, Code.tabClosed, `tab ${c.tabId} closed while the call ran`))),
    );
  }

  /** A tab closed: its calls end with `tab_closed`. */
  tabClosed(tabId) {
    this.fail((c) => c.tabId === tabId, Code.tabClosed, (c) => `tab ${c.tabId} closed while the call ran`);
  }

  /** The host link was lost: the pages stop every call under way. */
  hostLost() {
    for (const c of this.take((c) => !this.own.has(c.id))) {
      if (!c.waited) postToFrame(c.conn, { type: T.cancel, id: c.id });
      if (this.activity) this.activity.end(c.id, errorMessage(c.id, Code.noBrowser, 'the link to webmcp-host was lost while the call ran'));
    }
  }

  fail(pred, code, message) {
    for (const c of this.take(pred)) this.reply(errorMessage(c.id, code, message(c)));
  }

  /** Takes the pending calls for which pred holds; those that waited for the user leave the consent queue (waited: true). */
  take(pred) {
    const calls = this.pending.takeWhere(pred);
    for (const c of calls) {
      if (!this.waiting(c.id)) continue;
      this.consent.drop(c.id);
      c.waited = true;
    }
    return calls;
  }
}
