// Same-origin frames share their tools, as in the browser: getTools() in any
// document of a frame tree lists the tools of every same-origin document in
// it, and executeTool runs a tool in the document that registered it (whose
// ModelContext fires toolactivated). Each document's polyfill runs in its
// own realm; it publishes a handle on its window under a registered symbol,
// which the polyfills of its same-origin frames read. The handle gives
// nothing a same-origin page could not reach through getTools() and
// executeTool() anyway.

import { defineProperty } from '../../source/builtins.js';

const KEY = Symbol.for('webmcp-bridge.polyfill.frame');

/**
 * Publishes this document's handle on its window:
 * {tools(): object[], run(name, inputJSON): {promise, abort(reason), form} | null, changed(): void}.
 */
export function publish(win, handle) {
  defineProperty(win, KEY, { value: handle, configurable: false, enumerable: false, writable: false });
}

/** The handle a window published, or undefined (none, or cross-origin). */
export function handleOf(w) {
  try {
    return w[KEY];
  } catch {
    return undefined;
  }
}

/**
 * The origin of w's document (self.origin): a frame without src, or
 * about:blank, has its parent's, where location.origin says "null".
 */
export function originOf(w) {
  try {
    const o = w.origin;
    if (typeof o === 'string') return o;
  } catch {
    // cross-origin
  }
  try {
    return w.location.origin;
  } catch {
    return '';
  }
}

/**
 * The windows of win's frame tree that share its origin and run the
 * polyfill: from the highest same-origin ancestor down, each before its
 * frames.
 */
export function sameOriginWindows(win) {
  const origin = originOf(win);
  if (!origin) return [win];
  const ok = (w) => {
    try {
      return originOf(w) === origin && handleOf(w) !== undefined;
    } catch {
      return false;
    }
  };
  let root = win;
  try {
    while (root.parent && root.parent !== root && ok(root.parent)) root = root.parent;
  } catch {
    // a cross-origin ancestor: stop there
  }
  const out = [];
  const walk = (w, depth) => {
    out.push(w);
    if (depth > 32) return;
    let n = 0;
    try {
      n = w.frames.length;
    } catch {
      return;
    }
    for (let i = 0; i < n; i++) {
      let f;
      try {
        f = w.frames[i];
      } catch {
        continue;
      }
      if (ok(f)) walk(f, depth + 1);
    }
  };
  walk(root, 0);
  if (!out.includes(win)) out.unshift(win);
  return out;
}
