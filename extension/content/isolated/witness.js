// What the page's world saw of the browser's own document.modelContext
// (content/main/witness.js), as the isolated world's native path
// (browserwebmcp.js) reads it: the hints and outputSchema that the page gave
// registerTool, the outcome of the page's execute of the executeTool calls
// under way from here, as soon as it settled, and the direct calls that
// the page's world runs for this one (runDirect).

import { parseResultString } from '../source/toolcopy.js';

/** The most errors kept per tool, waiting for their calls' rejections. */
const MAX_ERRORS = 64;

/**
 * @param {(m: object) => void} [tellPage]  tells the page's world's witness,
 *   synchronously, that an executeTool call of name starts ({name, n: 1})
 *   or ended ({name, n: -1}), or asks it to run a call ({run: id, name,
 *   input}) or to cancel one ({cancel: id, name})
 */
export function createWitness(tellPage = () => {}) {
  const seen = new Map(); // name -> {hints, outputSchema}
  const calls = new Map(); // name -> calls under way from here
  const errors = new Map(); // name -> [message] not matched to a call, oldest first
  const waiters = new Map(); // name -> [{input, settle}], oldest first
  const direct = new Map(); // call id -> settle, the direct calls under way
  let lastId = 0;

  function unsettled(message, name) {
    const q = errors.get(name) || [];
    if (q.length < MAX_ERRORS) q.push(message);
    errors.set(name, q);
  }

  return {
    /** A message of the page's world's witness (untrusted in shape: the page's world can be wrong). */
    hear(m) {
      if (!m || typeof m !== 'object') return;
      if (m.witness === 'done') {
        const settle = direct.get(m.id);
        if (!settle) return;
        direct.delete(m.id);
        if (m.gone === true) settle({ gone: true });
        else if (m.ok === true && typeof m.value === 'string') settle({ ok: true, value: m.value });
        else settle({ ok: false, error: pageError(String(m.message ?? '')) });
        return;
      }
      if (m.witness === 'direct' && m.on === false) {
        for (const info of seen.values()) delete info.direct;
        return;
      }
      if (typeof m.name !== 'string') return;
      if (m.witness === 'registered') {
        const info = {};
        if (m.hints && typeof m.hints === 'object') info.hints = m.hints;
        if (m.outputSchema && typeof m.outputSchema === 'object') info.outputSchema = m.outputSchema;
        if (typeof m.title === 'string' && m.title !== '') info.title = m.title;
        if (m.direct === true) info.direct = true;
        seen.set(m.name, info);
      } else if (m.witness === 'unregistered') {
        seen.delete(m.name);
      } else if (m.witness === 'settled' && calls.get(m.name) > 0) {
        // Only while a call of ours runs: another agent's (CDP's, the
        // page's own executeTool) is not ours to answer. Of two calls
        // alike, the older takes the first outcome: the browser started
        // its execution first.
        const ok = m.ok === true;
        const q = waiters.get(m.name) || [];
        const i = q.findIndex((w) => w.input === m.input);
        if (i < 0) {
          if (!ok) unsettled(String(m.message ?? ''), m.name);
          return;
        }
        const [w] = q.splice(i, 1);
        if (!q.length) waiters.delete(m.name);
        if (ok) {
          if (typeof m.value !== 'string') return; // executeTool's answer decides
          w.settle({ ok: true, value: parseResultString(m.value) });
        } else w.settle({ ok: false, error: pageError(String(m.message ?? '')) });
      }
    },
    registered: (name) => seen.get(name),
    /** Whether the page's world holds name's execute and runs its calls (runDirect). */
    canRun: (name) => seen.get(name)?.direct === true,
    /**
     * Has the page's world run name with input (its JSON text): settle({ok:
     * true, value (the result's text, as executeTool gives it)} | {ok:
     * false, error} | {gone: true}) once it ended (gone: the page's world
     * holds no such tool; it may come before runDirect returns). Returns
     * the function that cancels the call.
     */
    runDirect(name, input, settle) {
      const id = ++lastId;
      direct.set(id, settle);
      try {
        tellPage({ run: id, name, input });
      } catch {
        if (direct.delete(id)) settle({ gone: true });
      }
      return () => {
        if (!direct.delete(id)) return;
        try {
          tellPage({ cancel: id, name });
        } catch {
          // the page's world is gone with its call
        }
      };
    },
    /** n = 1 as a call of name starts, -1 as it ends. */
    calling(name, n) {
      const c = (calls.get(name) || 0) + n;
      if (c > 0) calls.set(name, c);
      else {
        calls.delete(name);
        errors.delete(name);
      }
      try {
        tellPage({ name, n });
      } catch {
        // the page's world hears nothing: executeTool's answers decide
      }
    },
    /**
     * Waits for the page's outcome of a call of name with input (its JSON
     * text): settle({ok, value | error}) once it settled; returns the
     * function that stops waiting.
     */
    awaitOutcome(name, input, settle) {
      const w = { input, settle };
      const q = waiters.get(name) || [];
      q.push(w);
      waiters.set(name, q);
      return () => {
        const list = waiters.get(name);
        if (!list) return;
        const i = list.indexOf(w);
        if (i >= 0) list.splice(i, 1);
        if (!list.length) waiters.delete(name);
      };
    },
    /** The page's error of the oldest failed call of name not matched to its call, if the witness saw one. */
    takeError(name) {
      const q = errors.get(name);
      if (!q || !q.length) return undefined;
      return pageError(q.shift());
    },
  };
}

function pageError(message) {
  return new Error(message === '' ? 'the tool failed' : message);
}
