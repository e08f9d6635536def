// A DOM just big enough for the panel's sections (ui/dom.js builds them):
// elements with attributes, properties, children and text, installed as
// globalThis.document and Node, so that a section renders in Node and a
// test reads its words and links. The panel itself runs in real Chromium
// in e2e/panel_test.go.

export class FakeNode {
  constructor() {
    this.parentNode = null;
  }
}

class FakeText extends FakeNode {
  constructor(text) {
    super();
    this.data = text;
  }

  get textContent() {
    return this.data;
  }
}

export class FakeElement extends FakeNode {
  constructor(tag) {
    super();
    this.tagName = tag.toUpperCase();
    this.attributes = {};
    this.childNodes = [];
    this.listeners = {};
    this.hidden = false;
  }

  setAttribute(k, v) {
    this.attributes[k] = String(v);
  }

  getAttribute(k) {
    return k in this.attributes ? this.attributes[k] : null;
  }

  addEventListener(type, f) {
    (this.listeners[type] ||= []).push(f);
  }

  append(...nodes) {
    for (const n of nodes) {
      const node = n instanceof FakeNode ? n : new FakeText(String(n));
      node.parentNode = this;
      this.childNodes.push(node);
    }
  }

  replaceChildren(...nodes) {
    this.childNodes = [];
    this.append(...nodes);
  }

  get textContent() {
    return this.childNodes.map((c) => c.textContent).join('');
  }

  set textContent(text) {
    this.replaceChildren(...(text === '' ? [] : [text]));
  }

  /** Every element under this one, in document order. */
  descendants() {
    return this.childNodes.filter((c) => c instanceof FakeElement).flatMap((c) => [c, ...c.descendants()]);
  }

  /** The first element under this one that matches a "#id" or tag selector, or null. */
  querySelector(sel) {
    if (sel.startsWith('#')) return this.descendants().find((e) => e.getAttribute('id') === sel.slice(1)) || null;
    return this.querySelectorAll(sel)[0] || null;
  }

  /** The class attribute as a list (toggle, contains). */
  get classList() {
    const names = () => (this.getAttribute('class') || '').split(/\s+/).filter(Boolean);
    return {
      contains: (c) => names().includes(c),
      toggle: (c, on) => {
        const has = names().includes(c);
        const want = on === undefined ? !has : !!on;
        if (want !== has) this.setAttribute('class', want ? [...names(), c].join(' ') : names().filter((n) => n !== c).join(' '));
        return want;
      },
    };
  }

  focus() {
    this.focused = true;
  }

  /** Calls the listeners of an event type with ev (default: a bare event whose preventDefault is noted). */
  dispatch(type, ev = {}) {
    const e = { preventDefault() { e.defaultPrevented = true; }, currentTarget: this, target: this, ...ev };
    return (this.listeners[type] || []).map((f) => f(e));
  }

  /** The elements under this one with the tag name (only tag selectors). */
  querySelectorAll(tag) {
    return /^[a-z]+$/.test(tag) ? this.descendants().filter((e) => e.tagName === tag.toUpperCase()) : [];
  }
}

/** Installs the fake as the global document and Node; returns a fresh element. */
export function installDOM() {
  globalThis.Node = FakeNode;
  globalThis.document = {
    createElement: (tag) => new FakeElement(tag),
    createTextNode: (text) => new FakeText(text),
  };
  return new FakeElement('div');
}
