// The bridge's side of the private channel: it reports this document's tools
// and context providers to the relay, and runs the calls and samples that come
// back. The messages on the port (main <-> relay) are in extension/PROTOCOL.md
// (golden ones in testdata/frames/channel.json); their types are
// lib/protocol.js PageLinkType.
//
// Flow control: one tools message at a time. Until the worker has taken the
// last one in, and for a gap as long as twice the last report took, changes
// are only noted; then one message carries them all. A page that registers
// 2,000 tools one by one thus costs a few dozen reports, not 2,000 reports of
// up to 2,000 tools each, and reporting stays linear in the tool count.

import { createLink } from '../../lib/link.js';
import { Code, PageLinkType as L } from '../../lib/protocol.js';
import { AbortCtl, PromiseCtor, clearTimer, dataOf, dateNow, epochMs, isArray, isObject, jsonStringify, postTo, queueTask, setOnMessage, timeout } from './builtins.js';
import { errorCode, errorText, toJSONValue } from './toolcopy.js';

/** A call's way in native mode, as the worker gave it (worker/callpath.js). */
const VIA_EXECUTE_TOOL = /* @__PURE__ */ Object.freeze({ via: 'executeTool' });

// The relay takes a document without a providers message to have none.
const NO_PROVIDERS = '[]';
// A tools message that is not taken in this long, while changes wait for
// it, is taken as lost (a hang guard: the relay answers every one).
export const TAKEN_TIMEOUT = 5000;
// How long a bridgeAt question waits for the relay's answer (a hang guard:
// the relay answers at once, or as soon as the worker does).
export const BRIDGE_AT_TIMEOUT = 3000;
// While changes keep coming, the next report waits GAP times as long as the
// last one took (at most MAX_GAP ms), so that reporting never takes more
// than a fifth of the page's time, however many tools it has. This holds
// for looks that find nothing new too: in the browser's own WebMCP, every
// same-origin frame hears each frame's toolchange, and each look lists the
// tools of them all.
export const GAP = 4;
export const MAX_GAP = 500;
// The longest that the answers of calls that came in one batch wait for the
// others of it (see postAnswer).
export const ANSWER_HOLD = 2;

// The page's own (called as functions: a browser refuses setTimeout called
// on another object, "Illegal invocation").
const pageTimers = {
  set: (fn, ms) => timeout(fn, ms),
  clear: (id) => clearTimer(id),
  now: () => dateNow(),
};

/**
 * @param {object} o
 * @param {() => Map<string, {meta: object, run(input: object, signal: AbortSignal, how?: {via: string}): Promise<unknown>}>} o.tools
 *   (how: the call's via, where the worker gave one: "executeTool", native mode's calls through the browser's executeTool)
 *   this document's tools, by name, as they are now
 * @param {() => void} o.beforeLook  runs before the tools are looked at
 *   (it notices a page's own modelContext defined over ours)
 * @param {() => Array<{id: string, description?: string}>} o.providerDefs
 * @param {(done: (providers: object[]) => void) => void} o.sample  samples the providers
 * @param {(done: () => void) => void} [o.prepare]  brings tools() up to date, then calls done
 *   (the browser's own modelContext lists its tools asynchronously); runs
 *   before each report, one at a time
 * @param {{set: Function, clear: Function, now: () => number}} [o.timers]  setTimeout, clearTimeout and Date.now
 * @param {() => boolean} [o.visible]  whether the document is visible (its timers on time)
 */
