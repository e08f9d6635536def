// The browser's own navigator.modelContext (Firefox's prototype), whose
// tools the bridge reads by wrapping its registerTool, unregisterTool,
// provideContext and clearContext, and by listing what it already holds
// (getTools, listTools or list); and a page's own modelContext, an object
// the page puts on navigator (which the bridge leaves alone, as the browser
// does) or defines on its document, noticed when the tools are next looked
// at (checkReplaced). The page keeps its own object, which gets the
// bridge's context API, and its tools are not read: they are in the page
// runtime's registry, not the browser's WebMCP (nor the polyfill standing
// in for it), and the browser's own agent does not see them either (issue
// SEC2 item 9: @mcp-b/global 1.2 on a navigator without modelContext). A
// runtime that registers its tools with document.modelContext (as
// @mcp-b/global 5 does) has them read there.

import {
  AbortSig, PromiseCtor, addListener, apply, defineProperty, getOwnPropertyDescriptor, isObject, resolved, then,
} from '../source/builtins.js';
import { copyMeta, parseResultString } from '../source/toolcopy.js';

function wrapMethod(obj, name, make) {
  let orig;
  try {
    orig = obj[name];
  } catch {
    return;
  }
  if (typeof orig !== 'function') return;
  const wrapper = make(orig);
  try {
    obj[name] = wrapper;
  } catch {
    // read-only: try to define it instead
  }
  try {
    if (obj[name] !== wrapper) defineProperty(obj, name, { value: wrapper, writable: true, configurable: true, enumerable: false });
  } catch {
    // frozen: its later changes stay unseen; what it lists is still read
  }
}

function runForeign(src, rec, input, signal) {
  if (typeof rec.execute === 'function') {
    return resolved(apply(rec.execute, rec.tool, [input, { signal }]));
  }
  const exec = src.obj.executeTool;
  if (typeof exec !== 'function') return PromiseCtor.reject(new Error(`tool ${rec.meta.name} has no execute function`));
  return then(resolved(apply(exec, src.obj, [rec.handle, input, { signal }])), parseResultString);
}

function recordForeign(src, tool, how, handle) {
  const meta = copyMeta(tool);
  if (!meta) return null;
  let execute;
  try {
    execute = tool.execute;
  } catch {
    execute = undefined;
  }
  const rec = { meta, tool, execute, how, handle: handle === undefined ? tool : handle };
  src.tools.set(meta.name, rec);
  return rec;
}

/**
 * @param {object} o
 * @param {() => void} o.changed  the tools of an adopted object changed
 * @param {(obj: object, ok: (that: unknown) => boolean) => void} o.addContextApi
 *   puts the context-provider API on an object
 */
