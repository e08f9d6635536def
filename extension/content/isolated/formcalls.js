// The calls of a frame's form tools, which its document's unload may beat.
//
// A call of a declarative form tool ends when its form submits to this
// browsing context: its source (the polyfill in the page's world, or
// browserwebmcp.js here) answers "navigated", and the next document's
// data becomes the answer (worker/navanswers.js). That answer leaves a
// task later (the page's world posts it on the MessageChannel; the native
// source waits for the page's own submit listeners), while the submission
// is already on its way. On a busy machine the next document may commit
// first: the answer dies with the old document, and the worker can only
// say that the frame went away under the call ("may have run"). So the
// relay watches the same submit events, and as the document goes
// (pagehide) it gives each call still under way whose form it saw submit
// here, unprevented, the navigated answer itself.

import { Code, PageLinkType as L } from '../../lib/protocol.js';
import { navigatedError } from '../source/toolcopy.js';

/**
 * Whether the submission of form (submitter: the button, or null)
 * navigates this document: no target, or _self, on its submitter or the
 * form, and not a dialog form. attr(el, name) reads an attribute.
 * @param {object} form
 * @param {object | null | undefined} submitter
 * @param {(el: object, name: string) => string | null} attr
 */
export function navigatesHere(form, submitter, attr) {
  const target = (submitter && typeof submitter === 'object' && attr(submitter, 'formtarget')) || attr(form, 'target') || '';
  const method = String(attr(form, 'method') || '').toLowerCase();
  return method !== 'dialog' && (target === '' || target.toLowerCase() === '_self');
}

const attribute = (el, name) => (el && typeof el.getAttribute === 'function' ? el.getAttribute(name) : null);

/**
 * Watches window's submit events for the calls under way in this frame.
 * @param {object} window
 */
export function formCalls(window) {
  /** @type {Map<string, {name: string, submit: object | null}>} call id -> its tool, and the submit event of its form */
  const calls = new Map();
  window.addEventListener('submit', (e) => {
    const name = attribute(e.target, 'toolname');
    if (!name) return;
    for (const c of calls.values()) if (c.name === name && !c.submit) c.submit = e;
  }, true);
  return {
    /** A call went to a source. */
    started(id, name) {
      calls.set(id, { name, submit: null });
    },
    /** A call's answer came from its source. */
    ended(id) {
      calls.delete(id);
    },
    /** The calls under way have nobody to answer to any more. */
    clear() {
      calls.clear();
    },
    /**
     * The document goes: the navigated answers of the calls under way
     * whose form submitted here; every call is forgotten.
     */
    leaving() {
      const out = [];
      for (const [id, c] of calls) {
        const e = c.submit;
        if (e && !e.defaultPrevented && navigatesHere(e.target, e.submitter, attribute)) {
          out.push({ type: L.error, id, error: { code: Code.navigated, message: navigatedError(c.name).message } });
        }
      }
      calls.clear();
      return out;
    },
  };
}
