// The draft's :tool-form-active and :tool-submit-active pseudo-classes, as
// far as a script can give them. A script cannot add a pseudo-class to the
// browser's selector engine: where the browser does not know them, a
// selector that names one is a SyntaxError, and a style rule that names one
// is dropped by the CSS parser. The polyfill marks a running form and its
// submit button with attributes instead (forms.js: data-tool-form-active,
// data-tool-submit-active), and this makes the selector API take the
// pseudo-classes as those attributes: matches, closest,
// webkitMatchesSelector, querySelector and querySelectorAll of elements,
// documents and fragments.
//
// Each wrapper calls the browser's own method first and changes nothing it
// accepts; only a selector the browser refuses (a SyntaxError) that names
// one of the two pseudo-classes is tried again with the attribute selectors
// in their place. So every other selector behaves exactly as before, and a
// page that tests for the pseudo-classes (try { matches(...) } catch) sees
// them supported, with the element states the draft describes. What cannot
// be done: style sheets (a rule with :tool-form-active stays dropped; style
// :is([data-tool-form-active], :tool-form-active) instead, which works in
// both modes, or the attributes alone), CSS.supports('selector(...)'), and
// a page that sets the attributes itself makes its elements match.

import { DOMExc, apply, defineProperty, getOwnPropertyDescriptor } from '../../source/builtins.js';

// The pseudo-classes and their stand-ins. A pseudo-class name is ASCII
// case-insensitive; one escaped with a backslash or followed by more of a
// name is another selector.
const MAP = [
  [/(^|[^\\]):tool-form-active(?![-_a-zA-Z0-9(])/gi, '$1[data-tool-form-active]'],
  [/(^|[^\\]):tool-submit-active(?![-_a-zA-Z0-9(])/gi, '$1[data-tool-submit-active]'],
];

/** selectors with the two pseudo-classes as their attributes, or null when it names neither. */
export function mapPseudoClasses(selectors) {
  if (typeof selectors !== 'string' || !/:tool-(form|submit)-active/i.test(selectors)) return null;
  let out = selectors;
  for (const [re, to] of MAP) out = out.replace(re, to);
  return out === selectors ? null : out;
}

const METHODS = ['matches', 'closest', 'webkitMatchesSelector', 'querySelector', 'querySelectorAll'];

// The wrapper of one selector method: the browser's own, then once more
// with the stand-ins when the browser refused the selector.
function wrap(original) {
  const wrapped = {
    [original.name](selectors) {
      try {
        return apply(original, this, arguments);
      } catch (e) {
        const mapped = e instanceof DOMExc && e.name === 'SyntaxError' ? mapPseudoClasses(selectors) : null;
        if (mapped === null) throw e;
        return apply(original, this, [mapped]);
      }
    },
  }[original.name];
  defineProperty(wrapped, 'length', { value: original.length });
  return wrapped;
}

/**
 * Makes the selector methods of win's elements, documents and fragments
 * take :tool-form-active and :tool-submit-active as the polyfill's
 * attributes, unless the browser knows the pseudo-classes. Returns whether
 * it did.
 */
export function mapToolPseudoClasses(win) {
  const doc = win.document;
  const qs = win.Document.prototype.querySelector;
  try {
    apply(qs, doc, [':tool-form-active']);
    return false; // the browser's own
  } catch {
    // unknown to the browser: map them
  }
  const protos = [win.Element, win.Document, win.DocumentFragment].map((C) => C && C.prototype).filter(Boolean);
  for (const proto of protos) {
    for (const name of METHODS) {
      const d = getOwnPropertyDescriptor(proto, name);
      if (!d || typeof d.value !== 'function') continue;
      defineProperty(proto, name, { ...d, value: wrap(d.value) });
    }
  }
  return true;
}
