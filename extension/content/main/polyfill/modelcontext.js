// The polyfill's ModelContext class: registerTool, getTools, executeTool,
// the older provideContext, clearContext and unregisterTool, and the
// ontoolchange, ontoolactivated and ontoolcancel handlers, each read and
// answered as in Chromium 156, behind the permissions policy "tools". The
// class cannot be constructed by a page; createInstance() makes the one
// instance. What the methods do with tools, frames and calls they are
// given (polyfill.js wires them).

import { DOMExc, PromiseCtor, addListener, apply, defineProperty, isAbortSignal, isObject, resolved, then } from '../../source/builtins.js';
import { invocationFailed, readRegisteredTool, resultText } from './execute.js';
import { goneError } from './links.js';
import { checkExposedTo, modelContextError, readOrigins, readTool, view } from './rules.js';
import { handleOf, originOf, sameOriginWindows } from './sameorigin.js';

/**
 * @param {object} o
 * @param {object} o.win  the window: getTools() lists it and its origin
 * @param {WeakMap<object, {tools: Map<string, object>, handlers: Map<string, Function>}>} o.internals
 *   each ModelContext's registry and handlers
 * @param {object | null} o.forms  the document's declarative tools (forms.js), or null
 * @param {() => {known: boolean, allowed: boolean, ready: Promise<boolean>, ask?: Function}} o.policy
 *   the permissions policy "tools" (policy.js), as it is now
 * @param {() => void} o.changedHere  this document's tools changed
 * @param {(mc: object, after?: () => void) => void} o.queueChange  queues toolchange (calls.js)
 * @param {(mc: object, inner: object, rec: object) => boolean} o.remove  unregisters a tool
 * @param {(mc: object, rec: object, input: object, signal?: AbortSignal) => Promise<unknown>} o.invoke  runs a tool (calls.js)
 * @param {(name: string, input: object, signal: AbortSignal | undefined, nullOnNavigation: boolean) => Promise<unknown>} o.runForm
 *   runs a form tool (calls.js)
 * @param {() => object[]} o.ownTools  this document's own tools as getTools() lists them (polyfill.js)
 * @param {(name: string, toolWin: object, origin: string) => object | undefined} o.findRemote
 *   the handle of the same-origin frame that holds the tool (remote.js)
 * @param {(h: object, name: string, input: object, signal?: AbortSignal) => Promise<string | null>} o.runRemote
 *   runs a same-origin frame's tool there (remote.js)
 * @param {(input: unknown) => object} o.readInput  reads executeTool's input (execute.js)
 * @returns {{ModelContext: Function, createInstance(): object}}  createInstance() makes the document's one instance
 */
export function defineModelContext({
  win, internals, forms, policy: currentPolicy, changedHere, queueChange, remove, invoke, runForm, ownTools, findRemote, runRemote, readInput,
}) {
  const TOKEN = {};
  // The document's own ModelContext, once createInstance() made it.
  let instance = null;

  function self(that, method) {
    const inner = internals.get(that);
    if (!inner) throw new TypeError(`Failed to execute '${method}' on 'ModelContext': Illegal invocation`);
    return inner;
  }

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

  // The permissions policy "tools" of this document in front of the own
  // instance's methods: until it is known (a cross-origin frame waits for
  // its parent's word), they wait for it; where it disallows, they reject;
  // null where the method goes on.
  function policyGate(that, method, args) {
    if (!internals.has(that) || that !== instance) return null;
    const policy = currentPolicy();
    if (!policy.known) {
      if (policy.ask) policy.ask();
      return then(policy.ready, () => apply(ModelContext.prototype[method], that, Array.from(args)));
    }
    if (!policy.allowed) return PromiseCtor.reject(new DOMExc('Access to the feature "tools" is disallowed by permissions policy.', 'NotAllowedError'));
    return null;
  }

  // Chromium 156 lists tools by name.
  function byName(list) {
    return list.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
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

  return {
    ModelContext,
    createInstance() {
      instance = new ModelContext(TOKEN);
      return instance;
    },
  };
}
