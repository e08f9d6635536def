// The browser's own document.modelContext (Chromium with
// --enable-features=WebMCP), read and called from the isolated world, as
// the browser's own agent and Google's Model Context Tool Inspector do: the
// isolated world sees the same ModelContext as the page, with its own
// wrappers. getTools() lists the document's tools, `toolchange` says that
// the list changed, and a call goes through executeTool with an
// AbortSignal, answered with the browser's JSON text of the result. No call
// and no tool list crosses into the page's world.
//
// What only the page's world sees, its witness (content/main/witness.js)
// tells this one synchronously, by a DOM event (witness.js here): the hints
// and outputSchema that the page gave registerTool (the browser fills in
// defaults, and Chromium 156 keeps no outputSchema), and the outcome of the
// page's execute of a call from here as soon as it settled: its value (one
// browser round trip before executeTool resolves) or the page's own error
// (the browser's executeTool rejects with a generic UnknownError; CDP's
// agent gets the page's exception).

import { PromiseCtor, addListener, apply, isObject, queueTask, removeListener, resolved, then } from '../source/builtins.js';
import { copyHints, copyMeta, navigatedError, parseResultString } from '../source/toolcopy.js';
import { navigatesHere } from './formcalls.js';

/**
 * @param {object} o
 * @param {object} o.mc  this world's document.modelContext (the browser's own)
 * @param {object} o.win  this world's window
 * @param {object} o.doc  this world's document
 * @param {() => Set<string>} o.declaredNames  the tool names of the document's <form toolname>
 * @param {() => void} o.changed  this document's tools may have changed
 * @param {ReturnType<typeof import('./witness.js').createWitness>} [o.witness]
 *   what the page's world saw (witness.js); none: the browser's view alone
 * @returns {{tools(): Map<string, {meta: object, run: Function}>, refresh(done: () => void): void}}
 */
