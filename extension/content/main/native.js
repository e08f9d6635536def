// The browser's own document.modelContext (Chromium with
// --enable-features=WebMCP). It stays in place; the bridge wraps
// ModelContext.prototype.registerTool to learn which tools this document
// registered with which hints (the browser's getTools() fills in defaults),
// and to see each bridge call's own result and error (the browser turns a
// thrown error into a generic UnknownError); the call itself goes through
// executeTool with an AbortSignal. Nothing is added to navigator: the
// browser defines no navigator.modelContext, and a page's own runtime may
// (see index.js).

import {
  AbortCtl, AbortSig, PromiseCtor, addListener, apply, create, defineProperty, getOwnPropertyDescriptor,
  isObject, jsonStringify, queueTask, removeListener, resolved, then,
} from './builtins.js';
import { copyHints, copyMeta, copySchema, navigatedError, parseResultString } from './toolcopy.js';

/**
 * @param {object} o
 * @param {object} o.nativeMC  the browser's document.modelContext
 * @param {object} o.proto  its prototype (ModelContext.prototype)
 * @param {object} o.win
 * @param {object} o.doc
 * @param {() => Set<string>} o.declaredNames  the tool names of the document's <form toolname>
 * @param {() => void} o.changed  this document's tools changed
 * @param {(obj: object, ok: (that: unknown) => boolean) => void} o.addContextApi
 * @returns {{tools(): Map<string, {meta: object, run: Function}>, refresh(done: () => void): void}}
 */