export function createAdopter({ changed, addContextApi }) {
  /** The bridge's own objects, never adopted. */
  const ours = new Set();
  /** @type {Map<object, {obj: object, tools: Map<string, object>}>} */
  const foreign = new Map();
  /** Where a page may define its own modelContext (navigator, the document). */
  const targets = [];

  function forgetForeign(src, rec) {
    if (src.tools.get(rec.meta.name) === rec) {
      src.tools.delete(rec.meta.name);
      changed();
    }
  }

  /** The page's own objects seen (they get the context API, once). */
  const seen = new Set();

  function adopt(obj, readTools) {
    if (!isObject(obj) || ours.has(obj) || foreign.has(obj) || seen.has(obj)) return;
    // The page's own object gets the bridge's context API, unless it has one.
    let has = false;
    try {
      has = typeof obj.registerContextProvider === 'function';
    } catch {
      has = true;
    }
    if (!has) addContextApi(obj, (that) => that === obj);
    if (!readTools) {
      seen.add(obj);
      return;
    }
    const src = { obj, tools: new Map() };
    foreign.set(obj, src);
    wrapMethod(obj, 'registerTool', (orig) => function registerTool(tool, options) {
      const rv = apply(orig, this, arguments);
      try {
        const rec = isObject(tool) ? recordForeign(src, tool, 'register') : null;
        if (rec) {
          const signal = isObject(options) ? options.signal : undefined;
          if (signal instanceof AbortSig) {
            if (signal.aborted) forgetForeign(src, rec);
            else apply(addListener, signal, ['abort', () => forgetForeign(src, rec), { once: true }]);
          }
          if (isObject(rv) && typeof rv.then === 'function') then(rv, undefined, () => forgetForeign(src, rec));
          if (isObject(rv) && typeof rv.unregister === 'function') {
            const unregister = rv.unregister;
            rv.unregister = function () {
              forgetForeign(src, rec);
              return apply(unregister, this, arguments);
            };
          }
          changed();
        }
      } catch {
        // an odd object: the page still got its answer
      }
      return rv;
    });
    wrapMethod(obj, 'unregisterTool', (orig) => function unregisterTool(name) {
      const rv = apply(orig, this, arguments);
      const rec = src.tools.get(String(name));
      if (rec) forgetForeign(src, rec);
      return rv;
    });
    wrapMethod(obj, 'provideContext', (orig) => function provideContext(context) {
      const rv = apply(orig, this, arguments);
      try {
        for (const rec of [...src.tools.values()]) if (rec.how === 'provide') src.tools.delete(rec.meta.name);
        const list = isObject(context) ? context.tools : undefined;
        if (list && typeof list[Symbol.iterator] === 'function') {
          for (const tool of list) if (isObject(tool)) recordForeign(src, tool, 'provide');
        }
      } catch {
        // keep what could be read
      }
      changed();
      return rv;
    });
    wrapMethod(obj, 'clearContext', (orig) => function clearContext() {
      const rv = apply(orig, this, arguments);
      src.tools.clear();
      changed();
      return rv;
    });
    // Tools it holds already: read them through its own listing method.
    for (const method of ['getTools', 'listTools', 'list']) {
      let fn;
      try {
        fn = obj[method];
      } catch {
        continue;
      }
      if (typeof fn !== 'function') continue;
      const take = (items) => {
        if (!isObject(items) || typeof items[Symbol.iterator] !== 'function') return;
        for (const item of items) {
          if (!isObject(item)) continue;
          let name;
          try {
            name = item.name;
          } catch {
            continue;
          }
          if (typeof name === 'string' && !src.tools.has(name)) recordForeign(src, item, 'listed', method === 'getTools' ? item : name);
        }
        changed();
      };
      try {
        const r = apply(fn, obj, []);
        if (isObject(r) && typeof r.then === 'function') then(resolved(r), take, () => {});
        else take(r);
      } catch {
        // not a listing method after all
      }
      break;
    }
    changed();
  }

  return {
    /** Marks one of the bridge's own objects, which is never adopted. */
    markOurs(obj) {
      ours.add(obj);
    },

    /**
     * Adopts obj now: the browser's own navigator.modelContext (Firefox's
     * prototype, a getter on Navigator.prototype that checkReplaced, which
     * looks at own properties only, never sees).
     */
    adoptNow(obj) {
      adopt(obj, true);
    },

    /** Watches target (navigator, the document) for a modelContext the page puts on it. */
    watch(target) {
      targets.push(target);
    },

    /** Gives the context API to what the page put on a watched target (its tools are not read). */
    checkReplaced() {
      for (const target of targets) {
        let d;
        try {
          d = getOwnPropertyDescriptor(target, 'modelContext');
        } catch {
          continue;
        }
        if (!d) continue;
        let v;
        try {
          v = 'value' in d ? d.value : d.get ? apply(d.get, target, []) : undefined;
        } catch {
          continue;
        }
        adopt(v, false);
      }
    },

    /** Adds to all (name -> {meta, run}) the browser's navigator.modelContext's tools whose names it lacks. */
    addTools(all) {
      for (const src of foreign.values()) {
        for (const [name, rec] of src.tools) {
          if (!all.has(name)) all.set(name, { meta: rec.meta, run: (input, signal) => runForeign(src, rec, input, signal) });
        }
      }
      return all;
    },
  };
}