export function useNative({ mc, win, doc, declaredNames, changed, witness = null }) {
  const proto = Object.getPrototypeOf(mc);
  const nGetTools = proto.getTools;
  const nExecute = proto.executeTool;
  // The submit watch of a form tool needs the page's DOM (a test's window
  // may have none).
  const getAttr = typeof win.Element === 'function' ? win.Element.prototype.getAttribute : null;
  const attr = (el, name) => apply(getAttr, el, [name]);
  /** name -> {meta, tool, nativeHints, declared}: this document's tools as
   * getTools() listed them last; refresh() lists them again, which the
   * bridge does before each report (a toolchange only says that one is
   * due: a getTools() per toolchange made reporting n tools cost n
   * getTools() of up to n tools each, 46 s for 2,000 tools in Chromium 156) */
  let entries = new Map();
  // Whether the browser's list may have changed since the last look: only
  // a toolchange (or the document's parsing ending, for its forms) makes
  // it so. A getTools() while the document goes away can bring down
  // Chromium 156's browser process: no look without a reason. A document
  // still loading when this starts (document_start: no page script has
  // run, no form is parsed) has no tools yet, and its first report needs
  // no look, which would come as the navigation commits; a relay started
  // late, in a document already there, looks at once.
  let stale = doc.readyState !== 'loading';

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
      p = apply(nGetTools, mc, []);
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
    const declarative = declaredNames();
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
      if (w === undefined || w === null) mine = declarative.has(t.name) || !!(witness && witness.registered(t.name));
      if (!mine) continue;
      const meta = copyMeta(t, null);
      if (meta) next.set(meta.name, { meta, tool: t, nativeHints: copyHints(t.annotations, true), declared: declarative.has(meta.name) });
    }
    entries = next;
  }

  // Runs a tool: directly in the page's world where its witness holds the
  // tool's execute (witness.js there: what the browser's executeTool does,
  // without its trips through the browser process), else through the
  // browser's executeTool: a form tool, a tool the witness did not see
  // registered, and every call when the user chose executeTool (how.via,
  // worker/callpath.js: DevTools then lists the bridge's calls).
  function run(entry, input, signal, how) {
    const viaExecuteTool = !!how && how.via === 'executeTool';
    if (witness && !viaExecuteTool && !entry.declared && witness.canRun(entry.meta.name)) {
      let text;
      try {
        text = JSON.stringify(input);
      } catch {
        text = undefined;
      }
      if (text !== undefined) return runDirect(entry, text, input, signal);
    }
    return viaBrowser(entry, input, signal);
  }

  // A direct call: the page's world runs it and tells its outcome; a
  // cancelled call rejects with the signal's reason at once, as
  // executeTool does. Where the page's world no longer holds the tool,
  // the call goes through executeTool.
  function runDirect(entry, text, input, signal) {
    return new PromiseCtor((resolve, reject) => {
      if (signal.aborted) {
        reject(signal.reason);
        return;
      }
      let done = false;
      let cancel = null;
      const onAbort = () => {
        if (done) return;
        done = true;
        if (cancel) cancel();
        reject(signal.reason);
      };
      apply(addListener, signal, ['abort', onAbort, { once: true }]);
      cancel = witness.runDirect(entry.meta.name, text, (o) => {
        if (done) return;
        done = true;
        apply(removeListener, signal, ['abort', onAbort]);
        if (o.gone) then(viaBrowser(entry, input, signal), resolve, reject);
        else if (o.ok) resolve(parseResultString(o.value));
        else reject(o.error);
      });
    });
  }

  // Runs a tool through the browser's executeTool: its JSON text is the
  // result; null (not the JSON text "null") means that the call navigated
  // the page (a declarative form's submission). A tool's failure is the
  // page's own error where the witness saw it.
  function viaBrowser(entry, input, signal) {
    const name = entry.meta.name;
    const settled = (s) => {
      if (s === null) throw navigatedError(name);
      return parseResultString(s);
    };
    const execute = () => (entry.declared ? runDeclared(entry, input, signal, settled) : then(apply(nExecute, mc, [entry.tool, input, { signal }]), settled));
    if (!witness) return execute();
    witness.calling(name, 1);
    let key;
    try {
      key = JSON.stringify(input);
    } catch {
      key = undefined;
    }
    return new PromiseCtor((resolve, reject) => {
      let done = false;
      let stop = () => {};
      const finish = (o) => {
        if (done) return;
        done = true;
        stop();
        witness.calling(name, -1);
        if (o.ok) resolve(o.value);
        else reject(o.error);
      };
      // The page's own outcome, as soon as it settled (a cancelled call:
      // the browser's abort decides).
      if (key !== undefined) stop = witness.awaitOutcome(name, key, (o) => {
        if (!signal.aborted) finish(o);
      });
      let p;
      try {
        p = execute();
      } catch (error) {
        finish({ ok: false, error });
        return;
      }
      then(resolved(p), (value) => finish({ ok: true, value }), (error) => {
        const own = signal.aborted ? undefined : witness.takeError(name);
        finish({ ok: false, error: own || error });
      });
    });
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
    if (!getAttr) return then(apply(nExecute, mc, [entry.tool, input, { signal }]), settled);
    return new PromiseCtor((resolve, reject) => {
      let done = false;
      const onSubmit = (e) => {
        const form = e.target;
        if (done || !isObject(form) || apply(getAttr, form, ['toolname']) !== name) return;
        // After the page's own submit listeners (a task later).
        queueTask(() => {
          if (!e.defaultPrevented && navigatesHere(form, e.submitter, attr)) finish({ ok: false, error: navigatedError(name) });
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
      let p;
      try {
        p = apply(nExecute, mc, [entry.tool, input, { signal }]);
      } catch (error) {
        finish({ ok: false, error });
        return;
      }
      then(resolved(p), (s) => {
        if (done) return;
        let value;
        try {
          value = settled(s);
        } catch (error) {
          finish({ ok: false, error });
          return;
        }
        finish({ ok: true, value });
      }, (error) => finish({ ok: false, error }));
    });
  }


  const toolsChanged = () => {
    stale = true;
    changed();
  };
  apply(addListener, mc, ['toolchange', toolsChanged]);
  apply(addListener, doc, ['DOMContentLoaded', toolsChanged, { once: true }]);

  return {
    // This document's tools, with the hints, outputSchema and title the
    // page gave registerTool where the witness saw them.
    tools() {
      const out = new Map();
      for (const [name, e] of entries) {
        const seen = witness ? witness.registered(name) : undefined;
        const meta = { ...e.meta };
        const hints = seen ? seen.hints : e.nativeHints;
        if (hints) meta.annotations = hints;
        else delete meta.annotations;
        if (!meta.outputSchema && seen && seen.outputSchema) meta.outputSchema = seen.outputSchema;
        // The title in annotations, which Chromium 156 does not keep.
        if (!meta.title && seen && seen.title) meta.title = seen.title;
        out.set(name, { meta, run: (input, signal, how) => run(e, input, signal, how) });
      }
      return out;
    },
    // Reads the browser's list of tools again, then calls done (the bridge
    // does before each report).
    refresh,
    // Marks the list as possibly changed (the witness saw a registration end).
    stale() {
      toolsChanged();
    },
  };
}

/** Whether v is the browser's own document.modelContext as this world sees it. */
export function isNativeModelContext(v) {
  if (!isObject(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return !!proto && typeof proto.getTools === 'function' && typeof proto.executeTool === 'function' && typeof proto.registerTool === 'function';
}
