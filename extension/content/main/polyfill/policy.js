// The permissions policy "tools" of a document: {known, allowed, ready, ask}.
// A top-level document is allowed at once. A same-origin frame reads its
// own frame element's allow attribute and takes its parent's word; a
// cross-origin frame asks its parent over a link (links.js), once the
// document first uses WebMCP. Until it is known the ModelContext's methods
// wait for ready; where it disallows, they reject (modelcontext.js).

import { PromiseCtor, addListener, apply, resolved, then, timeout } from '../../source/builtins.js';
import { allowsTools } from './links.js';
import { handleOf, originOf } from './sameorigin.js';

/**
 * @param {object} o
 * @param {object} o.win  the window
 * @param {object | null} o.frameDom  its frame DOM (framedom.js)
 * @param {object | null} o.links  its links (links.js)
 * @param {object | null} o.forms  its declarative tools (forms.js)
 * @param {() => void} o.changedHere  this document's tools changed (once the policy is known)
 * @returns {{known: boolean, allowed: boolean, ready: Promise<boolean>, ask?: (() => void) | null}}
 */
export function startPolicy({ win, frameDom, links, forms, changedHere }) {
  const ownOrigin = () => originOf(win);
  let parent;
  try {
    parent = win.parent;
  } catch {
    parent = undefined;
  }
  if (!parent || parent === win || !frameDom) return { known: true, allowed: true, ready: resolved(true) };
  const p = { known: false, allowed: false, ready: null };
  // Once known, the bridge and the frames hear of this document's tools
  // (none where the policy disallows them).
  const settle = (ok) => {
    p.known = true;
    p.allowed = !!ok;
    changedHere();
    return p.allowed;
  };
  const parentHandle = originOf(parent) === ownOrigin() ? handleOf(parent) : undefined;
  if (parentHandle) {
    // A same-origin parent: this frame's element is readable.
    const el = frameDom.ownFrameElement();
    let mine = true;
    if (el) {
      try {
        const { allow, srcOrigin } = frameDom.read(el);
        mine = allowsTools(allow, ownOrigin(), ownOrigin(), srcOrigin);
      } catch {
        mine = true;
      }
    }
    const up = parentHandle.policy ? parentHandle.policy() : { known: true, allowed: true, ready: resolved(true) };
    if (up.known) {
      p.known = true;
      p.allowed = mine && up.allowed;
      p.ready = resolved(p.allowed);
    } else {
      p.ready = then(up.ready, (ok) => settle(mine && ok));
    }
    return p;
  }
  if (!links || originOf(parent) === ownOrigin()) return { known: true, allowed: true, ready: resolved(true) };
  // Asked once the document first uses WebMCP (a method, or a form
  // tool): a frame that never does posts nothing to its parent.
  let ready;
  p.ready = new PromiseCtor((resolve) => {
    ready = resolve;
  });
  p.ask = () => {
    p.ask = null;
    const fallback = (fire) => {
      let complete = false;
      try {
        complete = win.document.readyState === 'complete';
      } catch {
        complete = true;
      }
      if (complete) timeout(fire, 1000);
      else apply(addListener, win, ['load', () => timeout(fire, 1000), { once: true }]);
    };
    then(links.askParent(fallback), (ok) => ready(settle(ok)));
  };
  if (forms && forms.list().size) p.ask();
  return p;
}
