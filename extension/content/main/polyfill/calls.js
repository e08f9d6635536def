// Running the polyfill's tools: a tool's execute(input, {signal}) under the
// caller's signal, the toolactivated and toolcancel events around it (at
// the ModelContext, and at the window for the document's own), the
// toolchange event queued in a task, and a form tool's call.

import { AbortCtl, Evt, PromiseCtor, addListener, apply, dispatch, removeListener, resolved, then } from '../../source/builtins.js';
import { errorCode } from '../../source/toolcopy.js';

/**
 * @param {object} o
 * @param {object} o.win  the window, where the document's own ModelContext's tool events fire too
 * @param {(fn: () => void) => void} o.queueTask  queues a task
 * @param {{ToolActivatedEvent: Function, ToolCancelEvent: Function}} o.events
 * @param {() => object | null} o.instance  the document's own ModelContext (null until made)
 * @returns {{fireTool(mc: object, C: Function, type: string, toolName: string): void,
 *   queueChange(mc: object, after?: () => void): void, invoke(mc: object, rec: object, input: object, outer?: AbortSignal): Promise<unknown>}}
 */
export function createCalls({ win, queueTask: queueATask, events, instance }) {
  const { ToolActivatedEvent, ToolCancelEvent } = events;

  function fire(mc, event) {
    apply(dispatch, mc, [event]);
  }

  // Fires toolactivated or toolcancel at the ModelContext, then (as the
  // spec's tests want; Chromium 156 does not yet) at the window.
  function fireTool(mc, C, type, toolName) {
    fire(mc, new C(type, { toolName }));
    if (mc !== instance()) return;
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

  return { fireTool, queueChange, invoke };
}

// Runs a form tool; with nullOnNavigation, a navigation is null rather
// than the navigated error.
export function callForm(forms, name, input, signal, nullOnNavigation) {
  const p = forms.run(name, input, signal, nullOnNavigation);
  if (!nullOnNavigation) return p;
  return then(p, undefined, (e) => {
    if (errorCode(e) === 'navigated') return null;
    throw e;
  });
}
