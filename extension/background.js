// The bridge's service worker: the registry of tabs, frames, tools and UI
// context; the native-messaging link to webmcp-host (dev.webmcp.bridge), kept
// open and reopened with backoff; the routing of calls to their tab and
// frame; the requests of shims (sampleContext, pin, unpin); the pins, kept in
// chrome.storage.local.
//
// Frames talk to it over long-lived Ports named "webmcp-frame" (see
// content/relay.js). Everything it knows is rebuilt when it starts: the tabs
// from chrome.tabs, the frames' tools, providers and context from the relays,
// which connect again on their own when the worker they talked to went away;
// the pins from storage.

import { PendingCalls } from './lib/calls.js';
import { ChunkJoiner } from './lib/chunks.js';
import { normalizeFrameContext, normalizeProviderDefs } from './lib/contexts.js';
import { PINS_KEY, addPin, pinsFrom, removePins, storedPins } from './lib/pins.js';
import {
  Code,
  HOST_NAME,
  Method,
  T,
  browserInfo,
  checkHostMessage,
  errorMessage,
  helloMessage,
  normalizeTools,
  resultMessage,
} from './lib/protocol.js';
import { Registry, frameKey } from './lib/registry.js';
import { pinFromContext, pinParams, resolveTab, tabIdParam, unpinParams } from './lib/requests.js';
import { STORAGE_KEY, allowListFrom, compileAllowList, webOrigin } from './lib/sites.js';

const PORT_NAME = 'webmcp-frame';
const INSTANCE_KEY = 'instance';
// After a cold start, wait this long for the relays to connect again before
// the first state (at most SETTLE_MAX), so that agents do not see every tool
// vanish and come back.
const SETTLE_QUIET = 150;
const SETTLE_MAX = 1000;
// How long a sample request waits for a frame's answer (its providers get
// 50 ms; a background tab's timers may be throttled to 1 s); a frame that is
// late counts with its last sample.
const SAMPLE_TIMEOUT = 1000;
const RECONNECT_MIN = 500;
const RECONNECT_MAX = 30000;
const STABLE_LINK = 10000;

const startedAt = Date.now();
const registry = new Registry();
const pending = new PendingCalls();
const joiner = new ChunkJoiner();
/** @type {Map<string, {port: chrome.runtime.Port, tabId: number, frameId: number, origin: string, contextOn: boolean}>} */
const conns = new Map();
/** Sample requests to frames under way: id -> {conn, resolve, timer}. */
const samples = new Map();
let sampleSeq = 0;
/** Ids of the shims' requests under way (answered once; a cancel answers first). */
const requests = new Set();
/** The pins, as stored under PINS_KEY; pin operations run one at a time. */
let pins = [];
let pinQueue = Promise.resolve();

let host = null; // the native Port
let hostReady = false; // hello and state went out on it
let hostSince = 0;
let reconnectDelay = 0;
let reconnectTimer = 0;
let lastHostError = '';
let lastFrameConnect = 0;
let flushQueued = false;
let initDone = false;
const removedDuringInit = new Set();
let identity = { name: 'Chromium', version: '', instance: '', extensionId: chrome.runtime.id };

function log(...args) {
  console.info('[webmcp bridge]', ...args);
}

function warn(...args) {
  console.warn('[webmcp bridge]', ...args);
}

// ---- the host link ---------------------------------------------------------

function sendHost(msg) {
  if (!host) return false;
  try {
    host.postMessage(msg);
    return true;
  } catch (e) {
    warn(`cannot send ${msg.type} to the native host: ${e.message}`);
    return false;
  }
}

// Sends the host what changed since it was last told.
function flush() {
  if (!hostReady) return;
  for (const m of registry.changes()) sendHost(m);
}

function schedule() {
  if (flushQueued) return;
  flushQueued = true;
  queueMicrotask(() => {
    flushQueued = false;
    flush();
  });
}

function whenSettled() {
  return new Promise((resolve) => {
    const check = () => {
      const now = Date.now();
      const quiet = now - lastFrameConnect >= SETTLE_QUIET && now - startedAt >= SETTLE_QUIET;
      if (quiet || now - startedAt >= SETTLE_MAX) resolve();
      else setTimeout(check, 25);
    };
    check();
  });
}

