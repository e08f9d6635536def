// A small fake of the DOM that the polyfill's declarative tools use
// (content/main/polyfill/forms.js's dom object): forms with attributes and
// controls, requestSubmit that dispatches a submit event to a listener (the
// page's), and the window's capture listener that forms.js is given.

/** A fake element: tagName, attributes, and the fields a control has. */
export function el(tagName, attrs = {}, fields = {}) {
  const e = { tagName: tagName.toUpperCase(), attrs: { ...attrs }, labels: [], ...fields };
  if (!('name' in fields) && 'name' in attrs) e.name = attrs.name;
  if (!('type' in fields)) e.type = attrs.type || (tagName === 'input' ? 'text' : tagName);
  if (!('value' in fields)) e.value = attrs.value || '';
  e.required = 'required' in attrs;
  e.disabled = 'disabled' in attrs;
  e.events = [];
  return e;
}

/** A fake submit event: preventDefault, defaultPrevented, and an agent's additions once forms.js marks it. */
export class FakeSubmitEvent {
  constructor(form) {
    this.target = form;
    this.defaultPrevented = false;
    this.submitter = null;
  }
  preventDefault() {
    this.defaultPrevented = true;
  }
}

/**
 * A fake document of forms: add(form) and remove(form) change it; the dom
 * object and the hooks forms.js is wired to. form.onsubmit(event) is the
 * page's submit listener; form.valid false makes requestSubmit fire no
 * submit event (a constraint failed).
 */
export function fakeDocument() {
  // Its own class, so that each document's polyfill adds agentInvoked and respondWith afresh.
  class SubmitEvent extends FakeSubmitEvent {}
  const forms = [];
  let hooks = null;
  const dom = {
    attr: (e, n) => (n in e.attrs ? e.attrs[n] : null),
    setAttr: (e, n, v) => {
      e.attrs[n] = v;
    },
    removeAttr: (e, n) => {
      delete e.attrs[n];
    },
    toolForms: () => forms.filter((f) => 'toolname' in f.attrs),
    controls: (f) => f.controls,
    labelText: (e) => (e.labels[0] || ''),
    text: (e) => (e.text === undefined ? '' : e.text),
    submitButton: (f) => f.button || null,
    requestSubmit(f) {
      if (f.valid === false) return;
      const ev = new SubmitEvent(f);
      hooks.onSubmit(ev, f);
      if (f.onsubmit) f.onsubmit(ev);
    },
    focus: (e) => {
      e.focused = true;
    },
    fire: (e, type) => e.events.push(type),
    isConnected: (f) => forms.includes(f),
    target: (f) => f.attrs.target || '',
  };
  return {
    dom,
    submitProto: SubmitEvent.prototype,
    start(h) {
      hooks = h;
      h.rescan();
    },
    add(f) {
      forms.push(f);
      hooks.rescan();
    },
    remove(f) {
      forms.splice(forms.indexOf(f), 1);
      hooks.rescan();
    },
    changed() {
      hooks.rescan();
    },
    /** The user submits form f (a submit event the agent did not make). */
    userSubmit(f) {
      const ev = new SubmitEvent(f);
      hooks.onSubmit(ev, f);
      if (f.onsubmit) f.onsubmit(ev);
      return ev;
    },
    reset(f) {
      hooks.onReset(f);
    },
  };
}

/** A form with toolname/tooldescription (and more attributes) and controls. */
export function form(attrs, controls, button = el('button', { type: 'submit' })) {
  const f = el('form', attrs);
  f.controls = controls;
  f.button = button;
  if (button) f.controls = [...controls, button];
  return f;
}
