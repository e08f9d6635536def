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

  /** Every element under this one, in document order. */
  descendants() {
    return this.childNodes.filter((c) => c instanceof FakeElement).flatMap((c) => [c, ...c.descendants()]);
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
