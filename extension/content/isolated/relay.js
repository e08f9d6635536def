// The relay of one frame, in the extension's isolated world (index.js starts
// it in every frame at document_start; the page cannot see this world). It
// hands the page's world (generated/main-world.js) one end of a MessageChannel,
// once, before any page script runs; the page never gets to talk on that
// channel. It then passes messages between that channel and a long-lived
// Port to the service worker (workerlink.js). A frame opens its Port once it
// has tools or context providers, and a top frame of a web page at once (its
// ambient context needs no help from the page); other frames cost the worker
// nothing. It opens the Port again when the worker restarts.
//
// UI context (sampler.js): while the worker says the frame's context may
// leave the browser, the relay samples the frame after user input, when the
// page says its context changed and when its providers change, and sends a
// sample when it differs from the last one sent.
//
// Both links are lib/link.js links: the Port's (workerlink.js), the
// channel's end, and the native source's. What came in a batch reaches the
// relay one message at a time, and what the relay passes on from it goes on
// as one batch (the link's hold and release). A result whose message is
// over MAX_WHOLE bytes of JSON goes to the worker as chunks (the link cuts
// it; the worker's link joins them), and one whose output is over
// MAX_RESULT (protocol.MaxResult) goes as an error "too_large" instead: the
// page's tool ran, its result stays here.
//
// The messages of both links are in extension/PROTOCOL.md (golden ones in
// testdata/frames); their types are lib/protocol.js PageLinkType.

import { CHUNK_UNITS, MAX_RESULT, MAX_WHOLE } from '../../lib/chunks.js';
import { createLink } from '../../lib/link.js';
import { Code, DIALOG_EVENT, PageLinkType as L, HANDOVER, PORT_NAME } from '../../lib/protocol.js';
import { utf8Length } from '../../lib/utf8.js';
import { createNativeSource } from './browsersource.js';
import { formCalls } from './formcalls.js';
import { INPUT_DELAY, MAIN_TIMEOUT, SAMPLE_DELAY, contextSampler } from './sampler.js';
import { MAX_BACKOFF, workerLink } from './workerlink.js';

export { CHUNK_UNITS, DIALOG_EVENT, HANDOVER, INPUT_DELAY, MAIN_TIMEOUT, MAX_BACKOFF, MAX_RESULT, MAX_WHOLE, PORT_NAME, SAMPLE_DELAY };

// The most of a dialog's text that the worker hears (UTF-16 units).
export const MAX_DIALOG_TEXT = 1000;

// The user's use of a page, for {type:"userInput"}.
const USE_EVENTS = ['pointerdown', 'keydown'];

// Whole-list messages: the latest of each is kept and sent again on every
// new connection to the worker. Those with a field say whether the frame
// has anything to offer (a non-empty list).
const LISTS = { [L.tools]: 'tools', [L.providers]: 'providers', [L.context]: null };
// What passes from the page's world to the worker, and back.
const FROM_PAGE = new Set([L.tools, L.providers, L.result, L.error]);
const TO_PAGE = new Set([L.call, L.cancel, L.toolsTaken]);

// The most of a document's application/ld+json text that a loaded message
// carries (UTF-16 units, all its scripts together); the scripts past it are
// left out.
export const MAX_JSON_LD = 8 << 20;

/**
 * The JSON values of a document's <script type="application/ld+json">
 * elements, in document order; a script whose text is not JSON is left
 * out, as Chromium leaves it out of a declarative form's answer.
 */
export function jsonLdOf(document) {
  const out = [];
  let size = 0;
  for (const s of document.querySelectorAll('script[type]')) {
    if (String(s.type).trim().toLowerCase() !== 'application/ld+json') continue;
    const text = s.textContent || '';
    size += text.length;
    if (size > MAX_JSON_LD) break;
    try {
      out.push(JSON.parse(text));
    } catch {
      // not JSON: left out
    }
  }
  return out;
}

/** A call's timing mark (protocol.Mark) on a traced message. */
function mark(m, hop) {
  if (Array.isArray(m.trace)) m.trace.push({ hop, at: performance.timeOrigin + performance.now() });
}

/**
 * What carries a result to the worker: msg, itself with text its JSON (the
 * link measures it by that, and cuts that into chunks when it is over
 * MAX_WHOLE bytes), or a too_large error (or one for a result that is not
 * JSON). The output's JSON is written once, here.
 */
