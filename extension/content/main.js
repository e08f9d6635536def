// The bridge's main-world script: it runs in the page's own JavaScript world
// ("world": "MAIN"), in every frame, at document_start, before any page
// script. It is a classic script (the page's world cannot import the
// extension's modules), so it repeats the little it needs of lib/names.js and
// lib/snapshot.js; test/main-world.test.js runs this file in Node and checks
// both agree.
//
// What it does:
//  - Where the browser has its own document.modelContext (Chromium with
//    --enable-features=WebMCP), it leaves it in place and only wraps
//    ModelContext.prototype.registerTool, to learn which tools this document
//    registered with which hints, and to see each call's own result and error.
//    navigator.modelContext becomes a small facade over the native object
//    that adds the older provideContext, clearContext and unregisterTool.
//  - Elsewhere it installs a polyfill of the WebMCP draft as
//    document.modelContext and navigator.modelContext.
//  - A page that assigns its own object to navigator.modelContext or
//    document.modelContext keeps it; the bridge reads that object's tools by
//    wrapping its registerTool, unregisterTool, provideContext and
//    clearContext, and by listing what it already holds.
//  - Either way, the object gets the bridge's UI-context API:
//    registerContextProvider({id, description?, getContext}, {signal}?),
//    unregisterContextProvider(id) and contextChanged(id?). It samples this
//    document's providers when the relay asks (each getContext time-boxed).
//  - It reports this document's tools (only its own: not those of same-origin
//    frames, which report theirs) and context providers to the isolated-world
//    relay over a MessagePort that the relay hands over once, at start, and
//    runs the calls and samples that come back over it.
//
// Messages on the port (main <-> relay):
//   main -> relay  {type:"tools", tools:[{name, title?, description, inputSchema?, annotations?}]}
//                  {type:"result", id, output}   {type:"error", id, error:{code, message}}
//                  {type:"providers", providers:[{id, description?}]}   on every change
//                  {type:"contextChanged"}   the page says its context changed
//                  {type:"sampled", id, providers:[{id, description?, summary?, json?, note?}]}
//                       (json: the data's JSON text; note: why a provider was left out;
//                       a provider that returned undefined is absent)
//   relay -> main  {type:"call", id, name, arguments}   {type:"cancel", id}
//                  {type:"cancelAll"}   {type:"sync"}   {type:"sample", id}
(function webmcpBridgeMain() {
  'use strict';

  // Keep sync with lib/names.js.
  const TOOL_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;
  const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint', 'untrustedContentHint'];
  const HANDOVER = '__webmcpBridgeHandover';
  const HANDLER_EVENTS = ['toolchange', 'toolactivated', 'toolcancel'];
  // Keep sync with lib/snapshot.js.
  const PROVIDER_ID_PATTERN = /^(?=[^]*\S)[^\u0000-\u001f\u007f-\u009f]{1,200}$/;
  const MAX_PROVIDERS = 64;
  // How long a getContext that returns a promise may take.
  const PROVIDER_TIMEOUT = 50;

  // Built-ins, taken before any page script can replace them.
  const win = window;
  const doc = document;
  const nav = navigator;
  const { create, defineProperty, getOwnPropertyDescriptor, hasOwn } = Object;
  const { apply } = Reflect;
  const jsonStringify = JSON.stringify;
  const jsonParse = JSON.parse;
  const ET = EventTarget.prototype;
  const addListener = ET.addEventListener;
  const removeListener = ET.removeEventListener;
  const dispatch = ET.dispatchEvent;
  const stopImmediate = Event.prototype.stopImmediatePropagation;
  const portPost = MessagePort.prototype.postMessage;
  const Channel = MessageChannel;
  const promiseThen = Promise.prototype.then;
  const PromiseCtor = Promise;
  const resolved = (v) => PromiseCtor.resolve(v);
  const AbortCtl = AbortController;
  const AbortSig = AbortSignal;
  const DOMExc = DOMException;
  const Evt = Event;
  const URLCtor = URL;
  const timeout = setTimeout;
  const clearTimer = clearTimeout;
  const microtask = queueMicrotask;
  const randomValues = crypto.getRandomValues.bind(crypto);
  const querySelectorAll = Document.prototype.querySelectorAll;
  const getAttribute = Element.prototype.getAttribute;

  // A task (not a microtask), like the draft's "queue a global task"; a
  // MessageChannel rather than setTimeout, which background tabs throttle.
  const tasks = [];
  let taskPort = null;
  function queueTask(fn) {
    tasks.push(fn);
    if (!taskPort) {
      const ch = new Channel();
      taskPort = ch.port2;
      ch.port1.onmessage = () => {
        const run = tasks.shift();
        if (!tasks.length) {
          ch.port1.close();
          if (taskPort === ch.port2) taskPort = null;
        }
        if (run) run();
      };
    }
    apply(portPost, taskPort, [null]);
  }

  function randomId() {
    const a = new Uint32Array(4);
    randomValues(a);
    return Array.from(a, (n) => n.toString(36)).join('');
  }

  // The key under which the bridge marks the input of its own calls, so that
  // the wrapped execute can tell them from other callers'. It never reaches
  // the page's execute.
  const MARK = '__webmcpBridgeCall_' + randomId();

  function isObject(v) {
    return v !== null && (typeof v === 'object' || typeof v === 'function');
  }

  function then(p, ok, fail) {
    return apply(promiseThen, p, [ok, fail]);
  }

  function copyHints(a, onlyTrue) {
    if (!isObject(a)) return undefined;
    const out = {};
    let any = false;
    for (const h of HINTS) {
      let v;
      try {
        v = a[h];
      } catch {
        continue;
      }
      if (typeof v === 'boolean' && (v || !onlyTrue)) {
        out[h] = v;
        any = true;
      }
    }
    return any ? out : undefined;
  }

  function copySchema(s) {
    try {
      if (typeof s === 'string') s = jsonParse(s);
      if (!isObject(s) || Array.isArray(s)) return undefined;
      const copy = jsonParse(jsonStringify(s));
      return isObject(copy) && !Array.isArray(copy) ? copy : undefined;
    } catch {
      return undefined;
    }
  }

  // Copies the fields of a tool that travel to agents; never serialises the
  // tool object itself.
  function copyMeta(tool, hints) {
    let name;
    try {
      name = tool.name;
    } catch {
      return null;
    }
    if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) return null;
    const meta = { name };
    try {
      const title = tool.title;
      if (typeof title === 'string' && title !== '') meta.title = title;
      const d = tool.description;
      meta.description = typeof d === 'string' ? d : '';
      const schema = copySchema(tool.inputSchema);
      if (schema) meta.inputSchema = schema;
      const a = hints === undefined ? copyHints(tool.annotations, false) : hints;
      if (a) meta.annotations = a;
    } catch {
      return null;
    }
    return meta;
  }

  // A value as JSON data: what a result carries.
  function toJSONValue(v) {
    const s = jsonStringify(v);
    return s === undefined ? null : jsonParse(s);
  }

  // executeTool resolves to a JSON string, or the string itself when the
  // tool returned a string.
  function parseResultString(s) {
    if (typeof s !== 'string') return s;
    try {
      return jsonParse(s);
    } catch {
      return s;
    }
  }

  function errorText(err) {
    try {
      if (isObject(err) && 'message' in err) {
        const m = String(err.message);
        if (m !== '') return m;
        if (err.name) return String(err.name);
      }
      return String(err);
    } catch {
      return 'the tool failed with an error that cannot be shown';
    }
  }

  // ---- the bridge's view of this document's tools -------------------------

  let port = null;
  let lastSent = '';
  // The relay takes a document without a providers message to have none.
  const NO_PROVIDERS = '[]';
  let lastProviders = NO_PROVIDERS;
  let syncQueued = false;
  /** @type {Map<string, AbortController>} */
  const inflight = new Map();

  function post(msg) {
    if (port) apply(portPost, port, [msg]);
  }

  function scheduleSync() {
    if (syncQueued) return;
    syncQueued = true;
    microtask(() => {
      syncQueued = false;
      sync();
    });
  }

  function sync() {
    checkReplaced();
    if (!port) return;
    const metas = [];
    for (const e of currentTools().values()) metas.push(e.meta);
    const json = jsonStringify(metas);
    if (json !== lastSent) {
      lastSent = json;
      post({ type: 'tools', tools: metas });
    }
    const defs = providerDefs();
    const pjson = jsonStringify(defs);
    if (pjson !== lastProviders) {
      lastProviders = pjson;
      post({ type: 'providers', providers: defs });
    }
  }

  // Sources of tools, in order of precedence: the document's own context
  // (native or polyfill), then objects that the page installed itself.
  // Each returns a Map name -> {meta, run(input, signal) -> Promise<value>}.
  let ownSource = () => new Map();
  /** @type {Map<object, {obj: object, tools: Map<string, object>}>} */
  const foreign = new Map();

  function currentTools() {
    const all = ownSource();
    for (const src of foreign.values()) {
      for (const [name, rec] of src.tools) {
        if (!all.has(name)) all.set(name, { meta: rec.meta, run: (input, signal) => runForeign(src, rec, input, signal) });
      }
    }
    return all;
  }

  async function handleCall(m) {
    const { id, name } = m;
    if (typeof id !== 'string') return;
    checkReplaced();
    const entry = currentTools().get(name);
    if (!entry) {
      post({ type: 'error', id, error: { code: 'not_found', message: `this page has no tool ${jsonStringify(String(name))} (any more)` } });
      return;
    }
    const ctl = new AbortCtl();
    inflight.set(id, ctl);
    let value;
    try {
      value = await entry.run(isObject(m.arguments) ? m.arguments : {}, ctl.signal);
    } catch (err) {
      if (inflight.get(id) !== ctl) return; // cancelled: the worker answered already
      inflight.delete(id);
      post({ type: 'error', id, error: { code: 'tool_error', message: errorText(err) } });
      return;
    }
    if (inflight.get(id) !== ctl) return;
    inflight.delete(id);
    let output;
    try {
      output = toJSONValue(value);
    } catch (err) {
      post({ type: 'error', id, error: { code: 'tool_error', message: `the tool's result is not JSON: ${errorText(err)}` } });
      return;
    }
    post({ type: 'result', id, output });
  }

  function onPortMessage(e) {
    const m = e.data;
    if (!isObject(m)) return;
    switch (m.type) {
      case 'call':
        handleCall(m);
        break;
      case 'cancel': {
        const ctl = inflight.get(m.id);
        if (ctl) {
          inflight.delete(m.id);
          ctl.abort();
        }
        break;
      }
      case 'cancelAll': {
        const all = [...inflight.values()];
        inflight.clear();
        for (const ctl of all) ctl.abort();
        break;
      }
      case 'sync':
        lastSent = '';
        lastProviders = NO_PROVIDERS;
        sync();
        break;
      case 'sample':
        sampleProviders(m.id);
        break;
    }
  }

  // ---- context providers -----------------------------------------------------
  // The bridge's UI-context API, the same on the browser's own modelContext,
  // the polyfill and a page's own object: a provider says what the user is
  // looking at, as {summary, data} or undefined for "nothing relevant now".

  /** id -> {id, description, getContext, self}, in registration order */
  const providers = new Map();
  let changeQueued = false;

  function providerDefs() {
    const out = [];
    for (const rec of providers.values()) {
      const d = { id: rec.id };
      if (rec.description) d.description = rec.description;
      out.push(d);
    }
    return out;
  }

  function providerError(method, message) {
    return new TypeError(`Failed to execute '${method}' on 'ModelContext': ${message}`);
  }

  // Reads a provider the way registerTool reads a tool: each member once.
  function readProvider(provider, method) {
    if (!isObject(provider)) throw providerError(method, "parameter 1 is not of type 'ContextProvider'.");
    const description = provider.description;
    const getContext = provider.getContext;
    const id = provider.id;
    if (id === undefined) throw providerError(method, "Failed to read the 'id' property from 'ContextProvider': Required member is undefined.");
    if (typeof id !== 'string') throw providerError(method, "Failed to read the 'id' property from 'ContextProvider': The provided value is not a string.");
    if (typeof getContext !== 'function') {
      throw providerError(method, "Failed to read the 'getContext' property from 'ContextProvider': " +
        (getContext === undefined ? 'Required member is undefined.' : 'The given value is not a function.'));
    }
    if (!PROVIDER_ID_PATTERN.test(id)) {
      throw new DOMExc('Invalid context provider id: use 1 to 200 characters without control characters, like "plugin.Thing#sub"', 'InvalidStateError');
    }
    if (providers.has(id)) throw new DOMExc(`Duplicate context provider id ${jsonStringify(id)}`, 'InvalidStateError');
    if (providers.size >= MAX_PROVIDERS) throw new DOMExc(`Too many context providers: at most ${MAX_PROVIDERS} per document`, 'QuotaExceededError');
    return {
      id,
      description: description === undefined || description === null ? '' : String(description),
      getContext,
      self: provider,
    };
  }

  function registerProvider(provider, options) {
    const method = 'registerContextProvider';
    let rec;
    let signal;
    try {
      if (options !== undefined && options !== null && !isObject(options)) {
        throw providerError(method, "parameter 2 is not of type 'ContextProviderOptions'.");
      }
      signal = isObject(options) ? options.signal : undefined;
      if (signal !== undefined && !(signal instanceof AbortSig)) {
        throw providerError(method, "Failed to read the 'signal' property from 'ContextProviderOptions': Failed to convert value to 'AbortSignal'.");
      }
      rec = readProvider(provider, method);
      if (signal && signal.aborted) return PromiseCtor.reject(signal.reason);
    } catch (e) {
      return PromiseCtor.reject(e);
    }
    providers.set(rec.id, rec);
    if (signal) {
      apply(addListener, signal, ['abort', () => {
        if (providers.get(rec.id) === rec) {
          providers.delete(rec.id);
          scheduleSync();
        }
      }, { once: true }]);
    }
    scheduleSync();
    return resolved(undefined);
  }

  function unregisterProvider(id) {
    const key = String(id);
    if (!providers.has(key)) return;
    providers.delete(key);
    scheduleSync();
  }

  // The page says what its providers would return has changed: the relay
  // samples them again soon (it coalesces these with user input).
  function announceChange() {
    if (changeQueued) return;
    changeQueued = true;
    microtask(() => {
      changeQueued = false;
      post({ type: 'contextChanged' });
    });
  }

  function leftOut(rec, note) {
    const s = { id: rec.id };
    if (rec.description) s.description = rec.description;
    s.note = note;
    return s;
  }

  // What one provider returned, for the relay: null for undefined (nothing
  // to say), else {id, description?, summary, json?} or a note.
  function takeSnapshot(rec, v) {
    if (v === undefined || v === null) return null;
    if (!isObject(v)) return leftOut(rec, `returned ${typeof v}, not {summary, data} or undefined`);
    let summary;
    let data;
    try {
      summary = v.summary;
      data = v.data;
    } catch (e) {
      return leftOut(rec, 'threw: ' + errorText(e));
    }
    const s = { id: rec.id };
    if (rec.description) s.description = rec.description;
    s.summary = summary === undefined || summary === null ? '' : String(summary);
    if (data !== undefined) {
      let json;
      try {
        json = jsonStringify(data);
      } catch (e) {
        return leftOut(rec, 'data is not JSON: ' + errorText(e));
      }
      if (json !== undefined) s.json = json;
    }
    return s;
  }

  // Samples every provider, in registration order. A getContext that throws
  // is left out with a note; one that returns a promise gets PROVIDER_TIMEOUT
  // ms, all of them together; none keeps the others from being sampled.
  function sampleProviders(id) {
    const list = [...providers.values()];
    const out = [];
    let waiting = 0;
    let done = false;
    let timer = 0;
    const finish = () => {
      if (done) return;
      done = true;
      if (timer) clearTimer(timer);
      post({ type: 'sampled', id, providers: out.filter((s) => s !== null) });
    };
    for (let i = 0; i < list.length; i++) {
      const rec = list[i];
      let v;
      try {
        v = apply(rec.getContext, rec.self, []);
      } catch (e) {
        out[i] = leftOut(rec, 'threw: ' + errorText(e));
        continue;
      }
      let thenable = false;
      try {
        thenable = isObject(v) && typeof v.then === 'function';
      } catch (e) {
        out[i] = leftOut(rec, 'threw: ' + errorText(e));
        continue;
      }
      if (!thenable) {
        out[i] = takeSnapshot(rec, v);
        continue;
      }
      waiting++;
      out[i] = leftOut(rec, `timed out after ${PROVIDER_TIMEOUT} ms`);
      const settle = (s) => {
        if (done) return;
        out[i] = s;
        if (--waiting === 0) finish();
      };
      then(resolved(v), (value) => settle(takeSnapshot(rec, value)), (e) => settle(leftOut(rec, 'threw: ' + errorText(e))));
    }
    if (waiting === 0) finish();
    else timer = timeout(finish, PROVIDER_TIMEOUT);
  }

  // The three methods, for an object whose receiver check is ok(this).
  function providerMethods(ok) {
    const check = (that, method) => {
      if (!ok(that)) throw new TypeError(`Failed to execute '${method}' on 'ModelContext': Illegal invocation`);
    };
    return {
      registerContextProvider(provider, options) {
        try {
          check(this, 'registerContextProvider');
        } catch (e) {
          return PromiseCtor.reject(e);
        }
        return registerProvider(provider, options);
      },
      unregisterContextProvider(id) {
        check(this, 'unregisterContextProvider');
        unregisterProvider(id);
      },
      contextChanged(id) { // eslint-disable-line no-unused-vars
        check(this, 'contextChanged');
        announceChange();
      },
    };
  }

  // Puts the methods on obj (a prototype or an object) as non-enumerable
  // properties, replacing any of the same name.
  function addProviderMethods(obj, ok) {
    for (const [name, fn] of Object.entries(providerMethods(ok))) {
      try {
        defineProperty(obj, name, { value: fn, writable: true, configurable: true, enumerable: false });
      } catch {
        // a frozen object: it goes without
      }
    }
  }

  // The relay hands over its end of a MessageChannel once, right at start.
  // This listener is the first on the window (no page script has run yet),
  // takes the port and hides the message from the page.
  function onHandover(e) {
    if (port || e.source !== win) return;
    const d = e.data;
    if (!isObject(d) || d[HANDOVER] !== 1 || !e.ports || !e.ports[0]) return;
    apply(stopImmediate, e, []);
    apply(removeListener, win, ['message', onHandover, true]);
    port = e.ports[0];
    port.onmessage = onPortMessage;
    lastSent = '';
    lastProviders = NO_PROVIDERS;
    if (refreshOwn) refreshOwn();
    sync();
  }
  apply(addListener, win, ['message', onHandover, true]);

  // ---- objects the page installs itself ------------------------------------

  const ours = new Set();
  const accessors = []; // {target, getter}

  function runForeign(src, rec, input, signal) {
    if (typeof rec.execute === 'function') {
      return resolved(apply(rec.execute, rec.tool, [input, { signal }]));
    }
    const exec = src.obj.executeTool;
    if (typeof exec !== 'function') return PromiseCtor.reject(new Error(`tool ${rec.meta.name} has no execute function`));
    return then(resolved(apply(exec, src.obj, [rec.handle, input, { signal }])), parseResultString);
  }

  function recordForeign(src, tool, how, handle) {
    const meta = copyMeta(tool);
    if (!meta) return null;
    let execute;
    try {
      execute = tool.execute;
    } catch {
      execute = undefined;
    }
    const rec = { meta, tool, execute, how, handle: handle === undefined ? tool : handle };
    src.tools.set(meta.name, rec);
    return rec;
  }

  function forgetForeign(src, rec) {
    if (src.tools.get(rec.meta.name) === rec) {
      src.tools.delete(rec.meta.name);
      scheduleSync();
    }
  }

  function wrapMethod(obj, name, make) {
    let orig;
    try {
      orig = obj[name];
    } catch {
      return;
    }
    if (typeof orig !== 'function') return;
    const wrapper = make(orig);
    try {
      obj[name] = wrapper;
    } catch {
      // read-only: try to define it instead
    }
    try {
      if (obj[name] !== wrapper) defineProperty(obj, name, { value: wrapper, writable: true, configurable: true, enumerable: false });
    } catch {
      // frozen: its later changes stay unseen; what it lists is still read
    }
  }

  function adopt(obj) {
    if (!isObject(obj) || ours.has(obj) || foreign.has(obj)) return;
    const src = { obj, tools: new Map() };
    foreign.set(obj, src);
    // The page's own object gets the bridge's context API, unless it has one.
    let has = false;
    try {
      has = typeof obj.registerContextProvider === 'function';
    } catch {
      has = true;
    }
    if (!has) addProviderMethods(obj, (that) => that === obj);
    wrapMethod(obj, 'registerTool', (orig) => function registerTool(tool, options) {
      const rv = apply(orig, this, arguments);
      try {
        const rec = isObject(tool) ? recordForeign(src, tool, 'register') : null;
        if (rec) {
          const signal = isObject(options) ? options.signal : undefined;
          if (signal instanceof AbortSig) {
            if (signal.aborted) forgetForeign(src, rec);
            else apply(addListener, signal, ['abort', () => forgetForeign(src, rec), { once: true }]);
          }
          if (isObject(rv) && typeof rv.then === 'function') then(rv, undefined, () => forgetForeign(src, rec));
          if (isObject(rv) && typeof rv.unregister === 'function') {
            const unregister = rv.unregister;
            rv.unregister = function () {
              forgetForeign(src, rec);
              return apply(unregister, this, arguments);
            };
          }
          scheduleSync();
        }
      } catch {
        // an odd object: the page still got its answer
      }
      return rv;
    });
    wrapMethod(obj, 'unregisterTool', (orig) => function unregisterTool(name) {
      const rv = apply(orig, this, arguments);
      const rec = src.tools.get(String(name));
      if (rec) forgetForeign(src, rec);
      return rv;
    });
    wrapMethod(obj, 'provideContext', (orig) => function provideContext(context) {
      const rv = apply(orig, this, arguments);
      try {
        for (const rec of [...src.tools.values()]) if (rec.how === 'provide') src.tools.delete(rec.meta.name);
        const list = isObject(context) ? context.tools : undefined;
        if (list && typeof list[Symbol.iterator] === 'function') {
          for (const tool of list) if (isObject(tool)) recordForeign(src, tool, 'provide');
        }
      } catch {
        // keep what could be read
      }
      scheduleSync();
      return rv;
    });
    wrapMethod(obj, 'clearContext', (orig) => function clearContext() {
      const rv = apply(orig, this, arguments);
      src.tools.clear();
      scheduleSync();
      return rv;
    });
    // Tools it holds already: read them through its own listing method.
    for (const method of ['getTools', 'listTools', 'list']) {
      let fn;
      try {
        fn = obj[method];
      } catch {
        continue;
      }
      if (typeof fn !== 'function') continue;
      const take = (items) => {
        if (!isObject(items) || typeof items[Symbol.iterator] !== 'function') return;
        for (const item of items) {
          if (!isObject(item)) continue;
          let name;
          try {
            name = item.name;
          } catch {
            continue;
          }
          if (typeof name === 'string' && !src.tools.has(name)) recordForeign(src, item, 'listed', method === 'getTools' ? item : name);
        }
        scheduleSync();
      };
      try {
        const r = apply(fn, obj, []);
        if (isObject(r) && typeof r.then === 'function') then(resolved(r), take, () => {});
        else take(r);
      } catch {
        // not a listing method after all
      }
      break;
    }
    scheduleSync();
  }

  // An accessor that holds the bridge's object and takes the page's own.
  function installAccessor(target, initial) {
    let current = initial;
    const getter = function () {
      return current;
    };
    const setter = function (v) {
      current = v;
      adopt(v);
      scheduleSync();
    };
    defineProperty(getter, 'name', { value: 'get modelContext' });
    defineProperty(setter, 'name', { value: 'set modelContext' });
    defineProperty(target, 'modelContext', { configurable: true, enumerable: false, get: getter, set: setter });
    accessors.push({ target, getter });
  }

  // A page may also replace the accessor with Object.defineProperty; notice
  // that when the tools are next looked at.
  function checkReplaced() {
    for (const { target, getter } of accessors) {
      let d;
      try {
        d = getOwnPropertyDescriptor(target, 'modelContext');
      } catch {
        continue;
      }
      if (!d || d.get === getter) continue;
      let v;
      try {
        v = 'value' in d ? d.value : d.get ? apply(d.get, target, []) : undefined;
      } catch {
        continue;
      }
      adopt(v);
    }
  }

  // ---- the polyfill --------------------------------------------------------

  function definePolyfill(changed) {
    const TOKEN = {};
    /** @type {WeakMap<object, {tools: Map<string, object>, handlers: Map<string, Function>}>} */
    const internals = new WeakMap();

    class ToolActivatedEvent extends Evt {
      #toolName;
      constructor(type, init) {
        super(type, init);
        this.#toolName = String((isObject(init) && init.toolName) ?? '');
      }
      get toolName() {
        return this.#toolName;
      }
    }
    class ToolCancelEvent extends Evt {
      #toolName;
      constructor(type, init) {
        super(type, init);
        this.#toolName = String((isObject(init) && init.toolName) ?? '');
      }
      get toolName() {
        return this.#toolName;
      }
    }

    function self(that, method) {
      const inner = internals.get(that);
      if (!inner) throw new TypeError(`Failed to execute '${method}' on 'ModelContext': Illegal invocation`);
      return inner;
    }

    function fire(mc, event) {
      apply(dispatch, mc, [event]);
    }

    // Queues the toolchange event (a task, as the draft says), then runs after().
    function queueChange(mc, after) {
      queueTask(() => {
        fire(mc, new Evt('toolchange'));
        if (after) after();
      });
    }

    function err(method, message) {
      return new TypeError(`Failed to execute '${method}' on 'ModelContext': ${message}`);
    }

    // Reads a ModelContextTool dictionary the way WebIDL does (members in
    // lexicographic order, each once) and applies the draft's rules.
    function readTool(inner, tool, method) {
      if (!isObject(tool)) throw err(method, "parameter 1 is not of type 'ModelContextTool'.");
      const annotations = tool.annotations;
      if (annotations !== undefined && annotations !== null && !isObject(annotations)) {
        throw err(method, "Failed to read the 'annotations' property from 'ModelContextTool': The provided value is not of type 'ToolAnnotations'.");
      }
      const description = tool.description;
      if (description === undefined) throw err(method, "Failed to read the 'description' property from 'ModelContextTool': Required member is undefined.");
      const execute = tool.execute;
      if (execute === undefined) throw err(method, "Failed to read the 'execute' property from 'ModelContextTool': Required member is undefined.");
      if (typeof execute !== 'function') throw err(method, "Failed to read the 'execute' property from 'ModelContextTool': The given value is not a function.");
      const inputSchema = tool.inputSchema;
      if (inputSchema !== undefined && !isObject(inputSchema)) {
        throw err(method, "Failed to read the 'inputSchema' property from 'ModelContextTool': Failed to convert value to 'object'.");
      }
      const rawName = tool.name;
      if (rawName === undefined) throw err(method, "Failed to read the 'name' property from 'ModelContextTool': Required member is undefined.");
      const title = tool.title;
      const name = String(rawName);
      const desc = String(description);
      if (!TOOL_NAME_PATTERN.test(name)) throw new DOMExc('Invalid tool name', 'InvalidStateError');
      if (inner.tools.has(name)) throw new DOMExc('Duplicate tool name', 'InvalidStateError');
      if (desc === '') throw new DOMExc('Description is required', 'InvalidStateError');
      let schema;
      if (inputSchema !== undefined) {
        const s = jsonStringify(inputSchema); // throws on cycles, as the draft says
        if (s === undefined) throw err(method, 'inputSchema does not serialize to JSON.');
        schema = jsonParse(s);
      }
      return {
        name,
        title: title === undefined || title === null ? undefined : String(title),
        description: desc,
        inputSchema: isObject(schema) && !Array.isArray(schema) ? schema : undefined,
        hints: copyHints(annotations, false),
        readOnly: isObject(annotations) && !!annotations.readOnlyHint,
        untrusted: isObject(annotations) && !!annotations.untrustedContentHint,
        execute,
        how: 'register',
      };
    }

    function checkExposedTo(list) {
      if (list === undefined) return;
      if (!isObject(list) || typeof list[Symbol.iterator] !== 'function') {
        throw err('registerTool', "Failed to read the 'exposedTo' property from 'ModelContextRegisterToolOptions': The provided value cannot be converted to a sequence.");
      }
      for (const o of list) {
        let u;
        try {
          u = new URLCtor(String(o));
        } catch {
          throw new DOMExc('Only secure origins are allowed in the exposedTo list.', 'SecurityError');
        }
        const host = u.hostname;
        const trustworthy = u.protocol === 'https:' || u.protocol === 'wss:' || u.protocol === 'file:' ||
          host === 'localhost' || host.endsWith('.localhost') || /^127\./.test(host) || host === '[::1]';
        if (!trustworthy) throw new DOMExc('Only secure origins are allowed in the exposedTo list.', 'SecurityError');
      }
    }

    function remove(mc, inner, rec) {
      if (inner.tools.get(rec.name) !== rec) return false;
      inner.tools.delete(rec.name);
      changed();
      queueChange(mc);
      return true;
    }

    function view(rec) {
      const t = {};
      if (rec.hints) t.annotations = { readOnlyHint: rec.readOnly, untrustedContentHint: rec.untrusted };
      t.description = rec.description;
      if (rec.inputSchema) t.inputSchema = jsonParse(jsonStringify(rec.inputSchema));
      t.name = rec.name;
      t.origin = win.location ? win.location.origin : '';
      if (rec.title !== undefined) t.title = rec.title;
      t.window = win;
      return t;
    }

    // Runs a tool: execute(input, {signal}); resolves to what it returned.
    function invoke(mc, rec, input, outer) {
      return new PromiseCtor((resolve, reject) => {
        const inner = new AbortCtl();
        let done = false;
        const onAbort = () => {
          if (done) return;
          done = true;
          inner.abort(outer.reason);
          fire(mc, new ToolCancelEvent('toolcancel', { toolName: rec.name }));
          reject(outer.reason);
        };
        if (outer) {
          if (outer.aborted) {
            reject(outer.reason);
            return;
          }
          apply(addListener, outer, ['abort', onAbort, { once: true }]);
        }
        let p;
        try {
          p = resolved(apply(rec.execute, undefined, [input, { signal: inner.signal }]));
        } catch (e) {
          p = PromiseCtor.reject(e);
        }
        fire(mc, new ToolActivatedEvent('toolactivated', { toolName: rec.name }));
        then(p, (v) => {
          if (done) return;
          done = true;
          if (outer) apply(removeListener, outer, ['abort', onAbort]);
          resolve(v);
        }, (e) => {
          if (done) return;
          done = true;
          if (outer) apply(removeListener, outer, ['abort', onAbort]);
          reject(e);
        });
      });
    }

    class ModelContext extends EventTarget {
      constructor(token) {
        if (token !== TOKEN) throw new TypeError('Illegal constructor');
        super();
        internals.set(this, { tools: new Map(), handlers: new Map() });
      }

      registerTool(tool, options) {
        let inner;
        let rec;
        let signal;
        try {
          inner = self(this, 'registerTool');
          if (options !== undefined && options !== null && !isObject(options)) {
            throw err('registerTool', "parameter 2 is not of type 'ModelContextRegisterToolOptions'.");
          }
          signal = isObject(options) ? options.signal : undefined;
          if (signal !== undefined && !(signal instanceof AbortSig)) {
            throw err('registerTool', "Failed to read the 'signal' property from 'ModelContextRegisterToolOptions': Failed to convert value to 'AbortSignal'.");
          }
          rec = readTool(inner, tool, 'registerTool');
          checkExposedTo(isObject(options) ? options.exposedTo : undefined);
          if (signal && signal.aborted) return PromiseCtor.reject(signal.reason);
        } catch (e) {
          return PromiseCtor.reject(e);
        }
        const mc = this;
        let settle;
        const promise = new PromiseCtor((resolve, reject) => {
          settle = { resolve, reject };
        });
        inner.tools.set(rec.name, rec);
        if (signal) {
          apply(addListener, signal, ['abort', () => {
            remove(mc, inner, rec);
            settle.reject(signal.reason);
          }, { once: true }]);
        }
        changed();
        queueChange(mc, () => settle.resolve());
        // The older API returned {unregister()}; keep that working too.
        defineProperty(promise, 'unregister', { value: () => void remove(mc, inner, rec), configurable: true });
        return promise;
      }

      getTools() {
        try {
          const inner = self(this, 'getTools');
          return resolved(Array.from(inner.tools.values(), view));
        } catch (e) {
          return PromiseCtor.reject(e);
        }
      }

      executeTool(tool, input, options) {
        let rec;
        let signal;
        let copy;
        try {
          const inner = self(this, 'executeTool');
          if (!isObject(tool)) throw err('executeTool', "parameter 1 is not of type 'Object'.");
          if (!isObject(input)) throw err('executeTool', 'invalid input object: value is not an object');
          signal = isObject(options) ? options.signal : undefined;
          if (signal !== undefined && !(signal instanceof AbortSig)) throw err('executeTool', "Failed to convert value to 'AbortSignal'.");
          rec = inner.tools.get(String(tool.name));
          if (!rec) throw new DOMExc(`No tool named ${jsonStringify(String(tool.name))} is registered.`, 'UnknownError');
          const s = jsonStringify(input);
          copy = jsonParse(s === undefined ? '{}' : s);
        } catch (e) {
          return PromiseCtor.reject(e);
        }
        return then(invoke(this, rec, copy, signal), (v) => {
          if (typeof v === 'string') return v;
          const s = jsonStringify(v);
          return s === undefined ? String(v) : s;
        });
      }

      // The older API, which pages written for earlier drafts still call.
      provideContext(context) {
        const inner = self(this, 'provideContext');
        const list = isObject(context) && context.tools !== undefined ? context.tools : [];
        if (!isObject(list) || typeof list[Symbol.iterator] !== 'function') {
          throw err('provideContext', "Failed to read the 'tools' property: The provided value cannot be converted to a sequence.");
        }
        // Check every tool against the registry without the tools that this
        // call replaces, then swap them in at once.
        const keep = new Map();
        for (const [n, r] of inner.tools) if (r.how !== 'provide') keep.set(n, r);
        const probe = { tools: new Map(keep) };
        const recs = [];
        for (const tool of list) {
          const rec = readTool(probe, tool, 'provideContext');
          rec.how = 'provide';
          probe.tools.set(rec.name, rec);
          recs.push(rec);
        }
        inner.tools = keep;
        for (const rec of recs) inner.tools.set(rec.name, rec);
        changed();
        queueChange(this);
      }

      clearContext() {
        const inner = self(this, 'clearContext');
        inner.tools.clear();
        changed();
        queueChange(this);
      }

      unregisterTool(name) {
        const inner = self(this, 'unregisterTool');
        const rec = inner.tools.get(String(name));
        if (rec) remove(this, inner, rec);
      }

      get ontoolchange() { return handler(this, 'toolchange'); }
      set ontoolchange(v) { setHandler(this, 'toolchange', v); }
      get ontoolactivated() { return handler(this, 'toolactivated'); }
      set ontoolactivated(v) { setHandler(this, 'toolactivated', v); }
      get ontoolcancel() { return handler(this, 'toolcancel'); }
      set ontoolcancel(v) { setHandler(this, 'toolcancel', v); }
    }

    function handler(mc, type) {
      return self(mc, 'on' + type).handlers.get(type) ?? null;
    }

    function setHandler(mc, type, v) {
      const inner = self(mc, 'on' + type);
      const had = inner.handlers.has(type);
      if (typeof v === 'function' || (isObject(v) && typeof v.handleEvent === 'function')) {
        inner.handlers.set(type, v);
      } else {
        inner.handlers.delete(type);
        return;
      }
      if (!had && !inner.listening?.[type]) {
        inner.listening = inner.listening || {};
        inner.listening[type] = true;
        apply(addListener, mc, [type, (e) => {
          const h = inner.handlers.get(type);
          if (typeof h === 'function') apply(h, mc, [e]);
        }]);
      }
    }

    // The context-provider API, shared with the browser's own ModelContext.
    addProviderMethods(ModelContext.prototype, (that) => internals.has(that));

    for (const C of [ModelContext, ToolActivatedEvent, ToolCancelEvent]) {
      defineProperty(C.prototype, Symbol.toStringTag, { value: C.name, configurable: true });
    }

    const mc = new ModelContext(TOKEN);
    return {
      mc,
      classes: { ModelContext, ToolActivatedEvent, ToolCancelEvent },
      list() {
        const out = new Map();
        for (const rec of internals.get(mc).tools.values()) {
          const meta = { name: rec.name };
          if (rec.title) meta.title = rec.title;
          meta.description = rec.description;
          if (rec.inputSchema) meta.inputSchema = rec.inputSchema;
          if (rec.hints) meta.annotations = rec.hints;
          out.set(rec.name, { meta, run: (input, signal) => invoke(mc, rec, input, signal) });
        }
        return out;
      },
    };
  }

  // ---- the browser's own document.modelContext -----------------------------

  let refreshOwn = null;

  function useNative(nativeMC, proto) {
    const nRegister = proto.registerTool;
    const nGetTools = proto.getTools;
    const nExecute = proto.executeTool;
    /** name -> {name, hints, controller, how}: registrations through the wrapper that succeeded */
    const records = new Map();
    /** call id of each bridge call under way -> settle({ok, value | error}), which
     * the wrapped execute calls as soon as the page's execute has settled */
    const waiting = new Map();
    /** name -> {meta, tool}: this document's tools as getTools() listed them */
    let entries = new Map();
    let generation = 0;

    function wrapExecute(exec) {
      return function execute(input, client) {
        let callId;
        if (isObject(input) && hasOwn(input, MARK)) {
          callId = input[MARK];
          delete input[MARK];
        }
        const settle = callId === undefined ? undefined : waiting.get(callId);
        let result;
        try {
          result = apply(exec, this, [input, client]);
        } catch (e) {
          if (settle) settle({ ok: false, error: e });
          throw e;
        }
        if (settle) then(resolved(result), (value) => settle({ ok: true, value }), (error) => settle({ ok: false, error }));
        return result;
      };
    }

    function register(tool, options, how) {
      let derived = tool;
      let opts = options;
      let rec = null;
      try {
        if (isObject(tool) && (options === undefined || options === null || isObject(options))) {
          const exec = tool.execute;
          const pageSignal = isObject(options) ? options.signal : undefined;
          if (typeof exec === 'function' && !(pageSignal instanceof AbortSig && pageSignal.aborted)) {
            rec = { name: String(tool.name), hints: copyHints(tool.annotations, false), controller: new AbortCtl(), how };
            derived = create(tool, { execute: { value: wrapExecute(exec), enumerable: true, configurable: true, writable: true } });
            // Our own signal, so that unregisterTool and clearContext can
            // unregister; the page's signal aborts it with the page's reason.
            if (pageSignal instanceof AbortSig) {
              const ctl = rec.controller;
              apply(addListener, pageSignal, ['abort', () => ctl.abort(pageSignal.reason), { once: true }]);
            }
            opts = create(isObject(options) ? options : null, { signal: { value: rec.controller.signal, enumerable: true } });
          }
        }
      } catch {
        derived = tool;
        opts = options;
        rec = null;
      }
      const p = apply(nRegister, nativeMC, [derived, opts]);
      if (rec) {
        then(p, () => {
          if (rec.controller.signal.aborted) return;
          records.set(rec.name, rec);
          apply(addListener, rec.controller.signal, ['abort', () => {
            if (records.get(rec.name) === rec) records.delete(rec.name);
            scheduleSync();
          }, { once: true }]);
          scheduleSync();
        }, () => {});
      }
      return p;
    }

    // Pages call ModelContext.prototype.registerTool; the wrapper keeps its
    // name, length and behaviour.
    const registerTool = {
      registerTool(tool, options) {
        if (this !== nativeMC) return apply(nRegister, this, arguments);
        return register(tool, options, 'register');
      },
    }.registerTool;
    defineProperty(registerTool, 'length', { value: nRegister.length });
    defineProperty(proto, 'registerTool', { ...getOwnPropertyDescriptor(proto, 'registerTool'), value: registerTool });

    function declarativeNames() {
      const names = new Set();
      try {
        for (const f of apply(querySelectorAll, doc, ['form[toolname]'])) names.add(apply(getAttribute, f, ['toolname']));
      } catch {
        // no DOM yet
      }
      return names;
    }

    function refresh() {
      const gen = ++generation;
      let p;
      try {
        p = apply(nGetTools, nativeMC, []);
      } catch {
        return;
      }
      then(resolved(p), (list) => {
        if (gen !== generation || !isObject(list)) return;
        const next = new Map();
        let declarative = null;
        for (const t of list) {
          let w;
          try {
            w = t.window;
          } catch {
            w = undefined;
          }
          // getTools() also lists same-origin frames' tools; each frame
          // reports only its own. Without a window field, fall back to what
          // this document registered and declared.
          let mine = w === win;
          if (w === undefined) {
            declarative = declarative || declarativeNames();
            mine = records.has(t.name) || declarative.has(t.name);
          }
          if (!mine) continue;
          const meta = copyMeta(t, null);
          if (meta) next.set(meta.name, { meta, tool: t, nativeHints: copyHints(t.annotations, true) });
        }
        entries = next;
        scheduleSync();
      }, () => {});
    }
    refreshOwn = refresh;

    // Runs a tool through the browser's executeTool. For a tool registered
    // through the wrapper, the answer is what the page's own execute produced
    // (its value, or its error), taken as soon as that settles: the browser's
    // executeTool resolves one more round trip through the browser process
    // later (≈ 0.15 ms), with only a JSON string of the same value. Until the
    // page's execute has settled, the browser's answer (a failure to start the
    // call, or the abort of a cancelled call) decides.
    function run(entry, input, signal) {
      const rec = records.get(entry.meta.name);
      if (!rec) return then(apply(nExecute, nativeMC, [entry.tool, input, { signal }]), parseResultString);
      const callId = randomId();
      return new PromiseCtor((resolve, reject) => {
        let done = false;
        const finish = (o) => {
          if (done) return;
          done = true;
          waiting.delete(callId);
          if (o.ok) resolve(o.value);
          else reject(o.error);
        };
        // The page's execute failed: its own error, unless the call was
        // cancelled meanwhile (then the browser's abort reason, as before).
        waiting.set(callId, (o) => finish(o.ok || !signal.aborted ? o : { ok: false, error: signal.reason }));
        let p;
        try {
          p = apply(nExecute, nativeMC, [entry.tool, { ...input, [MARK]: callId }, { signal }]);
        } catch (error) {
          finish({ ok: false, error });
          return;
        }
        then(resolved(p), (s) => finish({ ok: true, value: parseResultString(s) }), (error) => finish({ ok: false, error }));
      });
    }

    apply(addListener, nativeMC, ['toolchange', refresh]);
    apply(addListener, doc, ['DOMContentLoaded', refresh, { once: true }]);
    refresh();

    ownSource = () => {
      const out = new Map();
      for (const [name, e] of entries) {
        const rec = records.get(name);
        const meta = { ...e.meta };
        const hints = rec ? rec.hints : e.nativeHints;
        if (hints) meta.annotations = hints;
        else delete meta.annotations;
        out.set(name, { meta, run: (input, signal) => run(e, input, signal) });
      }
      return out;
    };

    // navigator.modelContext: the native object plus the older API.
    const facade = {};
    const bindNative = (fn) => function () {
      return apply(fn, nativeMC, arguments);
    };
    const methods = {
      registerTool(tool, options) {
        const p = register(tool, options, 'register');
        let name;
        try {
          name = String(tool.name);
        } catch {
          name = '';
        }
        defineProperty(p, 'unregister', { value: () => facade.unregisterTool(name), configurable: true });
        return p;
      },
      getTools: bindNative(nGetTools),
      executeTool: bindNative(nExecute),
      addEventListener: bindNative(addListener),
      removeEventListener: bindNative(removeListener),
      dispatchEvent: bindNative(dispatch),
      provideContext(context) {
        for (const rec of [...records.values()]) if (rec.how === 'provide') rec.controller.abort();
        const list = isObject(context) && context.tools !== undefined ? context.tools : [];
        for (const tool of list) {
          then(register(tool, undefined, 'provide'), undefined, (e) => {
            console.error('WebMCP provideContext:', e); // eslint-disable-line no-console
          });
        }
      },
      clearContext() {
        for (const rec of [...records.values()]) rec.controller.abort();
      },
      unregisterTool(name) {
        const rec = records.get(String(name));
        if (rec) rec.controller.abort();
      },
    };
    for (const [k, fn] of Object.entries(methods)) defineProperty(facade, k, { value: fn, writable: true, configurable: true });
    // The bridge's context API, on the browser's object (through its
    // prototype, like its own methods) and on the facade.
    addProviderMethods(proto, (that) => that === nativeMC || that === facade);
    addProviderMethods(facade, (that) => that === nativeMC || that === facade);
    for (const type of HANDLER_EVENTS) {
      const key = 'on' + type;
      defineProperty(facade, key, {
        get: () => nativeMC[key],
        set: (v) => {
          nativeMC[key] = v;
        },
        enumerable: true,
        configurable: true,
      });
    }
    return facade;
  }

  // ---- install ------------------------------------------------------------

  const NativeMC = win.ModelContext;
  const nativeDesc = getOwnPropertyDescriptor(Document.prototype, 'modelContext');
  let nativeMC = null;
  if (nativeDesc && typeof NativeMC === 'function') {
    try {
      const v = doc.modelContext;
      if (v instanceof NativeMC) nativeMC = v;
    } catch {
      nativeMC = null;
    }
  }

  if (nativeMC) {
    const facade = useNative(nativeMC, NativeMC.prototype);
    ours.add(nativeMC);
    ours.add(facade);
    if (!('modelContext' in nav)) installAccessor(nav, facade);
    // The native attribute is read-only; a page can still define its own
    // document.modelContext on the document itself.
    accessors.push({ target: doc, getter: null });
  } else {
    const poly = definePolyfill(scheduleSync);
    ours.add(poly.mc);
    ownSource = poly.list;
    for (const [name, C] of Object.entries(poly.classes)) {
      if (!hasOwn(win, name)) defineProperty(win, name, { value: C, writable: true, configurable: true, enumerable: false });
    }
    installAccessor(doc, poly.mc);
    if (!('modelContext' in nav)) installAccessor(nav, poly.mc);
  }

  // A page polyfill that replaced an accessor is noticed when the tools are
  // looked at; look a few times early in the page's life too.
  const recheck = () => {
    checkReplaced();
    scheduleSync();
  };
  apply(addListener, doc, ['DOMContentLoaded', recheck, { once: true }]);
  apply(addListener, win, ['load', () => {
    recheck();
    timeout(recheck, 500);
    timeout(recheck, 2000);
  }, { once: true }]);
})();
