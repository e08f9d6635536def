// The page world's witness of the browser's own document.modelContext
// (native mode). Calls and tool lists go from the isolated world straight
// to the browser (content/isolated/native.js); what only this world sees is
// told to it here, synchronously, as it happens:
//  - the hints and outputSchema that the page gave registerTool (the
//    browser's getTools() fills in defaults, and Chromium 156 keeps no
//    outputSchema);
//  - the page's own error when a tool's execute throws or rejects (the
//    browser's executeTool rejects with a generic UnknownError, while
//    CDP's agent gets the page's exception).
// To do so it wraps ModelContext.prototype.registerTool (same name, length
// and behaviour) and gives the browser a tool whose execute reports its
// failures; nothing else of the page's call changes.

import { AbortSig, addListener, apply, create, defineProperty, getOwnPropertyDescriptor, isObject, resolved, then } from '../frame/builtins.js';
import { copyHints, copySchema, errorText } from '../frame/toolcopy.js';

/**
 * @param {object} o
 * @param {object} o.nativeMC  the browser's document.modelContext
 * @param {object} o.proto  its prototype (ModelContext.prototype)
 * @param {(msg: object) => void} o.tell  tells the isolated world, synchronously
 *   (it may not listen yet: what it must know of the registrations is told
 *   again by retell)
 * @returns {{retell(): void}}
 */
export function witnessNative({ nativeMC, proto, tell }) {
  const nRegister = proto.registerTool;
  /** name -> {hints, outputSchema}: the registrations that succeeded and hold */
  const seen = new Map();

  const say = (msg) => {
    try {
      tell(msg);
    } catch {
      // the isolated world's problem: the page's call goes on
    }
  };

  function wrapExecute(exec, name) {
    const fail = (e) => say({ witness: 'error', name, message: errorText(e) });
    return function execute(input, client) {
      let result;
      try {
        result = apply(exec, this, [input, client]);
      } catch (e) {
        fail(e);
        throw e;
      }
      then(resolved(result), undefined, fail);
      return result;
    };
  }

  function register(tool, options) {
    let derived = tool;
    let rec = null;
    try {
      const exec = isObject(tool) ? tool.execute : undefined;
      const signal = isObject(options) ? options.signal : undefined;
      if (typeof exec === 'function' && (signal === undefined || (signal instanceof AbortSig && !signal.aborted))) {
        rec = { name: String(tool.name), hints: copyHints(tool.annotations, false) || null, outputSchema: copySchema(tool.outputSchema) || null, signal };
        derived = create(tool, { execute: { value: wrapExecute(exec, rec.name), enumerable: true, configurable: true, writable: true } });
      }
    } catch {
      derived = tool;
      rec = null;
    }
    const p = apply(nRegister, nativeMC, [derived, options]);
    if (rec) {
      then(p, () => {
        if (rec.signal && rec.signal.aborted) return;
        const info = { hints: rec.hints, outputSchema: rec.outputSchema };
        seen.set(rec.name, info);
        say({ witness: 'registered', name: rec.name, ...info });
        if (rec.signal) {
          apply(addListener, rec.signal, ['abort', () => {
            if (seen.get(rec.name) !== info) return;
            seen.delete(rec.name);
            say({ witness: 'unregistered', name: rec.name });
          }, { once: true }]);
        }
      }, () => {});
    }
    return p;
  }

  const registerTool = {
    registerTool(tool, options) {
      if (this !== nativeMC) return apply(nRegister, this, arguments);
      return register(tool, options);
    },
  }.registerTool;
  defineProperty(registerTool, 'length', { value: nRegister.length });
  defineProperty(proto, 'registerTool', { ...getOwnPropertyDescriptor(proto, 'registerTool'), value: registerTool });

  return {
    /** Tells the isolated world every registration that holds (it listens now). */
    retell() {
      for (const [name, info] of seen) say({ witness: 'registered', name, ...info });
    },
  };
}
