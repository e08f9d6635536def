// The page world's witness of the browser's own document.modelContext
// (native mode). Tool lists go from the isolated world straight to the
// browser (content/isolated/browserwebmcp.js); what only this world sees is told
// to it here, synchronously, as it happens:
//  - the hints and outputSchema that the page gave registerTool (the
//    browser's getTools() fills in defaults, and Chromium 156 keeps no
//    outputSchema);
//  - the outcome of the page's execute of a bridge call that went through
//    the browser's executeTool, as soon as it settles: its value, one
//    browser round trip before executeTool resolves, or its own error (the
//    browser's executeTool rejects with a generic UnknownError, while CDP's
//    agent gets the page's exception). The isolated world says which tools
//    have such calls under way (hearCalls): other calls cost nothing more.
// And it runs the bridge's calls of the tools whose execute it holds (issue
// PERF2, "direct calls"): the isolated world asks, synchronously, and this
// world calls execute(input, {signal}) as the browser's executeTool does —
// the same input (a fresh object from the call's JSON text), the same
// client (a plain object with the call's signal), toolactivated at the
// ModelContext in the task after, toolcancel when the call is cancelled,
// and the same text of the result (resultText) — without executeTool's
// trips through the browser process, which cost more CPU per call than the
// rest of the bridge's chain (docs/performance.md). What the browser's
// agent would see and these calls do not: their events are not trusted
// (isTrusted is false), and DevTools' WebMCP domain does not list them.
// To do so it wraps ModelContext.prototype.registerTool (same name, length
// and behaviour) and gives the browser a tool whose execute reports its
// failures; nothing else of the page's call changes.

import { AbortCtl, AbortSig, ObjectProto, PromiseCtor, addListener, apply, create, defineProperty, dispatch, getOwnPropertyDescriptor, getPrototypeOf, isObject, jsonParse, jsonStringify, microtask, ownKeys, queueTask, resolved, then } from '../source/builtins.js';

import { copyHints, copySchema, copyTitle, errorText } from '../source/toolcopy.js';

/** The longest result (JSON text, UTF-16 units) told early; a longer one waits for executeTool. */
export const MAX_EARLY = 64 << 10;

/** What Chromium 156's executeTool rejects with when the result has no text (and so do direct calls). */
export const UNKNOWN_FAILURE = 'Tool was executed but the invocation failed. For example, the script function threw an error';

/** Whether the browser's client for execute is what direct calls give: a plain object with a signal alone (Chromium 156). */
function plainClient(client) {
  try {
    if (!isObject(client) || getPrototypeOf(client) !== ObjectProto) return false;
    const keys = ownKeys(client);
    return keys.length === 1 && keys[0] === 'signal';
  } catch {
    return false;
  }
}

/**
 * The text that the browser's executeTool resolves to for what execute
 * returned (measured in Chromium 156): a string itself; an object its JSON
 * text; a function or undefined "undefined"; another primitive as
 * String() writes it (NaN, 10n). undefined where there is none (JSON that
 * fails, a symbol: the call fails).
 */
export function resultText(v) {
  if (typeof v === 'string') return v;
  if (v === undefined || typeof v === 'function') return 'undefined';
  if (typeof v === 'symbol') return undefined;
  if (typeof v !== 'object' || v === null) return String(v);
  try {
    const s = jsonStringify(v);
    return s === undefined ? 'undefined' : s;
  } catch {
    return undefined;
  }
}

/**
 * @param {object} o
 * @param {object} o.nativeMC  the browser's document.modelContext
 * @param {object} o.proto  its prototype (ModelContext.prototype)
 * @param {(msg: object) => void} o.tell  tells the isolated world, synchronously
 *   (it may not listen yet: what it must know of the registrations is told
 *   again by retell)
 * @param {{ToolActivatedEvent?: Function, ToolCancelEvent?: Function}} [o.events]
 *   the browser's event classes, taken before page scripts ran (none: no
 *   events fire for direct calls)
 * @param {boolean} [o.direct]  whether this world may run the bridge's calls
 *   (false where the browser has a ModelContextClient of its own, which a
 *   plain client object would not match)
 * @returns {{retell(): void, hearCalls(m: object): void}}
 */
