// The page world's witness of the browser's own document.modelContext
// (native mode). Calls and tool lists go from the isolated world straight
// to the browser (content/isolated/native.js); what only this world sees is
// told to it here, synchronously, as it happens:
//  - the hints and outputSchema that the page gave registerTool (the
//    browser's getTools() fills in defaults, and Chromium 156 keeps no
//    outputSchema);
//  - the outcome of the page's execute of a bridge call, as soon as it
//    settles: its value, one browser round trip before executeTool
//    resolves, or its own error (the browser's executeTool rejects with a
//    generic UnknownError, while CDP's agent gets the page's exception).
//    The isolated world says which tools have calls under way (hearCalls):
//    other calls cost nothing more.
// To do so it wraps ModelContext.prototype.registerTool (same name, length
// and behaviour) and gives the browser a tool whose execute reports its
// failures; nothing else of the page's call changes.

import { AbortSig, addListener, apply, create, defineProperty, getOwnPropertyDescriptor, isObject, jsonStringify, resolved, then } from '../frame/builtins.js';

/** The longest result (JSON text, UTF-16 units) told early; a longer one waits for executeTool. */
export const MAX_EARLY = 64 << 10;
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

  /** name -> the isolated world's calls of it under way (it says so: hearCalls) */
  const calls = new Map();

  // While a bridge call of the tool runs, its execute's outcome is told as
  // soon as it settles: {witness: "settled", name, input (JSON text),
  // ok, value (JSON text, when at most MAX_EARLY units) | message}. The
  // isolated world answers the call from it, one browser round trip
  // before executeTool resolves.
  function wrapExecute(exec, name) {
    const settled = (input, ok, v) => {
      if (!(calls.get(name) > 0)) return;
      const msg = { witness: 'settled', name, input, ok };
      if (ok) {
        let json;
        try {
          json = jsonStringify(v);
        } catch {
          json = undefined;
        }
        if (json === undefined || json.length > MAX_EARLY) return; // executeTool's answer decides
        msg.value = json;
      } else msg.message = errorText(v);
      say(msg);
    };
    return function execute(input, client) {
      let key;
      if (calls.get(name) > 0) {
        try {
          key = jsonStringify(input);
        } catch {
          key = undefined;
        }
      }
      let result;
      try {
        result = apply(exec, this, [input, client]);
      } catch (e) {
        if (key !== undefined) settled(key, false, e);
        throw e;
      }
      if (key !== undefined) then(resolved(result), (v) => settled(key, true, v), (e) => settled(key, false, e));
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
    /** The isolated world's word: n (1 or -1) more of its calls of name under way. */
    hearCalls(m) {
      if (!isObject(m) || typeof m.name !== 'string' || (m.n !== 1 && m.n !== -1)) return;
      const c = (calls.get(m.name) || 0) + m.n;
      if (c > 0) calls.set(m.name, c);
      else calls.delete(m.name);
    },
    /** Tells the isolated world every registration that holds (it listens now). */
    retell() {
      for (const [name, info] of seen) say({ witness: 'registered', name, ...info });
    },
  };
}
