// The page's built-ins for frame elements, taken when the polyfill installs
// (before any page script runs): which <iframe> or <frame> of this document
// holds a window, what its allow and src attributes say (for the
// permissions policy "tools", links.js), and this document's own frame
// element.

import { URLCtor, apply, getOwnPropertyDescriptor } from '../../source/builtins.js';
import { originOf } from './sameorigin.js';

/**
 * The frame DOM of win: {elementOf(w), read(el): {allow, srcOrigin},
 * ownFrameElement()}, or null where win has none (a test's window).
 */
export function frameDomOf(win) {
  const ownOrigin = () => originOf(win);
  try {
    const doc = win.document;
    const qsa = win.Document.prototype.querySelectorAll;
    const getAttr = win.Element.prototype.getAttribute;
    const cw = getOwnPropertyDescriptor(win.HTMLIFrameElement.prototype, 'contentWindow').get;
    const fcw = win.HTMLFrameElement ? getOwnPropertyDescriptor(win.HTMLFrameElement.prototype, 'contentWindow').get : null;
    const baseURI = getOwnPropertyDescriptor(win.Node.prototype, 'baseURI').get;
    const frameEl = getOwnPropertyDescriptor(win, 'frameElement') || getOwnPropertyDescriptor(Object.getPrototypeOf(win), 'frameElement');
    return {
      elementOf(w) {
        for (const el of apply(qsa, doc, ['iframe, frame'])) {
          const g = el.localName === 'frame' ? fcw : cw;
          if (g && apply(g, el, []) === w) return el;
        }
        return null;
      },
      read(el) {
        const allow = apply(getAttr, el, ['allow']) || '';
        const src = apply(getAttr, el, ['src']);
        let srcOrigin = ownOrigin();
        if (src !== null && src !== '' && apply(getAttr, el, ['srcdoc']) === null) {
          try {
            const u = new URLCtor(src, apply(baseURI, el.ownerDocument || doc, []));
            if (u.protocol !== 'about:') srcOrigin = u.origin;
          } catch {
            // not a URL: its own origin
          }
        }
        return { allow, srcOrigin };
      },
      ownFrameElement() {
        try {
          return frameEl && frameEl.get ? apply(frameEl.get, win, []) : win.frameElement;
        } catch {
          return null;
        }
      },
    };
  } catch {
    return null;
  }
}