export function witnessNative({ nativeMC, proto, tell, events = {}, direct = true }) {
  const nRegister = proto.registerTool;
  /** name -> {hints, outputSchema, exec}: the registrations that succeeded and hold */
  const seen = new Map();
  /** call id -> the AbortController of a direct call under way */
  const running = new Map();

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
  // soon as it settles: {witness: "settled", name, input (JSON text), ok,
  // value (the text executeTool resolves to, when at most MAX_EARLY units)
  // | message}. The isolated world answers the call from it, one browser
  // round trip before executeTool resolves.
  function wrapExecute(exec, name) {
    const settled = (input, ok, v) => {
      if (!(calls.get(name) > 0)) return;
      const msg = { witness: 'settled', name, input, ok };
      if (ok) {
        // The text executeTool will resolve to (a string itself, "NaN",
        // an object's JSON), read by the isolated world as it reads that.
        const text = resultText(v);
        if (text === undefined || text.length > MAX_EARLY) return; // executeTool's answer decides
        msg.value = text;
      } else msg.message = errorText(v);
      say(msg);
    };
    return function execute(input, client) {
      if (direct && !plainClient(client)) {
        // The browser hands execute more than the signal: direct calls,
        // whose client has only that, would not be what it runs.
        direct = false;
        say({ witness: 'direct', on: false });
      }
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
        rec = { name: String(tool.name), hints: copyHints(tool.annotations, false) || null, outputSchema: copySchema(tool.outputSchema) || null, title: copyTitle(tool) || null, signal, exec };
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
        const info = { hints: rec.hints, outputSchema: rec.outputSchema, title: rec.title };
        seen.set(rec.name, { info, exec: rec.exec });
        say({ witness: 'registered', name: rec.name, ...info, direct });
        if (rec.signal) {
          apply(addListener, rec.signal, ['abort', () => {
            if (seen.get(rec.name)?.info !== info) return;
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

  const fire = (C, type, toolName) => {
    if (typeof C !== 'function') return;
    try {
      apply(dispatch, nativeMC, [new C(type, { __proto__: null, toolName })]); // no prototype: no page getter reads it
    } catch {
      // a listener's error is the page's
    }
  };

  // A direct call: execute(input, {signal}) of the tool as registered,
  // started in a microtask (not inside the isolated world's dispatch);
  // told back as {witness: "done", id, ok, value (the result's text) |
  // message}, or {witness: "done", id, gone: true} when this world holds
  // no execute of that name (the isolated world then calls executeTool).
  function runDirect(id, name, inputText) {
    const reg = seen.get(name);
    if (!reg || !direct) {
      say({ witness: 'done', id, gone: true });
      return;
    }
    const ctl = new AbortCtl();
    running.set(id, ctl);
    microtask(() => {
      if (running.get(id) !== ctl) return; // cancelled before it started
      const done = (msg) => {
        if (running.get(id) !== ctl) return; // cancelled: the caller has its answer
        running.delete(id);
        say(msg);
      };
      let p;
      try {
        p = resolved(apply(reg.exec, undefined, [jsonParse(inputText), { signal: ctl.signal }]));
      } catch (e) {
        p = PromiseCtor.reject(e);
      }
      queueTask(() => fire(events.ToolActivatedEvent, 'toolactivated', name));
      then(p, (v) => {
        const text = resultText(v);
        done(text === undefined ? { witness: 'done', id, ok: false, message: UNKNOWN_FAILURE } : { witness: 'done', id, ok: true, value: text });
      }, (e) => done({ witness: 'done', id, ok: false, message: errorText(e) }));
    });
  }

  // A cancelled direct call: as the browser's executeTool does, execute's
  // signal aborts a task later, and toolcancel fires in the task after.
  function cancelDirect(id, name) {
    const ctl = running.get(id);
    if (!ctl) return;
    running.delete(id);
    queueTask(() => {
      ctl.abort();
      queueTask(() => fire(events.ToolCancelEvent, 'toolcancel', name));
    });
  }

  return {
    /**
     * The isolated world's word: n (1 or -1) more of its executeTool calls
     * of name under way; or {run: id, name, input (JSON text)}, a direct
     * call; or {cancel: id, name}, its end.
     */
    hearCalls(m) {
      if (!isObject(m) || typeof m.name !== 'string') return;
      if (typeof m.run === 'number' && typeof m.input === 'string') {
        runDirect(m.run, m.name, m.input);
        return;
      }
      if (typeof m.cancel === 'number') {
        cancelDirect(m.cancel, m.name);
        return;
      }
      if (m.n !== 1 && m.n !== -1) return;
      const c = (calls.get(m.name) || 0) + m.n;
      if (c > 0) calls.set(m.name, c);
      else calls.delete(m.name);
    },
    /** Tells the isolated world every registration that holds (it listens now). */
    retell() {
      for (const [name, reg] of seen) say({ witness: 'registered', name, ...reg.info, direct });
    },
  };
}