function connectHost() {
  clearTimeout(reconnectTimer);
  reconnectTimer = 0;
  if (host) return;
  let port;
  try {
    port = chrome.runtime.connectNative(HOST_NAME);
  } catch (e) {
    noteHostError(e.message);
    scheduleReconnect();
    return;
  }
  host = port;
  hostReady = false;
  hostSince = Date.now();
  joiner.reset();
  port.onMessage.addListener((m) => {
    if (host === port) onHostMessage(m, false);
  });
  port.onDisconnect.addListener(() => {
    const why = chrome.runtime.lastError?.message || 'the host exited';
    if (host !== port) return;
    host = null;
    hostReady = false;
    noteHostError(why);
    // The host answered the calls and requests under way with no_browser; stop them in the pages.
    for (const c of pending.takeWhere(() => true)) postToFrame(c.conn, { type: T.cancel, id: c.id });
    requests.clear();
    scheduleReconnect();
  });
  sendHost(helloMessage(identity));
  whenSettled().then(() => {
    if (host !== port) return;
    sendHost(registry.snapshot(pins));
    hostReady = true;
    schedule();
  });
}

function noteHostError(why) {
  // Said once per distinct reason: a missing host would otherwise log every 30 s.
  if (why === lastHostError) return;
  lastHostError = why;
  const reason = why.replace(/\.$/, '');
  const hint = /not found/i.test(why)
    ? 'install webmcp-host with install.sh (see the README), then it connects by itself'
    : 'reconnecting with backoff';
  warn(`native host ${HOST_NAME}: ${reason}; ${hint}`);
}

function scheduleReconnect() {
  if (reconnectTimer) return;
  const stable = hostSince && Date.now() - hostSince > STABLE_LINK;
  reconnectDelay = stable ? RECONNECT_MIN : Math.min(Math.max(reconnectDelay * 2, RECONNECT_MIN), RECONNECT_MAX);
  reconnectTimer = setTimeout(connectHost, reconnectDelay);
}

function onHostMessage(raw, fromChunk) {
  const { msg, ignore, reply } = checkHostMessage(raw);
  if (reply) {
    sendHost(reply);
    return;
  }
  if (ignore) {
    warn(`ignored from the host: ${ignore}`);
    return;
  }
  switch (msg.type) {
    case T.hello:
      lastHostError = '';
      reconnectDelay = 0;
      log('host hello', JSON.stringify(msg.host || {}));
      break;
    case T.chunk: {
      if (fromChunk) {
        warn('ignored a chunk inside a chunked message');
        return;
      }
      let text;
      try {
        text = joiner.add(msg);
      } catch (e) {
        warn(e.message);
        return;
      }
      if (text === null) return;
      let whole;
      try {
        whole = JSON.parse(text);
      } catch (e) {
        warn(`chunked message ${msg.id} is not JSON: ${e.message}`);
        return;
      }
      onHostMessage(whole, true);
      break;
    }
    case T.call:
      onCall(msg);
      break;
    case T.request:
      onRequest(msg);
      break;
    case T.cancel:
      onCancel(msg);
      break;
  }
}

// ---- calls -----------------------------------------------------------------

function postToFrame(conn, msg) {
  try {
    conn.port.postMessage(msg);
    return true;
  } catch {
    return false;
  }
}

function onCall(m) {
  const problem = registry.route(m.tabId, m.frameId, m.name);
  const conn = conns.get(frameKey(m.tabId, m.frameId));
  if (problem || !conn) {
    const p = problem || { code: Code.notFound, message: `no frame ${m.frameId} in tab ${m.tabId}` };
    sendHost(errorMessage(m.id, p.code, p.message));
    return;
  }
  if (!pending.add(m.id, m.tabId, m.frameId, conn)) {
    warn(`call ${m.id} is already under way; the repeated call is ignored`);
    return;
  }
  if (!postToFrame(conn, { type: T.call, id: m.id, name: m.name, arguments: m.arguments })) {
    pending.take(m.id);
    sendHost(errorMessage(m.id, Code.navigated, `tab ${m.tabId} frame ${m.frameId} went away before the call reached it`));
  }
}

function onCancel(m) {
  if (requests.delete(m.id)) {
    sendHost(errorMessage(m.id, Code.cancelled, 'the request was cancelled'));
    return;
  }
  const c = pending.take(m.id);
  if (!c) return; // answered already
  postToFrame(c.conn, { type: T.cancel, id: m.id });
  sendHost(errorMessage(m.id, Code.cancelled, 'the call was cancelled'));
}

