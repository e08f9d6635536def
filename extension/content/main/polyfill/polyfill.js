// A polyfill of the WebMCP draft's document.modelContext, for browsers
// without their own: the ModelContext class (registerTool, getTools,
// executeTool, the older provideContext, clearContext and unregisterTool,
// the toolchange, toolactivated and toolcancel events and their on*
// handlers) and one instance of it. It knows nothing of the bridge but what
// it is given: it says when its tools change, and lists them with a way to
// run each.

import {
  AbortCtl, DOMExc, Evt, PromiseCtor, URLCtor, addListener, apply, defineProperty, dispatch, getOwnPropertyDescriptor,
  isAbortSignal, isArray, isObject, jsonParse, jsonStringify, queueTask as defaultQueueTask, removeListener, resolved, then, timeout,
} from '../builtins.js';
import { schemaForReport } from '../../../lib/schema.js';
import { errorCode } from '../toolcopy.js';
import { defineToolEvents } from './events.js';
import { createFormTools } from './forms.js';
import { allowsTools, createLinks, goneError } from './links.js';
import { checkExposedTo, modelContextError, readOrigins, readTool, view } from './rules.js';
import { handleOf, originOf, publish, sameOriginWindows } from './sameorigin.js';
import { defineSubmitAdditions } from './submit.js';

/**
 * @param {object} o
 * @param {object} o.win  the window: getTools() lists it and its origin
 * @param {() => void} o.changed  the tools changed
 * @param {(proto: object, ok: (that: unknown) => boolean) => void} [o.addContextApi]
 *   puts the context-provider API on ModelContext.prototype
 * @param {(fn: () => void) => void} [o.queueTask]  queues a task (toolchange fires in one)
 * @param {{dom: object, start(forms: object): void, submitProto?: object}} [o.declarative]
 *   declarative tools (<form toolname>): the DOM as forms.js uses it
 *   (formdom.js), and SubmitEvent.prototype to add agentInvoked and
 *   respondWith to; without it, there are none
 * @param {() => boolean} [o.takesText]  whether executeTool also takes its input as JSON
 *   text of an object, as Chromium took it before 156 (index.js: once a page runtime
 *   that took the polyfill for the browser's own put its object on the document)
 * @returns {{mc: object, classes: {ModelContext: Function, ToolActivatedEvent: Function, ToolCancelEvent: Function},
 *   list(): Map<string, {meta: object, run(input: object, signal?: AbortSignal): Promise<unknown>}>}}
 */
