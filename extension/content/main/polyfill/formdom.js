// The page's DOM as forms.js uses it, from the built-ins of the page's
// window taken when the polyfill installs (before any page script), and
// the wiring that keeps the form tools current: a MutationObserver on the
// document, submit and reset listeners on the window (capture phase, so
// they run before the page's own), and form.submit() noted for forms.js (a
// submit listener that prevents the event and calls form.submit() submits
// the form after all).

import { addListener, apply, defineProperty, getOwnPropertyDescriptor } from '../../source/builtins.js';

const WATCHED = [
  'toolname', 'tooldescription', 'toolautosubmit', 'toolparamdescription', 'toolparamtitle', 'name', 'type',
  'required', 'disabled', 'multiple', 'min', 'max', 'step', 'minlength', 'maxlength', 'pattern', 'value', 'aria-description',
];

function getter(proto, name) {
  const d = proto && getOwnPropertyDescriptor(proto, name);
  return d && d.get;
}

/**
 * The dom object of forms.js for win's document, and start(forms), which
 * connects forms.js's rescan, onSubmit and onReset to the page.
 */
export function formDom(win) {
  const doc = win.document;
  const E = win.Element.prototype;
  const N = win.Node.prototype;
  const FormCtor = win.HTMLFormElement;
  const F = FormCtor.prototype;
  const getAttribute = E.getAttribute;
  const setAttribute = E.setAttribute;
  const removeAttribute = E.removeAttribute;
  const querySelectorAll = win.Document.prototype.querySelectorAll;
  const elQuerySelector = E.querySelector;
  const isConnected = getter(N, 'isConnected');
  const textContent = getter(N, 'textContent');
  const elements = getter(F, 'elements');
  const requestSubmit = F.requestSubmit;
  const focus = win.HTMLElement.prototype.focus;
  const dispatchEvent = win.EventTarget.prototype.dispatchEvent;
  const EventCtor = win.Event;
  const Observer = win.MutationObserver;
  const labelsOf = (el) => {
    try {
      return el.labels || [];
    } catch {
      return [];
    }
  };

  const dom = {
    attr: (el, name) => apply(getAttribute, el, [name]),
    setAttr: (el, name, v) => apply(setAttribute, el, [name, v]),
    removeAttr: (el, name) => apply(removeAttribute, el, [name]),
    toolForms: () => apply(querySelectorAll, doc, ['form[toolname]']),
    controls: (form) => Array.from(apply(elements, form, [])),
    // The text of a control's first label with any, trimmed (as Chromium
    // 156 takes it: the whitespace inside stays).
    labelText(el) {
      for (const l of labelsOf(el)) {
        const t = String(apply(textContent, l, []) || '').trim();
        if (t) return t;
      }
      return '';
    },
    text: (el) => String(apply(textContent, el, []) || ''),
    submitButton: (form) => apply(elQuerySelector, form, ['button:not([type]), button[type=submit], input[type=submit], input[type=image]']),
    requestSubmit: (form) => apply(requestSubmit, form, []),
    focus: (el) => apply(focus, el, []),
    fire: (el, type) => apply(dispatchEvent, el, [new EventCtor(type, { __proto__: null, bubbles: true })]),
    isConnected: (el) => apply(isConnected, el, []),
    // The browsing context a submission goes to: '' for the form's own.
    target(form, event) {
      const submitter = event && event.submitter;
      const t = (submitter && apply(getAttribute, submitter, ['formtarget'])) || apply(getAttribute, form, ['target']) || '';
      const method = String(apply(getAttribute, form, ['method']) || '').toLowerCase();
      if (method === 'dialog') return 'its dialog';
      return t === '' || t.toLowerCase() === '_self' ? '' : t;
    },
  };

  function start(forms) {
    const observer = new Observer(() => forms.rescan());
    observer.observe(doc, { subtree: true, childList: true, attributes: true, attributeFilter: WATCHED });
    apply(addListener, win, ['submit', (e) => {
      const form = e.target;
      if (form instanceof FormCtor) forms.onSubmit(e, form);
    }, { capture: true }]);
    // form.submit() submits without a submit event; one that a page's
    // submit listener makes for a call's form is that call's submission.
    const submit = getOwnPropertyDescriptor(F, 'submit');
    if (submit && typeof submit.value === 'function') {
      const original = submit.value;
      const wrapped = {
        submit() {
          if (this instanceof FormCtor) forms.onSubmitMethod(this);
          return apply(original, this, arguments);
        },
      }.submit;
      defineProperty(wrapped, 'length', { value: original.length });
      defineProperty(F, 'submit', { ...submit, value: wrapped });
    }
    apply(addListener, win, ['reset', (e) => {
      const form = e.target;
      if (form instanceof FormCtor) forms.onReset(form);
    }, { capture: true }]);
    forms.rescan();
  }

  return { dom, start };
}
