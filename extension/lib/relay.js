// The relay's logic (content/relay.js starts it in every frame's isolated
// world). It hands the main-world script (content/main.js) one end of a
// MessageChannel, once, before any page script runs; the page never gets to
// talk on that channel. It then passes messages between that channel and a
// long-lived Port to the service worker. A frame opens its Port once it has
// tools or context providers, and a top frame of a web page at once (its
// ambient context needs no help from the page); other frames cost the worker
// nothing. It opens the Port again when the worker restarts.
//
// UI context: while the worker says the frame's context may leave the
// browser ({type:"contextOn", on:true}: the tab's site and the frame's are
// allowed), the relay samples the frame (its providers through main.js; its
// ambient context, in a top frame, right here) after user input (click,
// keyup, selection and focus changes), when the page says its context
// changed, and when its providers change (after input, INPUT_DELAY ms
// later, so that the page's own handlers have run), at most once per
// SAMPLE_DELAY ms;
// it sends the sample only when it differs from the last one sent. The
// worker's {type:"sample", id} is answered at once, always.
//
// Messages on the Port (relay <-> worker):
// A result whose message is over MAX_WHOLE bytes of JSON goes to the worker
// as chunks ({type:"chunk", id, seq, last, data}, the bridge's format; the
// worker joins them with lib/chunks.js), and one whose output is over
// MAX_RESULT (webmcp.MaxResult) goes as an error "too_large" instead: the
// page's tool ran, its result stays here.
//
//   relay -> worker  {type:"tools", tools:[…]}  the frame's whole tool list, on connect and on every change
//                    {type:"providers", providers:[{id, description?}]}  its context providers, likewise
//                    {type:"context", id?, providers:[ProviderSnapshot…], ambient?}  its latest sample
//                    {type:"result", id, output}   {type:"error", id, error:{code, message}}
//                    {type:"userInput"}  top frame: the user's first click or key in this document
//   worker -> relay  {type:"call", id, name, arguments}   {type:"cancel", id}
//                    {type:"toolsTaken"}  the worker took a tools message in; passed on to
//                                         main.js, which sends one tools message at a time
//                    {type:"contextOn", on}   {type:"sample", id}
//                    {type:"indicator", text}  top frame: "<agent> is using <tool>", "" hides it
//                                              (lib/indicator.js draws it in a closed shadow root)
//
// A classic script without import or export, like lib/snapshot.js, so that
// it loads as a content script: its API is globalThis.webmcpLib.relay. Tests
// import it in Node and start it with a fake window, document and chrome.
(function (root) {
  'use strict';

  const HANDOVER = '__webmcpBridgeHandover';
  const PORT_NAME = 'webmcp-frame';
  const MAX_BACKOFF = 30000;
  // A Port that lived this long was fine: the next one opens at once.
  const LIVED = 5000;
  // Samples are at least this far apart: a burst of input (typing) is a
  // sample every SAMPLE_DELAY ms, not one per key.
  const SAMPLE_DELAY = 50;
  // After user input, the page gets this long to update its own state
  // (a framework's render) before the frame is sampled.
  const INPUT_DELAY = 20;
  // How long to wait for main.js to answer a sample (it gives each provider
  // 50 ms); after that the frame is sampled without its providers.
  const MAIN_TIMEOUT = 1000;
  const INPUT_EVENTS = ['click', 'keyup', 'focusin', 'focusout'];
  // The user's use of a page, for {type:"userInput"}.
  const USE_EVENTS = ['pointerdown', 'keydown'];
  // Sizes of results (lib/chunks.js is their home; a test checks the copies).
  const MAX_RESULT = 64 << 20;
  const MAX_WHOLE = 32 << 20;
  const CHUNK_UNITS = 8 << 20;

  // Whole-list messages: the latest of each is kept and sent again on every
  // new connection to the worker. Those with a field say whether the frame
  // has anything to offer (a non-empty list).
  const LISTS = { tools: 'tools', providers: 'providers', context: null };
  const FROM_PAGE = new Set(['tools', 'providers', 'result', 'error']);
  const TO_PAGE = new Set(['call', 'cancel', 'toolsTaken']);

  /**
   * Starts the relay of one frame.
   * env: window, document, location, chrome, MessageChannel; lib (the
   * webmcpLib with snapshot and ambient); clock {now, setTimeout,
   * clearTimeout}.
   */
  function start(env) {
    const { window, document, location, chrome, lib, clock } = env;
    const isTop = window === window.top;
    const isWeb = location.protocol === 'http:' || location.protocol === 'https:';
    const canSample = !!(lib.snapshot && lib.ambient);

    const channel = new env.MessageChannel();
    const page = channel.port1;
    // Only this window's own scripts can post a message whose source is this
    // window, and none of the page's has run yet; main.js takes the port with
    // the first message listener of the window and hides the message.
    window.postMessage({ [HANDOVER]: 1 }, '*', [channel.port2]);

    const latest = new Map(); // list message type -> the latest such message
    const indicator = isTop && lib.indicator ? lib.indicator.create(document) : null;
    const link = workerLink();
    const context = contextSampler();

    page.onmessage = (e) => {
      const m = e.data;
      if (!m || typeof m !== 'object') return;
      if (m.type === 'sampled') {
        context.onSampled(m);
        return;
      }
      if (m.type === 'contextChanged') {
        context.schedule(0);
        return;
      }
      if (!FROM_PAGE.has(m.type)) return;
      // A traced call's answer: the relay's timing mark (webmcp.Mark).
      if (Array.isArray(m.trace)) m.trace.push({ hop: 'relay.back', at: performance.timeOrigin + performance.now() });
      if (m.type === 'result') {
        for (const part of resultMessages(m)) link.send(part);
        return;
      }
      const field = LISTS[m.type];
      if (field) {
        if (!Array.isArray(m[field])) return;
        latest.set(m.type, m);
        if (m.type === 'providers') context.schedule(0);
        if (!link.connected() && hasContent()) link.connect(); // connect() sends the latest lists
        else link.send(m);
        // main.js waits for the worker to take its tools in; with no
        // worker to take them, they are taken (connect() sends them).
        if (m.type === 'tools' && !link.connected()) page.postMessage({ type: 'toolsTaken' });
        return;
      }
      link.send(m);
    };

    let chunkSeq = 0;
    // The messages that carry a result to the worker: itself, its chunks, or
    // a too_large error.
    function resultMessages(m) {
      let out;
      try {
        out = JSON.stringify(m.output === undefined ? null : m.output) ?? 'null';
      } catch (e) {
        return [{ type: 'error', id: m.id, error: { code: 'tool_error', message: `the tool's result cannot be sent as JSON: ${e.message}` } }];
      }
      const bytes = out.length <= MAX_RESULT / 3 ? 0 : utf8Length(out);
      if (bytes > MAX_RESULT) {
        const message = `the result is ${bytes} bytes of JSON, over the bridge's limit of 64 MiB (${MAX_RESULT} bytes): ask the tool for less (a narrower query, one page of results)`;
        return [{ type: 'error', id: m.id, error: { code: 'too_large', message } }];
      }
      if (out.length <= MAX_WHOLE / 3) return [m];
      const text = `{"type":"result","id":${JSON.stringify(m.id)},"output":${out}}`;
      if (utf8Length(text) <= MAX_WHOLE) return [m];
      const id = `r${++chunkSeq}`;
      const parts = [];
      for (let at = 0, seq = 0; at < text.length; seq++) {
        let end = Math.min(at + CHUNK_UNITS, text.length);
        const c = text.charCodeAt(end - 1);
        if (end < text.length && c >= 0xd800 && c <= 0xdbff) end--; // keep a surrogate pair whole
        parts.push({ type: 'chunk', id, seq, last: end === text.length, data: text.slice(at, end) });
        at = end;
      }
      return parts;
    }

    // The user's first click or key in a top frame (a trusted event: not
    // one a script or a page tool dispatched) tells the worker once per
    // document: a tab an agent opened with open_page is the user's from
    // then on (worker/opener.js).
    if (isTop && isWeb) {
      const onUse = (e) => {
        if (!e.isTrusted) return;
        for (const type of USE_EVENTS) window.removeEventListener(type, onUse, true);
        link.send({ type: 'userInput' });
      };
      for (const type of USE_EVENTS) window.addEventListener(type, onUse, true);
    }

    // A page restored from the back/forward cache lost its Port.
    window.addEventListener('pageshow', (e) => {
      if (e.persisted && !link.connected() && hasContent()) link.connect();
    });

    // Whether this frame has anything to offer; until then it costs the worker nothing.
    function hasContent() {
      if (isTop && isWeb && canSample) return true;
      for (const [type, field] of Object.entries(LISTS)) {
        const m = latest.get(type);
        if (field && m && m[field].length) return true;
      }
      return false;
    }

    function onWorkerMessage(m) {
      if (!m || typeof m !== 'object') return;
      if (TO_PAGE.has(m.type)) {
        if (Array.isArray(m.trace)) m.trace.push({ hop: 'relay.in', at: performance.timeOrigin + performance.now() });
        page.postMessage(m);
      } else if (m.type === 'contextOn') {
        context.setOn(m.on === true);
      } else if (m.type === 'sample') {
        context.queue(m.id);
      } else if (m.type === 'indicator' && indicator) {
        indicator.show(m.text);
      }
    }

    // The Port to the worker: opened when there is something to offer,
    // opened again when the worker restarts, given up when the extension
    // went away.
    function workerLink() {
      let worker = null;
      let connectedAt = 0;
      let backoff = 0;
      let timer = 0;
      let dead = false;

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
          context.setOn(false);
          return;
        }
        worker = p;
        connectedAt = clock.now();
        p.onMessage.addListener(onWorkerMessage);
        p.onDisconnect.addListener(() => {
          if (worker === p) onDisconnect();
        });
        for (const m of latest.values()) send(m);
      }

      function onDisconnect() {
        void chrome.runtime.lastError;
        worker = null;
        // Calls under way have nobody to answer to any more: abort them. A
        // tools message under way is taken: the next Port sends the latest.
        page.postMessage({ type: 'cancelAll' });
        page.postMessage({ type: 'toolsTaken' });
        if (indicator) indicator.show('');
        if (!chrome.runtime || !chrome.runtime.id) {
          dead = true;
          context.setOn(false);
          return;
        }
        if (!hasContent()) return;
        // The worker restarts (it was stopped, or it crashed): connect again at
        // once after a long-lived connection, and back off when it keeps failing.
        const lived = clock.now() - connectedAt;
        backoff = lived > LIVED ? 0 : Math.min(Math.max(backoff * 2, 100), MAX_BACKOFF);
        if (backoff === 0) {
          connect(); // no timer: timers of background tabs are throttled
          return;
        }
        timer = clock.setTimeout(() => {
          timer = 0;
          connect();
        }, backoff);
      }

      return { send, connect, connected: () => worker !== null };
    }

    // Sampling of the frame's UI context.
    function contextSampler() {
      let on = false;
      let sampleTimer = 0;
      let lastSampleAt = -Infinity;
      let lastContext = ''; // the JSON of the last sample sent
      let mainSeq = 0;
      const mainWaiting = new Map(); // sample id -> resolve(providers | null)
      let chain = Promise.resolve();

      function onInput() {
        schedule();
      }

      function setOn(value) {
        if (value === on || !canSample) return;
        on = value;
        const method = on ? 'addEventListener' : 'removeEventListener';
        for (const type of INPUT_EVENTS) document[method](type, onInput, true);
        if (isTop) document[method]('selectionchange', onInput, true);
        if (on) {
          lastContext = '';
          lastSampleAt = clock.now();
          queue(undefined);
        } else {
          clock.clearTimeout(sampleTimer);
          sampleTimer = 0;
        }
      }

      // A sample delay ms from now (INPUT_DELAY after user input, at once
      // when the page says its context changed), and at least SAMPLE_DELAY
      // after the last one: a burst is one or two samples.
      function schedule(delay = INPUT_DELAY) {
        if (!on || sampleTimer) return;
        const wait = Math.max(delay, lastSampleAt + SAMPLE_DELAY - clock.now());
        sampleTimer = clock.setTimeout(() => {
          sampleTimer = 0;
          lastSampleAt = clock.now();
          queue(undefined);
        }, wait);
      }

      // Samples one after the other, so that they go out in order.
      function queue(id) {
        chain = chain.then(() => sample(id)).catch(() => {});
      }

      function sampleMain() {
        const providers = latest.get('providers');
        if (!providers || !providers.providers.length) return Promise.resolve([]);
        const id = ++mainSeq;
        return new Promise((resolve) => {
          const t = clock.setTimeout(() => {
            mainWaiting.delete(id);
            resolve(null);
          }, MAIN_TIMEOUT);
          mainWaiting.set(id, (list) => {
            clock.clearTimeout(t);
            resolve(list);
          });
          page.postMessage({ type: 'sample', id });
        });
      }

      function onSampled(m) {
        const done = mainWaiting.get(m.id);
        if (!done) return;
        mainWaiting.delete(m.id);
        done(Array.isArray(m.providers) ? m.providers : []);
      }

      // Samples the frame. id is the worker's sample id (the answer goes out
      // even when nothing changed), or undefined for a sample of our own.
      async function sample(id) {
        if (id === undefined && !on) return;
        const raw = await sampleMain();
        let providers = [];
        if (raw === null) {
          // main.js did not answer (it does not run in this frame, or the tab's
          // timers are throttled): keep what it said last.
          const last = latest.get('context');
          if (last) providers = last.providers;
        } else {
          for (const r of raw) {
            const p = lib.snapshot.fromSample(r);
            if (p) providers.push(p);
          }
        }
        const ctx = { type: 'context', providers };
        if (isTop) {
          let ambient;
          try {
            ambient = lib.ambient.ambientOf(document, window);
          } catch {
            ambient = undefined;
          }
          if (ambient) ctx.ambient = ambient;
        }
        const json = JSON.stringify(ctx);
        const changed = json !== lastContext;
        if (changed) {
          lastContext = json;
          latest.set('context', ctx);
        }
        if (id !== undefined) link.send({ ...ctx, id });
        else if (changed) link.send(ctx);
      }

      return { setOn, schedule, queue, onSampled };
    }
  }

  // The UTF-8 length of s, in bytes (lib/chunks.js has the same).
  function utf8Length(s) {
    let n = s.length;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) n += c < 0x800 || (c >= 0xd800 && c <= 0xdfff) ? 1 : 2;
    }
    return n;
  }

  const api = Object.freeze({ MAX_RESULT, MAX_WHOLE, CHUNK_UNITS, HANDOVER, PORT_NAME, SAMPLE_DELAY, INPUT_DELAY, MAIN_TIMEOUT, MAX_BACKOFF, start });
  const lib = root.webmcpLib || (root.webmcpLib = {});
  lib.relay = api;
})(globalThis);