export function definePolyfill({ win, changed, addContextApi, queueTask: queueATask = defaultQueueTask, declarative, takesText }) {
  const TOKEN = {};
  /** @type {WeakMap<object, {tools: Map<string, object>, handlers: Map<string, Function>}>} */
  const internals = new WeakMap();
  const { ToolActivatedEvent, ToolCancelEvent } = defineToolEvents();

  function self(that, method) {
    const inner = internals.get(that);
    if (!inner) throw new TypeError(`Failed to execute '${method}' on 'ModelContext': Illegal invocation`);
    return inner;
  }

  function fire(mc, event) {
    apply(dispatch, mc, [event]);
  }

  // Fires toolactivated or toolcancel at the ModelContext, then (as the
  // spec's tests want; Chromium 156 does not yet) at the window.
  function fireTool(mc, C, type, toolName) {
    fire(mc, new C(type, { toolName }));
    if (mc !== instance) return;
    try {
      apply(dispatch, win, [new C(type, { toolName })]);
    } catch {
      // a window that is no EventTarget (a test's)
    }
  }

  // Queues the toolchange event (a task, as the draft says), then runs after().
  function queueChange(mc, after) {
    queueATask(() => {
      fire(mc, new Evt('toolchange'));
      if (after) after();
    });
  }

  // This document's tools changed: tell the bridge, and the same-origin
  // frames, whose lists hold them too.
  function changedHere() {
    changed();
    if (links) links.resend();
    tellFrames();
  }

  function tellFrames() {
    for (const w of sameOriginWindows(win)) {
      if (w === win) continue;
      try {
        handleOf(w).changed();
      } catch {
        // a frame going away
      }
    }
  }

  function remove(mc, inner, rec) {
    if (inner.tools.get(rec.name) !== rec) return false;
    inner.tools.delete(rec.name);
    changedHere();
    queueChange(mc);
    return true;
  }

  // Runs a tool: execute(input, {signal}); resolves to what it returned.
  function invoke(mc, rec, input, outer) {
    return new PromiseCtor((resolve, reject) => {
      const inner = new AbortCtl();
      let done = false;
      // A cancelled call rejects with the caller's reason at once; then
      // (a task later, as the spec's tests order it) execute's own signal
      // aborts with an AbortError, and toolcancel fires in the task after
      // (as in Chromium 156: what the signal's listeners started runs
      // first).
      const onAbort = () => {
        if (done) return;
        done = true;
        reject(outer.reason);
        queueATask(() => {
          inner.abort();
          queueATask(() => fireTool(mc, ToolCancelEvent, 'toolcancel', rec.name));
        });
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
      fireTool(mc, ToolActivatedEvent, 'toolactivated', rec.name);
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

  // Declarative tools: the document's <form toolname> elements.
  let instance = null;
  let forms = null;
  if (declarative) {
    forms = createFormTools({
      dom: declarative.dom,
      submits: defineSubmitAdditions(declarative.submitProto),
      changed: () => {
        if (!policy.known && policy.ask && forms && forms.list().size) policy.ask();
        changedHere();
        if (instance) queueChange(instance);
      },
      activated: (name) => fireTool(instance, ToolActivatedEvent, 'toolactivated', name),
      cancelled: (name) => fireTool(instance, ToolCancelEvent, 'toolcancel', name),
      queueTask: queueATask,
    });
  }
  const formView = (t) => view({ name: t.name, description: t.description, inputSchema: t.inputSchema }, win);

  class ModelContext extends EventTarget {
    constructor(token) {
      if (token !== TOKEN) throw new TypeError("Failed to construct 'ModelContext': Illegal constructor");
      super();
      internals.set(this, { tools: new Map(), handlers: new Map() });
    }

    registerTool(tool) {
      const options = arguments[1];
      const gate = policyGate(this, 'registerTool', arguments);
      if (gate) return gate;
      let inner;
      let rec;
      let signal;
      try {
        inner = self(this, 'registerTool');
        if (options !== undefined && options !== null && !isObject(options)) {
          throw modelContextError('registerTool', "The provided value is not of type 'ModelContextRegisterToolOptions'.");
        }
        signal = isObject(options) ? options.signal : undefined;
        if (signal !== undefined && !isAbortSignal(signal)) {
          throw modelContextError('registerTool', "Failed to read the 'signal' property from 'ModelContextRegisterToolOptions': Failed to convert value to 'AbortSignal'.");
        }
        rec = readTool(inner.tools, tool, 'registerTool');
        rec.exposedTo = checkExposedTo(isObject(options) ? options.exposedTo : undefined);
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
      changedHere();
      queueChange(mc, () => settle.resolve());
      // The older API returned {unregister()}; keep that working too.
      defineProperty(promise, 'unregister', { value: () => void remove(mc, inner, rec), configurable: true });
      return promise;
    }

    // This document's tools and those of its same-origin frames (and
    // theirs), as the browser lists them.
    getTools() {
      const gate = policyGate(this, 'getTools', arguments);
      if (gate) return gate;
      const options = arguments[0];
      try {
        const inner = self(this, 'getTools');
        if (options !== undefined && options !== null && !isObject(options)) {
          throw modelContextError('getTools', "The provided value is not of type 'ModelContextGetToolOptions'.");
        }
        const from = readOrigins(isObject(options) ? options.fromOrigins : undefined, 'getTools', 'ModelContextGetToolOptions', 'fromOrigins') || [];
        if (this !== instance) return resolved(byName(Array.from(inner.tools.values(), (rec) => view(rec, win))));
        const list = [];
        // Tools of cross-origin documents that they expose to this one's
        // origin, from the origins asked for.
        if (from.length) {
          for (const w of sameOriginWindows(win)) {
            let remote = [];
            try {
              remote = handleOf(w).remote(from);
            } catch {
              // a frame going away
            }
            for (const r of remote) list.push(view(r.tool, r.window, r.origin));
          }
        }
        for (const w of sameOriginWindows(win)) {
          if (w === win) {
            for (const rec of ownTools()) list.push(view(rec, win));
            continue;
          }
          const h = handleOf(w);
          let recs = [];
          try {
            recs = h.tools();
          } catch {
            // a frame going away
          }
          for (const rec of recs) list.push(view(rec, w));
        }
        return resolved(byName(list));
      } catch (e) {
        return PromiseCtor.reject(e);
      }
    }

    // executeTool(tool, input, options): the arguments read as Chromium 156
    // reads them (tool: a RegisteredTool dictionary; input: an object, {}
    // when left out; options: {signal}), the tool's answer as its JSON text.
    executeTool(tool) {
      const gate = policyGate(this, 'executeTool', arguments);
      if (gate) return gate;
      const [, input, options] = arguments;
      let rec;
      let name;
      let signal;
      let copy;
      try {
        const inner = self(this, 'executeTool');
        if (arguments.length < 1) throw modelContextError('executeTool', '1 argument required, but only 0 present.');
        const which = readRegisteredTool(tool);
        name = which.name;
        if (options !== undefined && options !== null && !isObject(options)) {
          throw modelContextError('executeTool', "The provided value is not of type 'ExecuteToolOptions'.");
        }
        signal = isObject(options) ? options.signal : undefined;
        if (signal !== undefined && !isAbortSignal(signal)) {
          throw modelContextError('executeTool', "Failed to read the 'signal' property from 'ExecuteToolOptions': Failed to convert value to 'AbortSignal'.");
        }
        copy = readInput(input);
        // The tool is the one of that name in the document of its window
        // and origin, as the browser finds it.
        const toolWin = which.window;
        const here = this !== instance || (toolWin === win && which.origin === originOf(win));
        rec = here ? inner.tools.get(name) : undefined;
        if (!rec && !(here && forms && this === instance && forms.list().has(name))) {
          // A tool of a same-origin frame: run there.
          const remote = this === instance && !here ? findRemote(name, toolWin, which.origin) : undefined;
          if (remote) return runRemote(remote, name, copy, signal);
          // A tool that a cross-origin document exposes to this one.
          if (this === instance && !here) {
            for (const w of sameOriginWindows(win)) {
              let p = null;
              try {
                p = handleOf(w).callLinked(name, toolWin, which.origin, copy, signal, invocationFailed, goneError);
              } catch {
                // a frame going away
              }
              if (p) return p;
            }
          }
          throw new DOMExc('The operation failed for an unknown transient reason (e.g. out of memory).', 'UnknownError');
        }
      } catch (e) {
        return PromiseCtor.reject(e);
      }
      // An already-aborted call rejects with the signal's reason at once,
      // not a promise reaction later (the spec's tests await one).
      if (signal && signal.aborted) return PromiseCtor.reject(signal.reason);
      // A form tool: its result, or null when the submission navigated
      // the page (as Chromium's executeTool does).
      const p = rec ? invoke(this, rec, copy, signal) : runForm(name, copy, signal, true);
      return then(p, (v) => {
        if (v === null && !rec) return null;
        return resultText(v);
      }, (e) => {
        // The page's own error stays the page's: the caller learns only
        // that the tool failed (an abort is the signal's reason).
        if (rec && !(signal && signal.aborted)) throw invocationFailed();
        throw e;
      });
    }

    // The older API, which pages written for earlier drafts still call.
    provideContext(context) {
      const inner = self(this, 'provideContext');
      const list = isObject(context) && context.tools !== undefined ? context.tools : [];
      if (!isObject(list) || typeof list[Symbol.iterator] !== 'function') {
        throw modelContextError('provideContext', "Failed to read the 'tools' property: The provided value cannot be converted to a sequence.");
      }
      // Check every tool against the registry without the tools that this
      // call replaces, then swap them in at once.
      const keep = new Map();
      for (const [n, r] of inner.tools) if (r.how !== 'provide') keep.set(n, r);
      const probe = new Map(keep);
      const recs = [];
      for (const tool of list) {
        const rec = readTool(probe, tool, 'provideContext');
        rec.how = 'provide';
        probe.set(rec.name, rec);
        recs.push(rec);
      }
      inner.tools = keep;
      for (const rec of recs) inner.tools.set(rec.name, rec);
      changedHere();
      queueChange(this);
    }

    clearContext() {
      const inner = self(this, 'clearContext');
      inner.tools.clear();
      changedHere();
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

  // The permissions policy "tools" of this document: {known, allowed, ready}.
  // Until it is known (a cross-origin frame waits for its parent's word),
  // the methods wait for it; where it disallows, they reject.
  let policy = { known: true, allowed: true, ready: resolved(true) };
  let links = null;

  function policyGate(that, method, args) {
    if (!internals.has(that) || that !== instance) return null;
    if (!policy.known) {
      if (policy.ask) policy.ask();
      return then(policy.ready, () => apply(ModelContext.prototype[method], that, Array.from(args)));
    }
    if (!policy.allowed) return PromiseCtor.reject(new DOMExc('Access to the feature "tools" is disallowed by permissions policy.', 'NotAllowedError'));
    return null;
  }

  const ownOrigin = () => originOf(win);

  // The page's built-ins for frame elements, taken now.
  const frameDom = (() => {
    try {
      const doc = win.document;
      const qsa = win.Document.prototype.querySelectorAll;
      const getAttr = win.Element.prototype.getAttribute;
      const cw = getOwnPropertyDescriptor(win.HTMLIFrameElement.prototype, 'contentWindow').get;
      const fcw = win.HTMLFrameElement ? getOwnPropertyDescriptor(win.HTMLFrameElement.prototype, 'contentWindow').get : null;
      const baseURI = getOwnPropertyDescriptor(win.Node.prototype, 'baseURI').get;
      const frameEl = getOwnPropertyDescriptor(win, 'frameElement') || getOwnPropertyDescriptor(Object.getPrototypeOf(win), 'frameElement');
      return {
        elementOf(w) {
          for (const el of apply(qsa, doc, ['iframe, frame'])) {
            const g = el.localName === 'frame' ? fcw : cw;
            if (g && apply(g, el, []) === w) return el;
          }
          return null;
        },
        read(el) {
          const allow = apply(getAttr, el, ['allow']) || '';
          const src = apply(getAttr, el, ['src']);
          let srcOrigin = ownOrigin();
          if (src !== null && src !== '' && apply(getAttr, el, ['srcdoc']) === null) {
            try {
              const u = new URLCtor(src, apply(baseURI, el.ownerDocument || doc, []));
              if (u.protocol !== 'about:') srcOrigin = u.origin;
            } catch {
              // not a URL: its own origin
            }
          }
          return { allow, srcOrigin };
        },
        ownFrameElement() {
          try {
            return frameEl && frameEl.get ? apply(frameEl.get, win, []) : win.frameElement;
          } catch {
            return null;
          }
        },
      };
    } catch {
      return null;
    }
  })();

  function startLinks() {
    if (!frameDom) return null;
    try {
      return createLinks({
        win,
        origin: ownOrigin(),
        frameElementOf: frameDom.elementOf,
        readFrame: frameDom.read,
        allowed: () => policy.ready,
        exposed: (origin) => {
          const out = [];
          for (const w of sameOriginWindows(win)) {
            try {
              for (const t of handleOf(w).exposed(origin)) out.push(t);
            } catch {
              // a frame going away
            }
          }
          return out;
        },
        run: serveLinked,
        remoteChanged: () => {
          queueChange(instance);
          tellFrames();
        },
      });
    } catch {
      return null;
    }
  }

  // Runs a tool of this group that a cross-origin caller of origin asked
  // for; resolves to its JSON text.
  function serveLinked(name, origin, json, gone) {
    for (const w of sameOriginWindows(win)) {
      let h;
      try {
        h = handleOf(w);
        if (!h.exposed(origin).some((t) => t.name === name)) continue;
      } catch {
        continue;
      }
      const r = h.run(name, json, gone);
      if (!r) return null;
      return { promise: then(r.promise, (v) => resultText(v)), abort: () => r.abort() };
    }
    return null;
  }

  function startPolicy() {
    let parent;
    try {
      parent = win.parent;
    } catch {
      parent = undefined;
    }
    if (!parent || parent === win || !frameDom) return { known: true, allowed: true, ready: resolved(true) };
    const p = { known: false, allowed: false, ready: null };
    // Once known, the bridge and the frames hear of this document's tools
    // (none where the policy disallows them).
    const settle = (ok) => {
      p.known = true;
      p.allowed = !!ok;
      changedHere();
      return p.allowed;
    };
    const parentHandle = originOf(parent) === ownOrigin() ? handleOf(parent) : undefined;
    if (parentHandle) {
      // A same-origin parent: this frame's element is readable.
      const el = frameDom.ownFrameElement();
      let mine = true;
      if (el) {
        try {
          const { allow, srcOrigin } = frameDom.read(el);
          mine = allowsTools(allow, ownOrigin(), ownOrigin(), srcOrigin);
        } catch {
          mine = true;
        }
      }
      const up = parentHandle.policy ? parentHandle.policy() : { known: true, allowed: true, ready: resolved(true) };
      if (up.known) {
        p.known = true;
        p.allowed = mine && up.allowed;
        p.ready = resolved(p.allowed);
      } else {
        p.ready = then(up.ready, (ok) => settle(mine && ok));
      }
      return p;
    }
    if (!links || originOf(parent) === ownOrigin()) return { known: true, allowed: true, ready: resolved(true) };
    // Asked once the document first uses WebMCP (a method, or a form
    // tool): a frame that never does posts nothing to its parent.
    let ready;
    p.ready = new PromiseCtor((resolve) => {
      ready = resolve;
    });
    p.ask = () => {
      p.ask = null;
      const fallback = (fire) => {
        let complete = false;
        try {
          complete = win.document.readyState === 'complete';
        } catch {
          complete = true;
        }
        if (complete) timeout(fire, 1000);
        else apply(addListener, win, ['load', () => timeout(fire, 1000), { once: true }]);
      };
      then(links.askParent(fallback), (ok) => ready(settle(ok)));
    };
    if (forms && forms.list().size) p.ask();
    return p;
  }

  // Chromium 156 lists tools by name.
  function byName(list) {
    return list.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  // This document's own tools (registered, then its forms') as records
  // that view() lists.
  function ownTools() {
    if (!policy.allowed) return [];
    const inner = internals.get(instance);
    const out = Array.from(inner.tools.values());
    if (forms) {
      for (const t of forms.list().values()) {
        if (!inner.tools.has(t.name)) out.push({ name: t.name, description: t.description, inputSchema: t.inputSchema });
      }
    }
    return out;
  }

  // The same-origin frame whose tool named name executeTool runs: the
  // tool's own window when it is one of them, else the first that has it.
  function findRemote(name, toolWin, origin) {
    if (toolWin === win || !sameOriginWindows(win).includes(toolWin) || originOf(toolWin) !== origin) return undefined;
    const h = handleOf(toolWin);
    try {
      if (h && h.has(name)) return h;
    } catch {
      // a frame going away
    }
    return undefined;
  }

  // Runs a same-origin frame's tool there (its ModelContext fires
  // toolactivated); the answer as executeTool gives it here.
  function runRemote(h, name, input, signal) {
    if (signal && signal.aborted) return PromiseCtor.reject(signal.reason);
    return new PromiseCtor((resolve, reject) => {
      let done = false;
      // The frame's document went away (removed, navigated) before the
      // tool answered: the call fails, as in Chromium 156.
      const gone = () => {
        if (done) return;
        done = true;
        if (signal) apply(removeListener, signal, ['abort', onAbort]);
        reject(new DOMExc('The operation failed for an unknown transient reason (e.g. out of memory).', 'UnknownError'));
      };
      const r = h.run(name, jsonStringify(input), gone);
      if (!r) {
        reject(new DOMExc('The operation failed for an unknown transient reason (e.g. out of memory).', 'UnknownError'));
        return;
      }
      const onAbort = () => {
        if (done) return;
        done = true;
        r.abort(signal.reason);
        reject(signal.reason);
      };
      if (signal) apply(addListener, signal, ['abort', onAbort, { once: true }]);
      then(r.promise, (v) => {
        if (done) return;
        done = true;
        if (signal) apply(removeListener, signal, ['abort', onAbort]);
        try {
          resolve(v === null && r.form ? null : resultText(v));
        } catch (e) {
          reject(e);
        }
      }, (e) => {
        if (done) return;
        done = true;
        if (signal) apply(removeListener, signal, ['abort', onAbort]);
        reject(r.form ? e : invocationFailed());
      });
    });
  }

  // Reads executeTool's first argument as WebIDL reads a RegisteredTool
  // dictionary (members in order; description, name, origin and window
  // are required, as in Chromium 156); returns {name, origin, window}.
  function readRegisteredTool(tool) {
    if (tool !== undefined && tool !== null && !isObject(tool)) {
      throw modelContextError('executeTool', "The provided value is not of type 'RegisteredTool'.");
    }
    const t = isObject(tool) ? tool : {};
    const required = (member) => {
      const v = t[member];
      if (v === undefined) throw modelContextError('executeTool', `Failed to read the '${member}' property from 'RegisteredTool': Required member is undefined.`);
      return String(v);
    };
    required('description');
    const name = required('name');
    const origin = required('origin');
    const w = t.window;
    if (w === undefined) throw modelContextError('executeTool', "Failed to read the 'window' property from 'RegisteredTool': Required member is undefined.");
    if (!isObject(w)) throw modelContextError('executeTool', "Failed to read the 'window' property from 'RegisteredTool': Failed to convert value to 'Window'.");
    return { name, origin, window: w };
  }

  // Reads executeTool's input: {} when left out, else an object that
  // serialises to a JSON object, copied through JSON.
  function readInput(input) {
    if (input === undefined) return {};
    if (typeof input === 'string' && takesText && takesText()) {
      let v;
      try {
        v = jsonParse(input);
      } catch {
        v = undefined;
      }
      if (isObject(v) && !isArray(v)) input = v;
    }
    if (!isObject(input)) throw modelContextError('executeTool', 'invalid input object: value is not an object');
    let s;
    try {
      s = jsonStringify(input);
    } catch (e) {
      if (e instanceof TypeError) throw modelContextError('executeTool', e.message);
      throw e;
    }
    if (s === undefined) throw modelContextError('executeTool', 'invalid input object: toJSON() returns undefined');
    const copy = jsonParse(s);
    if (!isObject(copy)) throw new DOMExc('Failed to parse input arguments', 'UnknownError');
    return copy;
  }

  // Runs a form tool; with nullOnNavigation, a navigation is null rather
  // than the navigated error.
  function runForm(name, input, signal, nullOnNavigation) {
    const p = forms.run(name, input, signal, nullOnNavigation);
    if (!nullOnNavigation) return p;
    return then(p, undefined, (e) => {
      if (errorCode(e) === 'navigated') return null;
      throw e;
    });
  }

  // What executeTool resolves to for a tool's answer: a string as it is,
  // anything else as its JSON text ("undefined" where there is none); an
  // answer that cannot be serialised fails the call, as in Chromium 156.
  function resultText(v) {
    if (typeof v === 'string') return v;
    if (typeof v === 'bigint') return String(v);
    let s;
    try {
      s = jsonStringify(v);
    } catch {
      throw invocationFailed();
    }
    return s === undefined ? 'undefined' : s;
  }

  function invocationFailed() {
    return new DOMExc('Tool was executed but the invocation failed. For example, the script function threw an error', 'UnknownError');
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
  if (addContextApi) addContextApi(ModelContext.prototype, (that) => internals.has(that));

  const classes = { ModelContext, ToolActivatedEvent, ToolCancelEvent };
  for (const [name, C] of Object.entries(classes)) {
    defineProperty(C.prototype, Symbol.toStringTag, { value: name, configurable: true });
  }

  instance = new ModelContext(TOKEN);
  if (forms) declarative.start(forms);
  links = startLinks();
  policy = startPolicy();
  // The calls of other documents that this one runs: told when it goes
  // away (its frame removed or navigated), which ends them there.
  const leaving = new Set();
  try {
    apply(addListener, win, ['pagehide', () => {
      const all = Array.from(leaving);
      leaving.clear();
      for (const gone of all) {
        try {
          gone();
        } catch {
          // the caller's document went too
        }
      }
    }, { capture: true }]);
  } catch {
    // a window that is no EventTarget (a test's)
  }
  // What same-origin frames' polyfills read of this document (frames.js).
  try {
    publish(win, {
      tools: ownTools,
      has: (name) => internals.get(instance).tools.has(name) || !!(forms && forms.list().has(name)),
      // gone() is called if this document goes away before the call ends.
      run(name, json, gone) {
        const rec = internals.get(instance).tools.get(name);
        const isForm = !rec && !!(forms && forms.list().has(name));
        if (!rec && !isForm) return null;
        const ctl = new AbortCtl();
        const input = jsonParse(json);
        const promise = rec ? invoke(instance, rec, input, ctl.signal) : runForm(name, input, ctl.signal, true);
        if (typeof gone === 'function') {
          leaving.add(gone);
          const forget = () => leaving.delete(gone);
          then(promise, forget, forget);
        }
        return { promise, abort: (reason) => ctl.abort(reason), form: isForm };
      },
      changed: () => {
        queueChange(instance);
        if (links) links.resend();
      },
      policy: () => policy,
      // This document's tools registered with exposedTo naming origin.
      exposed(origin) {
        if (!policy.allowed) return [];
        const out = [];
        for (const rec of internals.get(instance).tools.values()) {
          if (!rec.exposedTo || !rec.exposedTo.includes(origin)) continue;
          const t = { name: rec.name, description: rec.description };
          if (rec.inputSchema) t.inputSchema = rec.inputSchema;
          if (rec.title !== undefined) t.title = rec.title;
          if (rec.annotations) t.annotations = rec.annotations;
          out.push(t);
        }
        return out;
      },
      remote: (origins) => (links ? links.remoteTools(origins) : []),
      // Runs over this document's links a tool that a cross-origin document
      // exposes; null when none of them brings one named name.
      callLinked(name, toolWin, origin, input, signal, failed, gone) {
        const link = links && links.find(name, toolWin, origin);
        return link ? links.call(link, name, input, signal, failed, gone) : null;
      },
    });
  } catch {
    // a window that takes no more properties: no sharing with frames
  }
  return {
    mc: instance,
    classes,
    // This document's tools: name -> {meta, run(input, signal)}.
    list() {
      const out = new Map();
      if (!policy.allowed) return out;
      for (const rec of internals.get(instance).tools.values()) {
        const meta = { name: rec.name };
        if (rec.title) meta.title = rec.title;
        meta.description = rec.description;
        // The schemas are checked against the bridge's bounds once, when
        // first reported.
        if (!rec.reported) {
          rec.reported = {
            inputSchema: rec.inputSchema && schemaForReport(rec.inputSchema),
            outputSchema: rec.outputSchema && schemaForReport(rec.outputSchema),
          };
        }
        if (rec.reported.inputSchema) meta.inputSchema = rec.reported.inputSchema;
        if (rec.reported.outputSchema) meta.outputSchema = rec.reported.outputSchema;
        if (rec.hints) meta.annotations = rec.hints;
        out.set(rec.name, { meta, run: (input, signal) => invoke(instance, rec, input, signal) });
      }
      if (forms) {
        for (const t of forms.list().values()) {
          if (out.has(t.name)) continue; // a registered tool of the same name wins
          if (!t.reported) t.reported = schemaForReport(t.inputSchema);
          const meta = { name: t.name, description: t.description, inputSchema: t.reported };
          out.set(t.name, { meta, run: (input, signal) => runForm(t.name, input, signal, false) });
        }
      }
      return out;
    },
  };
}
