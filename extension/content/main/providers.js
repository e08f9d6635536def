// Context providers: the bridge's UI-context API, the same on the browser's
// own modelContext, the polyfill and a page's own object. A provider says
// what the user is looking at, as {summary, data}, or undefined for "nothing
// relevant now":
//
//   registerContextProvider({id, description?, getContext}, {signal}?)  -> Promise
//   unregisterContextProvider(id)
//   contextChanged(id?)
//
// This document's providers are one registry, whichever object they were
// registered through.

import { MAX_PROVIDERS, PROVIDER_ID_PATTERN } from '../../lib/snapshot.js';
import { AbortSig, DOMExc, PromiseCtor, addListener, apply, defineProperty, isObject, jsonStringify, resolved } from '../source/builtins.js';
import { sampleProviders } from './sample.js';

function providerError(method, message) {
  return new TypeError(`Failed to execute '${method}' on 'ModelContext': ${message}`);
}

/**
 * @param {object} o
 * @param {() => void} o.changed  the set of providers changed
 * @param {() => void} o.contextChanged  the page called contextChanged()
 * @param {{setTimer?: Function, clearTimer?: Function}} [o.timers]  for the
 *   time box of a sample (default: the page's setTimeout and clearTimeout)
 */
export function createProviders({ changed, contextChanged, timers }) {
  /** id -> {id, description, getContext, self}, in registration order */
  const registry = new Map();

  // Reads a provider the way registerTool reads a tool: each member once.
  function readProvider(provider, method) {
    if (!isObject(provider)) throw providerError(method, "parameter 1 is not of type 'ContextProvider'.");
    const description = provider.description;
    const getContext = provider.getContext;
    const id = provider.id;
    if (id === undefined) throw providerError(method, "Failed to read the 'id' property from 'ContextProvider': Required member is undefined.");
    if (typeof id !== 'string') throw providerError(method, "Failed to read the 'id' property from 'ContextProvider': The provided value is not a string.");
    if (typeof getContext !== 'function') {
      throw providerError(method, "Failed to read the 'getContext' property from 'ContextProvider': " +
        (getContext === undefined ? 'Required member is undefined.' : 'The given value is not a function.'));
    }
    if (!PROVIDER_ID_PATTERN.test(id)) {
      throw new DOMExc('Invalid context provider id: use 1 to 200 characters without control characters, like "plugin.Thing#sub"', 'InvalidStateError');
    }
    if (registry.has(id)) throw new DOMExc(`Duplicate context provider id ${jsonStringify(id)}`, 'InvalidStateError');
    if (registry.size >= MAX_PROVIDERS) throw new DOMExc(`Too many context providers: at most ${MAX_PROVIDERS} per document`, 'QuotaExceededError');
    return {
      id,
      description: description === undefined || description === null ? '' : String(description),
      getContext,
      self: provider,
    };
  }

  function register(provider, options) {
    const method = 'registerContextProvider';
    let rec;
    let signal;
    try {
      if (options !== undefined && options !== null && !isObject(options)) {
        throw providerError(method, "parameter 2 is not of type 'ContextProviderOptions'.");
      }
      signal = isObject(options) ? options.signal : undefined;
      if (signal !== undefined && !(signal instanceof AbortSig)) {
        throw providerError(method, "Failed to read the 'signal' property from 'ContextProviderOptions': Failed to convert value to 'AbortSignal'.");
      }
      rec = readProvider(provider, method);
      if (signal && signal.aborted) return PromiseCtor.reject(signal.reason);
    } catch (e) {
      return PromiseCtor.reject(e);
    }
    registry.set(rec.id, rec);
    if (signal) {
      apply(addListener, signal, ['abort', () => {
        if (registry.get(rec.id) === rec) {
          registry.delete(rec.id);
          changed();
        }
      }, { once: true }]);
    }
    changed();
    return resolved(undefined);
  }

  function unregister(id) {
    const key = String(id);
    if (!registry.has(key)) return;
    registry.delete(key);
    changed();
  }

  // The three methods, for an object whose receiver check is ok(this).
  function methods(ok) {
    const check = (that, method) => {
      if (!ok(that)) throw new TypeError(`Failed to execute '${method}' on 'ModelContext': Illegal invocation`);
    };
    return {
      registerContextProvider(provider, options) {
        try {
          check(this, 'registerContextProvider');
        } catch (e) {
          return PromiseCtor.reject(e);
        }
        return register(provider, options);
      },
      unregisterContextProvider(id) {
        check(this, 'unregisterContextProvider');
        unregister(id);
      },
      contextChanged(id) { // eslint-disable-line no-unused-vars
        check(this, 'contextChanged');
        // The relay samples again soon (it coalesces these with user input).
        contextChanged();
      },
    };
  }

  return {
    /** [{id, description?}] of every provider, in registration order. */
    defs() {
      const out = [];
      for (const rec of registry.values()) {
        const d = { id: rec.id };
        if (rec.description) d.description = rec.description;
        out.push(d);
      }
      return out;
    },

    /** Samples the providers of the moment (see sampleProviders); done gets the snapshots. */
    sample(done) {
      sampleProviders([...registry.values()], done, timers);
    },

    /**
     * Puts the API on obj (a prototype or an object) as non-enumerable
     * properties, replacing any of the same name; ok(this) says whether a
     * receiver is one of the objects it belongs to.
     */
    addMethods(obj, ok) {
      for (const [name, fn] of Object.entries(methods(ok))) {
        try {
          defineProperty(obj, name, { value: fn, writable: true, configurable: true, enumerable: false });
        } catch {
          // a frozen object: it goes without
        }
      }
    },
  };
}