export function createBridge({ tools, beforeLook, providerDefs, sample, prepare, timers = pageTimers, visible = () => true }) {
  let port = null;
  let lastSent = '';
  let lastProviders = NO_PROVIDERS;
  // The tools report: idle, or one of these (one at a time).
  let preparing = false; // prepare() is under way
  let awaiting = false; // a tools message went out and is not taken in yet
  let pausing = 0; // the timer of the gap before the next report
  let again = false; // something changed meanwhile: report once more after
  let guard = 0; // the hang guard's timer
  let readyAt = 0; // when the next report may start (timers.now())
  /** @type {Map<string, AbortController>} */
  const inflight = new Map();
  // The relay's flushes that wait for every change to be reported (ids).
  let flushes = [];
  // bridgeAt questions to the relay: id -> resolve, and those asked before
  // the relay's port came.
  const asking = new Map();
  let askSeq = 0;
  let unsent = [];

  // Where messages to the relay go: a MessagePort (the page's world), or
  // a function (the isolated world's own native source, content/isolated/browserwebmcp.js),
  // through a link (lib/link.js) that gathers answers into batches and
  // hands on the relay's batches one message at a time.
  let send = null;
  const link = createLink((m) => {
    if (send) send(m);
    else if (port) postTo(port, m);
    else return false;
  }, { later: queueTask });
  link.onMessage(onRelayMessage);
  // What is not an answer goes at once, even while answers are held.
  function post(msg) {
    return link.send(msg, { now: true });
  }

  // A call's answer goes at once when no other call runs here; else it
  // waits for the end of the task turn (a task, which background tabs do
  // not throttle) and goes with the answers that came meanwhile, as one
  // batch: under load, one message carries several answers. Calls that came
  // in one batch go back in one: while others of it still run, the answers
  // wait for them (the link's hold), ANSWER_HOLD ms at most, in a visible
  // document only (the browser's executeTool answers each call in a task
  // of its own, and a hidden tab's timers are late).
  let holdTimer = 0;
  /** The calls under way that came in a batch (their ids). */
  const batched = new Set();
  function postAnswer(msg) {
    if (!inflight.size && !link.waiting) {
      link.send(msg);
      return;
    }
    link.send(msg, { together: true });
    if (!inflight.size) {
      endHold();
      link.flush();
      return;
    }
    if (batched.size && visible() && !holdTimer) {
      link.hold();
      holdTimer = timers.set(endHold, ANSWER_HOLD);
    }
  }
  // The answers held for a batch's other calls go.
  function endHold() {
    if (!holdTimer) return;
    timers.clear(holdTimer);
    holdTimer = 0;
    link.release();
  }
  /** The call is no longer under way here. */
  function ended(id) {
    inflight.delete(id);
    batched.delete(id);
  }

  // Sends the providers and the tools where they differ from what was
  // sent; while a tools report is under way, notes that another is due.
  function sync() {
    beforeLook();
    if (!port && !send) return;
    syncProviders();
    if (preparing || awaiting || pausing) {
      // A hang guard, set only when something waits for it.
      if (awaiting && !guard) guard = timers.set(() => taken(), TAKEN_TIMEOUT);
      again = true;
      return;
    }
    const began = timers.now();
    if (began < readyAt) {
      again = true;
      pausing = timers.set(() => {
        pausing = 0;
        sync();
      }, readyAt - began);
      return;
    }
    again = false;
    const go = () => {
      report();
      const end = timers.now();
      readyAt = end + Math.min(MAX_GAP, (end - began) * GAP);
      if (again && !awaiting) sync();
      flushed();
    };
    if (!prepare) {
      go();
      return;
    }
    preparing = true;
    let once = false;
    prepare(() => {
      if (once) return;
      once = true;
      preparing = false;
      go();
    });
  }

  function report() {
    const metas = [];
    for (const e of tools().values()) metas.push(e.meta);
    const json = jsonStringify(metas);
    if (json === lastSent) return;
    // A report that cannot be posted (a value the structured clone
    // refuses) is tried again at the next look, never given up.
    if (post({ type: L.tools, tools: metas })) {
      lastSent = json;
      awaiting = true;
    } else {
      lastSent = '';
    }
  }

  // The providers go at once: their list is small.
  function syncProviders() {
    if (!port && !send) return;
    const defs = providerDefs();
    const pjson = jsonStringify(defs);
    if (pjson !== lastProviders) {
      lastProviders = pjson;
      post({ type: L.providers, providers: defs });
    }
  }

  // The last tools message was taken in: report what changed meanwhile.
  function taken() {
    if (!awaiting) return;
    if (guard) timers.clear(guard);
    guard = 0;
    awaiting = false;
    if (again) sync();
    flushed();
  }

  // Answers the relay's flushes once every change is reported (a tools
  // message still to be taken in went before: the answer follows it).
  function flushed() {
    if (!flushes.length || again || preparing || pausing) return;
    const ids = flushes;
    flushes = [];
    for (let i = 0; i < ids.length; i++) post({ type: L.flushed, id: ids[i] });
  }

  async function handleCall(m, inBatch) {
    const { id, name } = m;
    if (typeof id !== 'string') return;
    // A traced call: timing marks (protocol.Mark) when it arrives, when the
    // tool has answered, and as the answer leaves.
    const trace = isArray(m.trace) ? m.trace : null;
    const mark = (hop) => {
      if (trace) trace.push({ hop, at: epochMs() });
    };
    const answer = (msg) => {
      mark('main.out');
      if (trace) msg.trace = trace;
      postAnswer(msg);
    };
    mark('main.in');
    beforeLook();
    const entry = tools().get(name);
    if (!entry) {
      answer({ type: L.error, id, error: { code: Code.notFound, message: `this page has no tool ${jsonStringify(String(name))} (any more)` } });
      return;
    }
    const ctl = new AbortCtl();
    inflight.set(id, ctl);
    if (inBatch) batched.add(id);
    let value;
    try {
      value = await entry.run(isObject(m.arguments) ? m.arguments : {}, ctl.signal, m.via === 'executeTool' ? VIA_EXECUTE_TOOL : undefined);
    } catch (err) {
      if (inflight.get(id) !== ctl) return; // cancelled: the worker answered already
      ended(id);
      mark('page.done');
      answer({ type: L.error, id, error: { code: errorCode(err), message: errorText(err) } });
      return;
    }
    if (inflight.get(id) !== ctl) return;
    ended(id);
    mark('page.done');
    let output;
    try {
      output = toJSONValue(value);
    } catch (err) {
      answer({ type: L.error, id, error: { code: Code.toolError, message: `the tool's result is not JSON: ${errorText(err)}` } });
      return;
    }
    answer({ type: L.result, id, output });
  }

  function onPortMessage(e) {
    // Through the getter taken at start: a page's MessageEvent.prototype.data would see every message.
    link.receive(dataOf(e));
  }

  // One message of the relay (inBatch: it came in a batch).
  function onRelayMessage(m, inBatch) {
    if (!isObject(m)) return;
    switch (m.type) {
      case L.call:
        handleCall(m, inBatch);
        break;
      case L.cancel: {
        const ctl = inflight.get(m.id);
        if (ctl) {
          ended(m.id);
          ctl.abort();
        }
        break;
      }
      case L.cancelAll: {
        const all = [...inflight.values()];
        inflight.clear();
        batched.clear();
        for (const ctl of all) ctl.abort();
        break;
      }
      case L.toolsTaken:
        taken();
        break;
      case L.flush:
        // The relay asks for the tools as they are now (the document
        // loaded): no gap before the report, and an answer after it.
        if (typeof m.id !== 'string') break;
        flushes.push(m.id);
        readyAt = 0;
        if (pausing) {
          timers.clear(pausing);
          pausing = 0;
        }
        sync();
        flushed();
        break;
      case L.sync:
        lastSent = '';
        lastProviders = NO_PROVIDERS;
        readyAt = 0; // asked for: no gap
        taken();
        sync();
        break;
      case L.sample: {
        const id = m.id;
        sample((list) => post({ type: L.sampled, id, providers: list }));
        break;
      }
      case L.bridgeAt: {
        const done = asking.get(m.id);
        if (done) done(m.yes === true);
        break;
      }
    }
  }

  /**
   * Whether the bridge runs in documents of origin (the worker knows: its
   * site is allowed); false when the relay does not say within
   * BRIDGE_AT_TIMEOUT ms (a hang guard: no worker).
   */
  function bridgeAt(origin) {
    return new PromiseCtor((resolve) => {
      const id = ++askSeq;
      const guard = timers.set(() => done(false), BRIDGE_AT_TIMEOUT);
      const done = (yes) => {
        if (!asking.delete(id)) return;
        timers.clear(guard);
        resolve(yes);
      };
      asking.set(id, done);
      const m = { type: L.bridgeAt, id, origin: String(origin) };
      if (port || send) post(m);
      else unsent.push(m);
    });
  }

  function sendUnsent() {
    const list = unsent;
    unsent = [];
    for (let i = 0; i < list.length; i++) post(list[i]);
  }

  return {
    /** Takes the relay's port (once) and reports at once. */
    connect(p) {
      if (port || send) return;
      port = p;
      setOnMessage(port, onPortMessage);
      lastSent = '';
      lastProviders = NO_PROVIDERS;
      sync();
      sendUnsent();
    },
    /**
     * Takes a function that carries messages to the relay (once), reports
     * at once, and returns the function that takes the relay's messages:
     * the same link as connect, without a MessagePort between.
     */
    attach(fn) {
      if (port || send) return link.receive;
      send = fn;
      lastSent = '';
      lastProviders = NO_PROVIDERS;
      sync();
      sendUnsent();
      return link.receive;
    },
    sync,
    /**
     * This document's tools as they are now (a dialog's notice carries
     * them: a report on the channel, even one posted already, is not read
     * while the dialog is up).
     */
    current() {
      beforeLook();
      const metas = [];
      for (const e of tools().values()) metas.push(e.meta);
      return metas;
    },
    /** Sends the providers where they differ from what was sent. */
    syncProviders,
    post,
    bridgeAt,
  };
}
