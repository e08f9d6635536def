// The bridge's isolated-world relay: a content script in every frame, at
// document_start. It hands the main-world script (content/main.js) one end
// of a MessageChannel, once, before any page script runs; the page never gets
// to talk on that channel. It then passes messages between that channel and
// a long-lived Port to the service worker, which it opens once the frame has
// tools (frames without tools cost the worker nothing) and opens again when
// the worker restarts.
//
// Messages on the Port (relay <-> worker):
//   relay -> worker  {type:"tools", tools:[…]}  the frame's whole tool list, on connect and on every change
//                    {type:"result", id, output}   {type:"error", id, error:{code, message}}
//   worker -> relay  {type:"call", id, name, arguments}   {type:"cancel", id}
// A second registry (context providers) adds its list message to LISTS and
// its message types to TO_WORKER and TO_PAGE; nothing else changes here.
(function webmcpBridgeRelay() {
  'use strict';

  const HANDOVER = '__webmcpBridgeHandover';
  const PORT_NAME = 'webmcp-frame';
  const MAX_BACKOFF = 30000;

  const channel = new MessageChannel();
  const page = channel.port1;
  // Only this window's own scripts can post a message whose source is this
  // window, and none of the page's has run yet; main.js takes the port with
  // the first message listener of the window and hides the message.
  window.postMessage({ [HANDOVER]: 1 }, '*', [channel.port2]);

  // Whole-list messages: the latest of each is kept and sent again on every
  // new connection to the worker.
  const LISTS = { tools: 'tools' };
  const TO_WORKER = new Set(['tools', 'result', 'error']);
  const TO_PAGE = new Set(['call', 'cancel']);

  const latest = new Map(); // list message type -> the latest such message
  let worker = null;
  let connectedAt = 0;
  let backoff = 0;
  let timer = 0;
  let dead = false;

  // Whether this frame has anything to offer; until then it costs the worker nothing.
  function hasContent() {
    for (const [type, field] of Object.entries(LISTS)) {
      const m = latest.get(type);
      if (m && m[field].length) return true;
    }
    return false;
  }

  page.onmessage = (e) => {
    const m = e.data;
    if (!m || typeof m !== 'object' || !TO_WORKER.has(m.type)) return;
    const field = LISTS[m.type];
    if (field) {
      if (!Array.isArray(m[field])) return;
      latest.set(m.type, m);
      if (!worker && hasContent()) {
        connect();
        return; // connect() sends the latest lists
      }
    }
    send(m);
  };

  function send(m) {
    if (!worker) return;
    try {
      worker.postMessage(m);
    } catch {
      onDisconnect();
    }
  }

  function connect() {
    if (worker || dead || timer) return;
    if (document.prerendering) {
      document.addEventListener('prerenderingchange', connect, { once: true });
      return;
    }
    let p;
    try {
      p = chrome.runtime.connect({ name: PORT_NAME });
    } catch {
      dead = true; // the extension was reloaded or removed: this script is an orphan
      return;
    }
    worker = p;
    connectedAt = Date.now();
    p.onMessage.addListener((m) => {
      if (m && TO_PAGE.has(m.type)) page.postMessage(m);
    });
    p.onDisconnect.addListener(() => {
      if (worker === p) onDisconnect();
    });
    for (const m of latest.values()) send(m);
  }

  function onDisconnect() {
    void chrome.runtime.lastError;
    worker = null;
    // Calls under way have nobody to answer to any more: abort them.
    page.postMessage({ type: 'cancelAll' });
    if (!chrome.runtime || !chrome.runtime.id) {
      dead = true;
      return;
    }
    if (!hasContent()) return;
    // The worker restarts (it was stopped, or it crashed): connect again at
    // once after a long-lived connection, and back off when it keeps failing.
    const lived = Date.now() - connectedAt;
    backoff = lived > 5000 ? 0 : Math.min(Math.max(backoff * 2, 100), MAX_BACKOFF);
    if (backoff === 0) {
      connect(); // no timer: timers of background tabs are throttled
      return;
    }
    timer = setTimeout(() => {
      timer = 0;
      connect();
    }, backoff);
  }

  // A page restored from the back/forward cache lost its Port.
  window.addEventListener('pageshow', (e) => {
    if (e.persisted && !worker && hasContent()) connect();
  });
})();