function onFrameAnswer(conn, m) {
  if (typeof m.id !== 'string') return;
  const c = pending.byId.get(m.id);
  if (!c || c.conn !== conn) return; // cancelled, or not this frame's call
  pending.take(m.id);
  if (m.type === T.result) {
    sendHost({ type: T.result, id: m.id, output: m.output === undefined ? null : m.output });
    return;
  }
  const e = m.error && typeof m.error === 'object' ? m.error : {};
  const code = e.code === Code.notFound || e.code === Code.internal ? e.code : Code.toolError;
  sendHost(errorMessage(m.id, code, typeof e.message === 'string' ? e.message : 'the tool failed'));
}

// Answers the calls of a frame (or tab) that went away.
function failCalls(pred, code, message) {
  for (const c of pending.takeWhere(pred)) sendHost(errorMessage(c.id, code, message(c)));
}

// ---- frames ----------------------------------------------------------------

function onFrameConnect(port) {
  if (port.name !== PORT_NAME) return;
  const s = port.sender || {};
  if (s.id !== chrome.runtime.id || !s.tab || !Number.isSafeInteger(s.tab.id) || s.tab.id < 0 || !Number.isSafeInteger(s.frameId)) {
    port.disconnect();
    return;
  }
  const tabId = s.tab.id;
  const frameId = s.frameId;
  const key = frameKey(tabId, frameId);
  lastFrameConnect = Date.now();
  if (!removedDuringInit.has(tabId)) registry.upsertTab(s.tab);
  const conn = { port, tabId, frameId, origin: s.origin || webOrigin(s.url) || 'null', contextOn: false };
  const old = conns.get(key);
  if (old) {
    // The frame's previous document: it navigated away.
    failCalls((c) => c.conn === old, Code.navigated, () => `tab ${tabId} frame ${frameId} navigated while the call ran`);
    endSamples(old);
    try {
      old.port.disconnect();
    } catch {
      // gone already
    }
  }
  conns.set(key, conn);
  // A new document: nothing of the old one's tools, providers or context stays.
  registry.removeFrame(tabId, frameId);
  registry.setFrame(tabId, frameId, conn.origin, []);
  port.onMessage.addListener((m) => onFrameMessage(conn, m));
  port.onDisconnect.addListener(() => onFrameGone(conn));
  updateContextOn(conn);
  schedule();
}

function onFrameMessage(conn, m) {
  if (!m || typeof m !== 'object' || conns.get(frameKey(conn.tabId, conn.frameId)) !== conn) return;
  switch (m.type) {
    case 'tools': {
      const { tools, problems } = normalizeTools(m.tools);
      if (problems.length) warn(`tab ${conn.tabId} frame ${conn.frameId} (${conn.origin}): left out ${problems.join('; ')}`);
      registry.setFrame(conn.tabId, conn.frameId, conn.origin, tools);
      schedule();
      break;
    }
    case 'providers':
      registry.setFrameProviders(conn.tabId, conn.frameId, normalizeProviderDefs(m.providers));
      schedule();
      break;
    case T.context:
      registry.setFrameContext(conn.tabId, conn.frameId, normalizeFrameContext(m, conn.frameId === 0), Date.now());
      if (typeof m.id === 'string' && samples.get(m.id)?.conn === conn) endSample(m.id);
      schedule();
      break;
    case T.result:
    case T.error:
      onFrameAnswer(conn, m);
      break;
  }
}

function onFrameGone(conn) {
  void chrome.runtime.lastError;
  endSamples(conn);
  const key = frameKey(conn.tabId, conn.frameId);
  if (conns.get(key) === conn) {
    conns.delete(key);
    registry.removeFrame(conn.tabId, conn.frameId);
    schedule();
  }
  const calls = pending.takeWhere((c) => c.conn === conn);
  if (!calls.length) return;
  // The document went away: the tab closed, or the frame navigated (or was removed).
  chrome.tabs.get(conn.tabId).then(
    () => calls.forEach((c) => sendHost(errorMessage(c.id, Code.navigated, `tab ${c.tabId} frame ${c.frameId} navigated away while the call ran`))),
    () => calls.forEach((c) => sendHost(errorMessage(c.id, Code.tabClosed, `tab ${c.tabId} closed while the call ran`))),
  );
}

// ---- UI context --------------------------------------------------------------

// Tells a frame whether its context may leave the browser (its tab's site
// and its own are allowed); it samples itself only while it may.
function updateContextOn(conn) {
  const on = registry.contextAllowed(conn.tabId, conn.frameId);
  if (on === conn.contextOn) return;
  conn.contextOn = on;
  postToFrame(conn, { type: 'contextOn', on });
}