export function resultOut(m) {
  let out;
  try {
    out = JSON.stringify(m.output === undefined ? null : m.output) ?? 'null';
  } catch (e) {
    return { msg: { type: L.error, id: m.id, error: { code: Code.toolError, message: `the tool's result cannot be sent as JSON: ${e.message}` } } };
  }
  const bytes = out.length <= MAX_RESULT / 3 ? 0 : utf8Length(out);
  if (bytes > MAX_RESULT) {
    const message = `the result is ${bytes} bytes of JSON, over the bridge's limit of 64 MiB (${MAX_RESULT} bytes): ask the tool for less (a narrower query, one page of results)`;
    return { msg: { type: L.error, id: m.id, error: { code: Code.tooLarge, message } } };
  }
  return { msg: m, text: `{"type":"result","id":${JSON.stringify(m.id)},"output":${out}}` };
}

/** A random name (env.crypto where there is one). */
function randomName(env) {
  const c = env.crypto || globalThis.crypto;
  if (c && typeof c.getRandomValues === 'function') {
    const a = new Uint32Array(4);
    c.getRandomValues(a);
    return Array.from(a, (n) => n.toString(36)).join('');
  }
  return Math.random().toString(36).slice(2) + Math.random().toString(36).slice(2);
}

/**
 * Starts the relay of one frame.
 * env: window, document, location, chrome, MessageChannel; lib {snapshot,
 * ambient, indicator?} (lib/snapshot.js, ambient.js, indicator.js);
 * clock {now, setTimeout, clearTimeout}.
 */
