// Calls and notices across a document's frame tree, through the handles
// that same-origin documents publish (sameorigin.js) and the links to
// cross-origin ones (links.js): telling the same-origin frames that this
// document's tools changed, running a same-origin frame's tool in its
// frame, and running a tool of this group for a cross-origin caller.

import { DOMExc, PromiseCtor, addListener, apply, jsonStringify, removeListener, then } from '../../source/builtins.js';
import { invocationFailed, resultText } from './execute.js';
import { createLinks } from './links.js';
import { handleOf, originOf, sameOriginWindows } from './sameorigin.js';

/** Tells the same-origin frames of win (whose lists hold its tools) that its tools changed. */
export function tellFrames(win) {
  for (const w of sameOriginWindows(win)) {
    if (w === win) continue;
    try {
      handleOf(w).changed();
    } catch {
      // a frame going away
    }
  }
}

// The same-origin frame whose tool named name executeTool runs: the
// tool's own window when it is one of them, else the first that has it.
export function frameWithTool(win, name, toolWin, origin) {
  if (toolWin === win || !sameOriginWindows(win).includes(toolWin) || originOf(toolWin) !== origin) return undefined;
  const h = handleOf(toolWin);
  try {
    if (h && h.has(name)) return h;
  } catch {
    // a frame going away
  }
  return undefined;
}

// Runs a same-origin frame's tool there (its ModelContext fires
// toolactivated); the answer as executeTool gives it here.
export function runInFrame(h, name, input, signal) {
  if (signal && signal.aborted) return PromiseCtor.reject(signal.reason);
  return new PromiseCtor((resolve, reject) => {
    let done = false;
    // The frame's document went away (removed, navigated) before the
    // tool answered: the call fails, as in Chromium 156.
    const gone = () => {
      if (done) return;
      done = true;
      if (signal) apply(removeListener, signal, ['abort', onAbort]);
      reject(new DOMExc('The operation failed for an unknown transient reason (e.g. out of memory).', 'UnknownError'));
    };
    const r = h.run(name, jsonStringify(input), gone);
    if (!r) {
      reject(new DOMExc('The operation failed for an unknown transient reason (e.g. out of memory).', 'UnknownError'));
      return;
    }
    const onAbort = () => {
      if (done) return;
      done = true;
      r.abort(signal.reason);
      reject(signal.reason);
    };
    if (signal) apply(addListener, signal, ['abort', onAbort, { once: true }]);
    then(r.promise, (v) => {
      if (done) return;
      done = true;
      if (signal) apply(removeListener, signal, ['abort', onAbort]);
      try {
        resolve(v === null && r.form ? null : resultText(v));
      } catch (e) {
        reject(e);
      }
    }, (e) => {
      if (done) return;
      done = true;
      if (signal) apply(removeListener, signal, ['abort', onAbort]);
      reject(r.form ? e : invocationFailed());
    });
  });
}

// Runs a tool of this group that a cross-origin caller of origin asked
// for; resolves to its JSON text.
export function serveLinked(win, name, origin, json, gone) {
  for (const w of sameOriginWindows(win)) {
    let h;
    try {
      h = handleOf(w);
      if (!h.exposed(origin).some((t) => t.name === name)) continue;
    } catch {
      continue;
    }
    const r = h.run(name, json, gone);
    if (!r) return null;
    return { promise: then(r.promise, (v) => resultText(v)), abort: () => r.abort() };
  }
  return null;
}

/**
 * This document's links to its cross-origin frames and parent (links.js),
 * or null where it has no frame DOM (framedom.js).
 * @param {object} o
 * @param {object} o.win  the window
 * @param {object | null} o.frameDom  its frame DOM
 * @param {() => {ready: Promise<boolean>}} o.policy  its permissions policy "tools" (policy.js), as it is now
 * @param {() => void} o.remoteChanged  the tools that cross-origin documents expose to this one changed
 * @param {(origin: string) => Promise<boolean>} [o.bridgeAt]  whether the bridge runs in documents of origin (links.js)
 */
export function startLinks({ win, frameDom, policy, remoteChanged, bridgeAt }) {
  if (!frameDom) return null;
  try {
    return createLinks({
      win,
      origin: originOf(win),
      frameElementOf: frameDom.elementOf,
      readFrame: frameDom.read,
      allowed: () => policy().ready,
      exposed: (origin) => {
        const out = [];
        for (const w of sameOriginWindows(win)) {
          try {
            for (const t of handleOf(w).exposed(origin)) out.push(t);
          } catch {
            // a frame going away
          }
        }
        return out;
      },
      run: (name, origin, json, gone) => serveLinked(win, name, origin, json, gone),
      remoteChanged,
      bridgeAt,
    });
  } catch {
    return null;
  }
}