function updateAllContextOn(tabId) {
  for (const c of conns.values()) if (tabId === undefined || c.tabId === tabId) updateContextOn(c);
}

function endSample(id) {
  const s = samples.get(id);
  if (!s) return;
  samples.delete(id);
  clearTimeout(s.timer);
  s.resolve();
}

function endSamples(conn) {
  for (const [id, s] of samples) if (s.conn === conn) endSample(id);
}

// Asks one frame for a fresh sample; resolves when it arrived, the frame
// went away, or SAMPLE_TIMEOUT passed.
function sampleFrame(conn) {
  return new Promise((resolve) => {
    const id = `w${++sampleSeq}`;
    samples.set(id, { conn, resolve, timer: setTimeout(() => endSample(id), SAMPLE_TIMEOUT) });
    if (!postToFrame(conn, { type: 'sample', id })) endSample(id);
  });
}

// Samples every allowed frame of a tab now and returns the tab's Context;
// a change goes to the host as a context message first.
async function sampleTab(tab) {
  const frames = registry.contextFrames(tab.id);
  const targets = frames.map((f) => conns.get(frameKey(tab.id, f.frameId))).filter(Boolean);
  await Promise.all(targets.map(sampleFrame));
  flush();
  const ctx = registry.tabContext(tab.id);
  if (ctx) return ctx;
  // The page has not reported yet (it is loading, or it runs no content script).
  const bare = { tabId: tab.id };
  if (tab.url) bare.url = tab.url;
  if (tab.title) bare.title = tab.title;
  bare.time = Date.now();
  return bare;
}

// ---- requests ----------------------------------------------------------------

function onRequest(m) {
  if (requests.has(m.id)) {
    warn(`request ${m.id} is already under way; the repeated request is ignored`);
    return;
  }
  requests.add(m.id);
  let work;
  switch (m.method) {
    case Method.sampleContext:
      work = requestSample(m.params);
      break;
    case Method.pin:
      work = requestPin(m.params);
      break;
    case Method.unpin:
      work = requestUnpin(m.params);
      break;
  }
  work.then((r) => answerRequest(m.id, r), (e) => {
    warn(`${m.method} failed: ${e && e.stack ? e.stack : e}`);
    answerRequest(m.id, { code: Code.internal, message: `${m.method} failed in the extension: ${e && e.message ? e.message : e}` });
  });
}

// r is {output} or {code, message}.
function answerRequest(id, r) {
  if (!requests.delete(id)) return; // cancelled, or the host went away
  sendHost(r.code ? errorMessage(id, r.code, r.message) : resultMessage(id, r.output));
}

async function requestSample(params) {
  const p = tabIdParam(Method.sampleContext, params);
  if (p.code) return p;
  const r = resolveTab(registry, p.tabId);
  if (r.code) return r;
  return { output: await sampleTab(r.tab) };
}

// Runs pin operations one at a time, in order.
function withPins(fn) {
  const p = pinQueue.then(fn);
  pinQueue = p.catch(() => {});
  return p;
}

function sendPins() {
  if (hostReady) sendHost({ type: T.pins, pins });
}

// Replaces the pins, stores them and tells the host; on a storage failure
// nothing changes.
async function savePins(next) {
  const before = pins;
  pins = next; // before the write, so that storage.onChanged finds nothing new
  try {
    await chrome.storage.local.set({ [PINS_KEY]: storedPins(next) });
  } catch (e) {
    pins = before;
    return { code: Code.internal, message: `the pins could not be stored (${e.message}); nothing changed` };
  }
  sendPins();
  return null;
}

async function requestPin(params) {
  const p = pinParams(params);
  if (p.code) return p;
  const r = resolveTab(registry, p.tabId);
  if (r.code) return r;
  const ctx = await sampleTab(r.tab);
  const made = pinFromContext(ctx, p.providerId, registry.providerIds(r.tab.id), Date.now());
  if (made.code) return made;
  return withPins(async () => {
    const added = addPin(pins, made.pin);
    if (added.error) return { code: Code.badRequest, message: added.error };
    return (await savePins(added.pins)) || { output: made.pin };
  });
}

async function requestUnpin(params) {
  const p = unpinParams(params);
  if (p.code) return p;
  return withPins(async () => {
    const { pins: next, removed } = removePins(pins, p.providerId);
    if (removed === 0) return { output: { removed } };
    return (await savePins(next)) || { output: { removed } };
  });
}

