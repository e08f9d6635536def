// What a document shares with its same-origin frames: the handle that its
// polyfill publishes on its window (sameorigin.js), through which their
// polyfills list its tools, run them here, hear of changes and read its
// permissions policy; and the calls of other documents that it runs, told
// when it goes away (its frame removed or navigated), which ends them there.

import { AbortCtl, addListener, apply, jsonParse, then } from '../../source/builtins.js';
import { publish } from './sameorigin.js';

/**
 * Publishes this document's handle on win, once its ModelContext, links and
 * policy are made.
 * @param {object} o
 * @param {object} o.win  the window
 * @param {WeakMap<object, {tools: Map<string, object>}>} o.internals  each ModelContext's registry
 * @param {object} o.instance  the document's own ModelContext
 * @param {object | null} o.forms  its declarative tools (forms.js), or null
 * @param {object | null} o.links  its links to cross-origin documents (links.js), or null
 * @param {{allowed: boolean}} o.policy  its permissions policy "tools" (policy.js)
 * @param {() => object[]} o.ownTools  its own tools as getTools() lists them
 * @param {(mc: object, rec: object, input: object, signal?: AbortSignal) => Promise<unknown>} o.invoke  runs a tool (calls.js)
 * @param {(name: string, input: object, signal: AbortSignal | undefined, nullOnNavigation: boolean) => Promise<unknown>} o.runForm
 *   runs a form tool (calls.js)
 * @param {(mc: object) => void} o.queueChange  queues toolchange (calls.js)
 */
export function shareWithFrames({ win, internals, instance, forms, links, policy, ownTools, invoke, runForm, queueChange }) {
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
  // What same-origin frames' polyfills read of this document.
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
}