export function start(env) {
  const { window, document, location, chrome, lib, clock } = env;
  const isTop = window === window.top;
  const isWeb = location.protocol === 'http:' || location.protocol === 'https:';
  const canSample = !!(lib.snapshot && lib.ambient);

  // A relay started late (env.late: the worker injected it into a document
  // open before its site was allowed, where the browser has its own
  // WebMCP) has no page world script to talk to: it hands no channel to
  // the page, which would otherwise get its end, and waits for no answer
  // of it.
  const late = env.late === true;
  const channel = late ? null : new env.MessageChannel();
  const page = late ? { postMessage() {}, onmessage: null } : channel.port1;
  // The DOM event by which the page's world says, synchronously, that a
  // dialog opens or closed (content/main/dialogs.js): a random type, so
  // that the page can neither listen for it nor forge it. It stays the
  // bridge's: the page-world script reads the handover and these events
  // through the getters of MessageEvent and CustomEvent it took before any
  // page script ran, and builds its events' init objects and messages with
  // no prototype and no toJSON (content/source/builtins.js), so no getter a
  // page puts on a prototype sees the name or what the events carry.
  const dialogEvent = `webmcp-dialog-${randomName(env)}`;
  // Only this window's own scripts can post a message whose source is this
  // window, and none of the page's has run yet; main.js takes the port with
  // the first message listener of the window and hides the message.
  if (!late) window.postMessage({ [HANDOVER]: 1, [DIALOG_EVENT]: dialogEvent }, '*', [channel.port2]);

  const latest = new Map(); // list message type -> the latest such message
  // The frame's tools come from two sources: the browser's own
  // document.modelContext, read here (native mode: browsersource.js), and
  // the page's world (the polyfill, and page runtimes' own objects). The
  // worker gets one list: the native tools first, then the page world's
  // of other names; a call goes to the source of its tool.
  const toolsOf = { native: [], page: [] };
  let nativeNames = new Set();
  // The links to the two sources: a batch from the worker goes to each as
  // one message; a batch of answers from either reaches fromSource one by
  // one, and goes on to the worker as one (but for big results).
  const toWorkerTogether = { hold: () => link.hold(), release: () => link.release() };
  const pageLink = createLink((m) => page.postMessage(m), { batchHooks: toWorkerTogether });
  pageLink.onMessage((m, inBatch) => fromSource(m, 'page', inBatch));
  let nativeLink = null;
  const native = createNativeSource({ window, document, onMessage: (m) => nativeLink.receive(m) });
  if (native) {
    nativeLink = createLink((m) => native.send(m), { batchHooks: toWorkerTogether });
    nativeLink.onMessage((m, inBatch) => fromSource(m, 'native', inBatch));
    native.tellOn(dialogEvent);
  }
  const indicator = isTop && lib.indicator ? lib.indicator.create(document) : null;

  // Whether this frame has anything to offer; until then it costs the worker nothing.
  function hasContent() {
    if (isTop && isWeb && canSample) return true;
    for (const [type, field] of Object.entries(LISTS)) {
      const m = latest.get(type);
      if (field && m && m[field].length) return true;
    }
    return false;
  }

  const context = contextSampler({
    window, document, clock, isTop, canSample, latest,
    snapshot: lib.snapshot,
    ambient: lib.ambient,
    askPage: (m) => page.postMessage(m),
    send: (m) => link.send(m),
  });

  const link = workerLink({
    chrome, document, clock, hasContent,
    latest: () => latest.values(),
    onMessage: fromWorker,
    // What came from the host together goes to the page together.
    batchHooks: {
      hold() {
        pageLink.hold();
        if (nativeLink) nativeLink.hold();
      },
      release() {
        pageLink.release();
        if (nativeLink) nativeLink.release();
      },
    },
    onLost() {
      // Calls under way have nobody to answer to any more: abort them. A
      // tools message under way is taken: the next Port sends the latest.
      underWay.clear();
      toSources({ type: L.cancelAll });
      toSources({ type: L.toolsTaken });
      if (indicator) indicator.show('');
    },
    onDead: () => context.setOn(false),
  });

  page.onmessage = (e) => pageLink.receive(e.data);

  // The calls under way here: a form tool's answer that the document's
  // unload beats comes from the relay as it goes (formcalls.js).
  const underWay = formCalls(window);
  window.addEventListener('pagehide', () => {
    for (const m of underWay.leaving()) link.send(m);
  }, true);

  // To the page's world, or to the native source too: what concerns every
  // call and report of the frame.
  function toSources(m) {
    page.postMessage(m);
    if (native) native.send(m);
  }

  // The frame's one tools list, from both sources' latest.
  function mergedTools() {
    if (!native) return toolsOf.page;
    if (!toolsOf.page.length) return toolsOf.native;
    const out = toolsOf.native.slice();
    for (const t of toolsOf.page) if (t && !nativeNames.has(t.name)) out.push(t);
    return out;
  }

  // An alert, confirm or prompt opens or closed. While it is up, nothing
  // here runs: the worker hears of it now, with the tools as they are (a
  // report on the channel waits for the dialog to close), and answers
  // calls for the frame until it hears that the dialog closed.
  window.addEventListener(dialogEvent, (e) => {
    let d;
    try {
      d = JSON.parse(e.detail);
    } catch {
      return;
    }
    if (!d || typeof d !== 'object') return;
    if (typeof d.witness === 'string') {
      if (native) native.witness.hear(d);
      return;
    }
    if (d.open !== true) {
      link.send({ type: L.dialog, open: false });
      return;
    }
    if (Array.isArray(d.tools) || native) {
      const before = JSON.stringify(mergedTools());
      if (Array.isArray(d.tools)) toolsOf.page = d.tools;
      if (native) setNative(native.current());
      const now = mergedTools();
      if (JSON.stringify(now) !== before || !latest.get(L.tools)) takeTools({ type: L.tools, tools: now }, null);
    }
    const kind = ['alert', 'confirm', 'prompt'].includes(d.kind) ? d.kind : 'alert';
    link.send({ type: L.dialog, open: true, kind, text: String(d.text ?? '').slice(0, MAX_DIALOG_TEXT) });
  });

  // whenLoaded: once the document is parsed (DOMContentLoaded and its
  // listeners done) and the page's world has reported its tools as they
  // are then (flush), the worker hears "loaded", with the document's
  // application/ld+json data when it asked for it (the answer of a
  // declarative form that led here, as Chromium gives it).
  const flushing = new Map(); // flush id -> done()
  let flushSeq = 0;
  function whenLoaded(m) {
    if (typeof m.id !== 'string') return;
    const go = () => {
      const id = `f${++flushSeq}`;
      let over = false;
      const done = () => {
        if (over) return;
        over = true;
        flushing.delete(id);
        clock.clearTimeout(guard);
        const out = { type: L.loaded, id: m.id };
        if (m.jsonLd === true) out.jsonLd = jsonLdOf(document);
        link.send(out);
      };
      const guard = clock.setTimeout(done, MAIN_TIMEOUT); // a page's world that does not answer
      // Both sources answer, each once its tools are reported.
      let left = (native ? 1 : 0) + (late ? 0 : 1);
      flushing.set(id, () => {
        if (--left <= 0) done();
      });
      toSources({ type: L.flush, id });
    };
    if (document.readyState !== 'loading') go();
    else document.addEventListener('DOMContentLoaded', () => clock.setTimeout(go, 0), { once: true });
  }

  function setNative(list) {
    toolsOf.native = list;
    nativeNames = new Set(list.map((t) => t.name));
  }

  // A tools message of one source (null: the merged list is given).
  function takeTools(m, src) {
    if (src === 'native') setNative(m.tools);
    else if (src === 'page') toolsOf.page = m.tools;
    const merged = src ? { type: L.tools, tools: mergedTools() } : m;
    latest.set(L.tools, merged);
    if (!link.connected() && hasContent()) link.connect(); // connect() sends the latest lists
    else link.send(merged);
    // The sources wait for the worker to take their tools in; with no
    // worker to take them, they are taken (connect() sends them).
    if (!link.connected()) toSources({ type: L.toolsTaken });
  }

  // One message of a source (inBatch: it came in a batch, where only answers come).
  function fromSource(m, src, inBatch = false) {
    if (!m || typeof m !== 'object') return;
    if (inBatch && m.type !== L.result && m.type !== L.error) return;
    if (src === 'native' && (m.type === L.providers || m.type === L.sampled || m.type === L.contextChanged)) return;
    if (m.type === L.flushed) {
      const done = flushing.get(m.id);
      if (done) done();
      return;
    }
    if (m.type === L.sampled) {
      context.onSampled(m);
      return;
    }
    if (m.type === L.contextChanged) {
      context.schedule(0);
      return;
    }
    if (m.type === L.bridgeAt) {
      // The page's world asks whether the bridge runs in an origin (a
      // frame's parent, or a frame that said hello): the worker knows.
      if (src !== 'page' || typeof m.origin !== 'string') return;
      if (!link.connected()) link.connect();
      if (!link.connected()) {
        page.postMessage({ type: L.bridgeAt, id: m.id, yes: false });
        return;
      }
      link.send({ type: L.bridgeAt, id: m.id, origin: m.origin });
      return;
    }
    if (!FROM_PAGE.has(m.type)) return;
    if (m.type === L.result || m.type === L.error) underWay.ended(m.id);
    mark(m, 'relay.back');
    if (m.type === L.result) {
      const { msg, text } = resultOut(m);
      link.send(msg, { text });
      return;
    }
    const field = LISTS[m.type];
    if (field) {
      if (!Array.isArray(m[field])) return;
      if (m.type === L.tools) {
        takeTools(m, src);
        return;
      }
      latest.set(m.type, m);
      if (m.type === L.providers) context.schedule(0);
      if (!link.connected() && hasContent()) link.connect(); // connect() sends the latest lists
      else link.send(m);
      return;
    }
    link.send(m);
  }

  function fromWorker(m) {
    if (!m || typeof m !== 'object') return;
    if (TO_PAGE.has(m.type)) {
      mark(m, 'relay.in');
      if (m.type === L.call) {
        underWay.started(m.id, m.name);
        (native && nativeNames.has(m.name) ? nativeLink : pageLink).send(m);
      }
      else {
        pageLink.send(m);
        if (nativeLink) nativeLink.send(m);
      }
    } else if (m.type === L.bridgeAt) {
      page.postMessage({ type: L.bridgeAt, id: m.id, yes: m.yes === true });
    } else if (m.type === L.contextOn) {
      context.setOn(m.on === true, m.input === true);
    } else if (m.type === L.sample) {
      context.queue(m.id);
    } else if (m.type === L.whenLoaded) {
      whenLoaded(m);
    } else if (m.type === L.indicator && indicator) {
      indicator.show(m.text);
    }
  }

  // The user's first click or key in a top frame (a trusted event: not
  // one a script or a page tool dispatched) tells the worker once per
  // document: a tab an agent opened with open_page is the user's from
  // then on (worker/opener.js).
  if (isTop && isWeb) {
    const onUse = (e) => {
      if (!e.isTrusted) return;
      for (const type of USE_EVENTS) window.removeEventListener(type, onUse, true);
      link.send({ type: L.userInput });
    };
    for (const type of USE_EVENTS) window.addEventListener(type, onUse, true);
  }

  // A page restored from the back/forward cache lost its Port.
  window.addEventListener('pageshow', (e) => {
    if (e.persisted && !link.connected() && hasContent()) link.connect();
  });
}
