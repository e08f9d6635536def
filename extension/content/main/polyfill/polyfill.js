// A polyfill of the WebMCP draft's document.modelContext, for browsers
// without their own: the ModelContext class (registerTool, getTools,
// executeTool, the older provideContext, clearContext and unregisterTool,
// the toolchange, toolactivated and toolcancel events and their on*
// handlers) and one instance of it. It knows nothing of the bridge but what
// it is given: it says when its tools change, and lists them with a way to
// run each.

import {
  AbortCtl, AbortSig, DOMExc, Evt, PromiseCtor, addListener, apply, defineProperty, dispatch, isObject, jsonParse,
  jsonStringify, queueTask as defaultQueueTask, removeListener, resolved, then,
} from '../builtins.js';
import { schemaForReport } from '../../../lib/schema.js';
import { errorCode } from '../tools.js';
import { defineToolEvents } from './events.js';
import { createFormTools } from './forms.js';
import { checkExposedTo, modelContextError, readTool, view } from './rules.js';
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
 * @returns {{mc: object, classes: {ModelContext: Function, ToolActivatedEvent: Function, ToolCancelEvent: Function},
 *   list(): Map<string, {meta: object, run(input: object, signal?: AbortSignal): Promise<unknown>}>}}
 */
export function definePolyfill({ win, changed, addContextApi, queueTask: queueATask = defaultQueueTask, declarative }) {
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

  // Queues the toolchange event (a task, as the draft says), then runs after().
  function queueChange(mc, after) {
    queueATask(() => {
      fire(mc, new Evt('toolchange'));
      if (after) after();
    });
  }

  function remove(mc, inner, rec) {
    if (inner.tools.get(rec.name) !== rec) return false;
    inner.tools.delete(rec.name);
    changed();
    queueChange(mc);
    return true;
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

  // Declarative tools: the document's <form toolname> elements.
  let instance = null;
  let forms = null;
  if (declarative) {
    forms = createFormTools({
      dom: declarative.dom,
      submits: defineSubmitAdditions(declarative.submitProto),
      changed: () => {
        changed();
        if (instance) queueChange(instance);
      },
      activated: (name) => fire(instance, new ToolActivatedEvent('toolactivated', { toolName: name })),
      cancelled: (name) => fire(instance, new ToolCancelEvent('toolcancel', { toolName: name })),
      queueTask: queueATask,
    });
  }
  const formView = (t) => view({ name: t.name, description: t.description, inputSchema: t.inputSchema }, win);

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
          throw modelContextError('registerTool', "parameter 2 is not of type 'ModelContextRegisterToolOptions'.");
        }
        signal = isObject(options) ? options.signal : undefined;
        if (signal !== undefined && !(signal instanceof AbortSig)) {
          throw modelContextError('registerTool', "Failed to read the 'signal' property from 'ModelContextRegisterToolOptions': Failed to convert value to 'AbortSignal'.");
        }
        rec = readTool(inner.tools, tool, 'registerTool');
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
        const list = Array.from(inner.tools.values(), (rec) => view(rec, win));
        if (forms && this === instance) for (const t of forms.list().values()) if (!inner.tools.has(t.name)) list.push(formView(t));
        return resolved(list);
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
        if (!isObject(tool)) throw modelContextError('executeTool', "parameter 1 is not of type 'Object'.");
        if (!isObject(input)) throw modelContextError('executeTool', 'invalid input object: value is not an object');
        signal = isObject(options) ? options.signal : undefined;
        if (signal !== undefined && !(signal instanceof AbortSig)) throw modelContextError('executeTool', "Failed to convert value to 'AbortSignal'.");
        rec = inner.tools.get(String(tool.name));
        if (!rec && !(forms && this === instance && forms.list().has(String(tool.name)))) {
          throw new DOMExc(`No tool named ${jsonStringify(String(tool.name))} is registered.`, 'UnknownError');
        }
        const s = jsonStringify(input);
        copy = jsonParse(s === undefined ? '{}' : s);
      } catch (e) {
        return PromiseCtor.reject(e);
      }
      // A form tool: its result, or null when the submission navigated
      // the page (as Chromium's executeTool does).
      const p = rec ? invoke(this, rec, copy, signal) : runForm(String(tool.name), copy, signal, true);
      return then(p, (v) => {
        if (v === null && !rec) return null;
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
  return {
    mc: instance,
    classes,
    // This document's tools: name -> {meta, run(input, signal)}.
    list() {
      const out = new Map();
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