// ---- tabs ------------------------------------------------------------------

function tabClosed(tabId) {
  registry.removeTab(tabId);
  for (const [key, c] of conns) {
    if (c.tabId !== tabId) continue;
    conns.delete(key);
    endSamples(c);
  }
  failCalls((c) => c.tabId === tabId, Code.tabClosed, (c) => `tab ${c.tabId} closed while the call ran`);
  schedule();
}

function refreshTab(tabId) {
  chrome.tabs.get(tabId).then((t) => {
    registry.upsertTab(t);
    updateAllContextOn(tabId);
    schedule();
  }, () => {});
}

// ---- settings --------------------------------------------------------------

function setAllowList(stored) {
  const compiled = compileAllowList(allowListFrom(stored));
  for (const e of compiled.errors) warn(e);
  registry.setAllows(compiled.allows);
  updateAllContextOn();
}

async function detectBrowser() {
  const uad = navigator.userAgentData;
  let fullVersionList;
  try {
    if (uad && uad.getHighEntropyValues) ({ fullVersionList } = await uad.getHighEntropyValues(['fullVersionList']));
  } catch {
    // brands alone will do
  }
  return browserInfo({ fullVersionList, brands: uad && uad.brands, userAgent: navigator.userAgent });
}

async function init() {
  const stored = await chrome.storage.local.get([STORAGE_KEY, INSTANCE_KEY, PINS_KEY]);
  setAllowList(stored[STORAGE_KEY]);
  pins = pinsFrom(stored[PINS_KEY]); // no request comes before the host link opens, below
  let instance = stored[INSTANCE_KEY];
  if (typeof instance !== 'string' || instance === '') {
    instance = crypto.randomUUID();
    await chrome.storage.local.set({ [INSTANCE_KEY]: instance });
  }
  const browser = await detectBrowser();
  identity = { ...browser, instance, extensionId: chrome.runtime.id };
  const [tabs, win] = await Promise.all([
    chrome.tabs.query({}),
    chrome.windows.getLastFocused().catch(() => null),
  ]);
  // Events that arrived meanwhile are newer than this list.
  for (const t of tabs) if (!registry.tabs.has(t.id) && !removedDuringInit.has(t.id)) registry.upsertTab(t);
  if (win && registry.focusedWindow < 0) registry.setFocusedWindow(win.id);
  initDone = true;
  removedDuringInit.clear();
  connectHost();
}

// ---- listeners (registered at the top level, so that events wake the worker) --

chrome.runtime.onConnect.addListener(onFrameConnect);
chrome.tabs.onCreated.addListener((t) => {
  registry.upsertTab(t);
  schedule();
});
chrome.tabs.onUpdated.addListener((tabId, change, t) => {
  registry.upsertTab(t);
  if (change.url !== undefined) updateAllContextOn(tabId);
  schedule();
});
chrome.tabs.onActivated.addListener(({ tabId, windowId }) => {
  registry.activate(windowId, tabId);
  schedule();
});
chrome.tabs.onRemoved.addListener((tabId) => {
  if (!initDone) removedDuringInit.add(tabId);
  tabClosed(tabId);
});
chrome.tabs.onReplaced.addListener((addedTabId, removedTabId) => {
  tabClosed(removedTabId);
  refreshTab(addedTabId);
});
chrome.tabs.onAttached.addListener((tabId) => refreshTab(tabId));
chrome.windows.onFocusChanged.addListener((windowId) => {
  registry.setFocusedWindow(windowId);
  schedule();
});
chrome.storage.onChanged.addListener((changes, area) => {
  if (area !== 'local') return;
  if (STORAGE_KEY in changes) {
    setAllowList(changes[STORAGE_KEY].newValue);
    schedule();
  }
  if (PINS_KEY in changes) {
    // Another part of the extension (its UI) changed the pins.
    withPins(() => {
      const next = pinsFrom(changes[PINS_KEY].newValue);
      if (JSON.stringify(next) === JSON.stringify(pins)) return;
      pins = next;
      sendPins();
    });
  }
});
// Browser start and install only need to wake the worker, which then opens the host link.
chrome.runtime.onStartup.addListener(() => {});
chrome.runtime.onInstalled.addListener(() => {});

init().catch((e) => {
  warn(`start-up failed: ${e && e.stack ? e.stack : e}`);
  initDone = true;
  connectHost();
});