export function useNative({ nativeMC, proto, win, doc, declaredNames, changed, addContextApi }) {
  const nRegister = proto.registerTool;
  const nGetTools = proto.getTools;
  const nExecute = proto.executeTool;
  // The submit watch of runDeclared needs the page's DOM (a test's window
  // may have none).
  const getAttr = typeof win.Element === 'function' ? win.Element.prototype.getAttribute : null;
  /** name -> {name, hints, controller, how}: registrations through the wrapper that succeeded */
  const records = new Map();
  /** "name\ninput JSON" of each bridge call under way -> the settle functions
   * of those calls, oldest first: settle({ok, value | error}) is called by
   * the wrapped execute as soon as the page's execute has settled. A call is
   * known by its tool and its input, never by a mark in the input (the
   * browser records the input as the tool's, and validates it); of two
   * calls alike, the older takes the first execution, which the browser
   * started first. */
  const waiting = new Map();
  /** name -> {meta, tool}: this document's tools as getTools() listed them
   * last; refresh() lists them again, which the bridge does before each
   * report (a toolchange only says that one is due: a getTools() per
   * toolchange made reporting n tools cost n getTools() of up to n tools
   * each, 46 s for 2,000 tools in Chromium 156) */
  let entries = new Map();
  // Whether the browser's list may have changed since the last look: only
  // a toolchange (or the document's parsing ending, for its forms) makes
  // it so. Other looks (the bridge's rechecks of page objects) reuse the
  // last list: a getTools() while the document goes away can bring down
  // Chromium 156's browser process.
  let stale = true;

  // The key of a call: its tool's name and its input as JSON.
  function callKey(name, input) {
    try {
      const json = jsonStringify(input);
      return json === undefined ? undefined : name + '\n' + json;
    } catch {
      return undefined;
    }
  }

  // Takes the oldest call under way with this key, if any.
  function takeCall(key) {
    const queue = waiting.get(key);
    if (!queue) return undefined;
    const settle = queue.shift();
    if (!queue.length) waiting.delete(key);
    return settle;
  }

  // Forgets a call that ended before its execution started.
  function forgetCall(key, settle) {
    const queue = waiting.get(key);
    if (!queue) return;
    const i = queue.indexOf(settle);
    if (i >= 0) queue.splice(i, 1);
    if (!queue.length) waiting.delete(key);
  }

  function wrapExecute(exec, name) {
    return function execute(input, client) {
      const key = waiting.size ? callKey(name, input) : undefined;
      const settle = key === undefined ? undefined : takeCall(key);
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
        // A signal that is no AbortSignal, or one aborted already: the
        // browser rejects the registration as it is.
        const signalOk = pageSignal === undefined || (pageSignal instanceof AbortSig && !pageSignal.aborted);
        if (typeof exec === 'function' && signalOk) {
          rec = {
            name: String(tool.name), hints: copyHints(tool.annotations, false), controller: new AbortCtl(), how,
            // Chromium 156 takes an outputSchema without keeping it: the
            // page's own stands in where the browser's tool has none.
            outputSchema: copySchema(tool.outputSchema),
          };
          derived = create(tool, { execute: { value: wrapExecute(exec, rec.name), enumerable: true, configurable: true, writable: true } });
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
          changed();
        }, { once: true }]);
        changed();
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

  // Lists this document's tools again if they may have changed, then
  // calls done.
  function refresh(done) {
    if (!stale) {
      done();
      return;
    }
    stale = false;
    let p;
    try {
      p = apply(nGetTools, nativeMC, []);
    } catch {
      stale = true;
      done();
      return;
    }
    then(resolved(p), (list) => {
      try {
        take(list);
      } finally {
        done();
      }
    }, () => {
      stale = true;
      done();
    });
  }

  // Takes getTools()'s list: this document's tools.
  function take(list) {
    if (!isObject(list)) return;
    const next = new Map();
    let declarative = null;
    for (const t of list) {
      // The tool's window: "source" in later drafts and browsers (Tool
      // objects), "window" in Chromium 156.
      let w;
      try {
        w = t.source;
        if (w === undefined || w === null) w = t.window;
      } catch {
        w = undefined;
      }
      // getTools() also lists same-origin frames' tools; each frame
      // reports only its own. Without a window field, fall back to what
      // this document registered and declared.
      let mine = w === win;
      if (w === undefined || w === null) {
        declarative = declarative || declaredNames();
        mine = records.has(t.name) || declarative.has(t.name);
      }
      if (!mine) continue;
      const meta = copyMeta(t, null);
      if (meta) next.set(meta.name, { meta, tool: t, nativeHints: copyHints(t.annotations, true) });
    }
    entries = next;
  }

  // Runs a tool through the browser's executeTool. For a tool registered
  // through the wrapper, the answer is what the page's own execute produced
  // (its value, or its error), taken as soon as that settles: the browser's
  // executeTool resolves one more round trip through the browser process
  // later (≈ 0.15 ms), with only a JSON string of the same value. Until the
  // page's execute has settled, the browser's answer (a failure to start the
  // call, or the abort of a cancelled call) decides.
  //
  // executeTool resolving to null (not the JSON text "null") means that the
  // call navigated the page (a declarative form's submission): the answer
  // is the navigated error, not a result.
  function run(entry, input, signal) {
    const rec = records.get(entry.meta.name);
    const settled = (s) => {
      if (s === null) throw navigatedError(entry.meta.name);
      return parseResultString(s);
    };
    if (!rec) return runDeclared(entry, input, signal, settled);
    const key = callKey(rec.name, input);
    if (key === undefined) return then(apply(nExecute, nativeMC, [entry.tool, input, { signal }]), settled);
    return new PromiseCtor((resolve, reject) => {
      let done = false;
      const finish = (o) => {
        if (done) return;
        done = true;
        forgetCall(key, settle);
        if (o.ok) resolve(o.value);
        else reject(o.error);
      };
      // The page's execute failed: its own error, unless the call was
      // cancelled meanwhile (then the browser's abort reason, as before).
      const settle = (o) => finish(o.ok || !signal.aborted ? o : { ok: false, error: signal.reason });
      const queue = waiting.get(key);
      if (queue) queue.push(settle);
      else waiting.set(key, [settle]);
      executeNative(entry, input, signal, settled, finish, () => done);
    });
  }

  // Calls the browser's executeTool and gives finish its outcome, read by
  // settled: {ok: true, value} or {ok: false, error}. ended says that the
  // call has its answer already (the page's own execute settled first, as
  // it does for a wrapped tool): the browser's JSON text is then not read.
  function executeNative(entry, input, signal, settled, finish, ended) {
    let p;
    try {
      p = apply(nExecute, nativeMC, [entry.tool, input, { signal }]);
    } catch (error) {
      finish({ ok: false, error });
      return;
    }
    then(resolved(p), (s) => {
      if (ended()) return;
      let value;
      try {
        value = settled(s);
      } catch (error) {
        finish({ ok: false, error });
        return;
      }
      finish({ ok: true, value });
    }, (error) => finish({ ok: false, error }));
  }

  // Runs a tool the browser derived from a <form toolname>. Its submission
  // may navigate the page, and the browser's executeTool then resolves to
  // null only as the old document goes, often too late for the answer to
  // leave it (the extension then can only say that the frame went away,
  // not that the call ran). So the bridge watches the form's submit event:
  // one that the page's listeners let go on to this browsing context (not
  // prevented, no other target) navigates the page, and the call is
  // answered with the navigated error at once, before the page unloads,
  // as the polyfill does.
  function runDeclared(entry, input, signal, settled) {
    const name = entry.meta.name;
    if (!getAttr) return then(apply(nExecute, nativeMC, [entry.tool, input, { signal }]), settled);
    return new PromiseCtor((resolve, reject) => {
      let done = false;
      const onSubmit = (e) => {
        const form = e.target;
        if (done || !isObject(form) || apply(getAttr, form, ['toolname']) !== name) return;
        queueTask(() => {
          if (!e.defaultPrevented && navigatesHere(form, e)) finish({ ok: false, error: navigatedError(name) });
        });
      };
      const finish = (o) => {
        if (done) return;
        done = true;
        apply(removeListener, win, ['submit', onSubmit, true]);
        if (o.ok) resolve(o.value);
        else reject(o.error);
      };
      apply(addListener, win, ['submit', onSubmit, true]);
      executeNative(entry, input, signal, settled, finish, () => done);
    });
  }

  // Whether the submission e of form navigates this document: no target
  // (or _self) on its submitter or the form, and not a dialog form.
  function navigatesHere(form, e) {
    const submitter = e.submitter;
    const target = (isObject(submitter) && apply(getAttr, submitter, ['formtarget'])) || apply(getAttr, form, ['target']) || '';
    const method = String(apply(getAttr, form, ['method']) || '').toLowerCase();
    return method !== 'dialog' && (target === '' || target.toLowerCase() === '_self');
  }

  const toolsChanged = () => {
    stale = true;
    changed();
  };
  apply(addListener, nativeMC, ['toolchange', toolsChanged]);
  apply(addListener, doc, ['DOMContentLoaded', toolsChanged, { once: true }]);

  // The bridge's context API, on the browser's object (through its
  // prototype, like its own methods).
  addContextApi(proto, (that) => that === nativeMC);

  return {
    // This document's tools, with the hints the page set where it
    // registered them through the wrapper.
    tools() {
      const out = new Map();
      for (const [name, e] of entries) {
        const rec = records.get(name);
        const meta = { ...e.meta };
        const hints = rec ? rec.hints : e.nativeHints;
        if (hints) meta.annotations = hints;
        else delete meta.annotations;
        if (!meta.outputSchema && rec && rec.outputSchema) meta.outputSchema = rec.outputSchema;
        out.set(name, { meta, run: (input, signal) => run(e, input, signal) });
      }
      return out;
    },
    // Reads the browser's list of tools again, then calls done (the bridge
    // does before each report).
    refresh,
  };
}
