// The in-page indicator (content/isolated/indicator.js) in a minimal fake
// DOM, and the relay (content/isolated/relay.js) showing what the worker says in its top frame only.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as indicator from '../content/isolated/indicator.js';
import { drain } from './fakes/clock.js';
import { startRelay } from './fakes/page.js';

class El {
  constructor(tag) {
    this.tagName = tag.toUpperCase();
    this.children = [];
    this.parentNode = null;
    this.attributes = {};
    this.textContent = '';
    this.shadow = null;
  }

  setAttribute(k, v) {
    this.attributes[k] = String(v);
  }

  attachShadow(init) {
    if (this.shadow) throw new Error('already has a shadow root');
    this.shadow = new El('#shadow-root');
    this.shadow.mode = init.mode;
    return this.shadow;
  }

  append(...nodes) {
    for (const n of nodes) {
      if (n.parentNode) n.remove();
      n.parentNode = this;
      this.children.push(n);
    }
  }

  remove() {
    if (!this.parentNode) return;
    this.parentNode.children = this.parentNode.children.filter((c) => c !== this);
    this.parentNode = null;
  }
}

function fakeDocument() {
  const body = new El('body');
  const listeners = new Map();
  return {
    body,
    documentElement: new El('html'),
    createElement: (tag) => new El(tag),
    addEventListener: (type, fn) => listeners.set(type, fn),
    removeEventListener: (type, fn) => {
      if (listeners.get(type) === fn) listeners.delete(type);
    },
    // The person moves the pointer to (x, y).
    point(x, y) {
      const fn = listeners.get('pointermove');
      if (fn) fn({ clientX: x, clientY: y });
    },
  };
}

test('shows the text in a closed shadow root, as a status, and hides it', () => {
  const document = fakeDocument();
  const ind = indicator.create(document);
  ind.show('claude-code 2.1 is using act');
  assert.equal(document.body.children.length, 1);
  const host = document.body.children[0];
  assert.equal(host.tagName, 'DIV', 'never a custom element name the page could define');
  assert.equal(host.shadow.mode, 'closed');
  const pill = host.shadow.children.find((c) => c.attributes.role === 'status');
  assert.equal(pill.attributes['aria-live'], 'polite');
  assert.equal(pill.children.at(-1).textContent, 'claude-code 2.1 is using act');
  ind.show('claude-code 2.1 is using commit');
  assert.equal(document.body.children.length, 1, 'one indicator, its text replaced');
  assert.equal(ind.text(), 'claude-code 2.1 is using commit');
  ind.show('');
  assert.equal(document.body.children.length, 0);
  ind.show(42);
  assert.equal(document.body.children.length, 0);
});

test('the relay shows what the worker says in a top frame, and hides it when the worker goes away', async () => {
  const shown = [];
  const spy = { create: () => ({ show: (t) => shown.push(t) }) };
  const top = startRelay({ indicator: spy });
  top.mainPort.postMessage({ type: 'tools', tools: [] });
  await drain();
  top.worker.deliver({ type: 'indicator', text: 'an agent is using act' });
  top.worker.deliver({ type: 'indicator', text: '' });
  top.worker.deliver({ type: 'indicator', text: 'an agent is using act' });
  top.worker.close();
  assert.deepEqual(shown, ['an agent is using act', '', 'an agent is using act', '']);

  const created = [];
  const sub = startRelay({ top: false, indicator: { create: () => created.push(1) } });
  assert.ok(sub);
  assert.deepEqual(created, [], 'a subframe draws nothing');
});

test('the pill gets out of the pointer\'s way: near it, it moves to the other bottom corner', () => {
  const document = fakeDocument();
  const ind = indicator.create(document);
  ind.show('an agent is using act');
  const pill = document.body.children[0].shadow.children.find((c) => c.attributes.role === 'status');
  // Where the browser lays it out: bottom right of a 1000 × 800 window, then bottom left.
  pill.getBoundingClientRect = () => (pill.className.includes('left')
    ? { left: 12, right: 212, top: 760, bottom: 788 }
    : { left: 788, right: 988, top: 760, bottom: 788 });
  document.point(400, 400);
  assert.equal(ind.corner(), 'right', 'a pointer far away changes nothing');
  document.point(900, 770);
  assert.equal(ind.corner(), 'left');
  assert.equal(pill.className, 'pill left');
  document.point(900, 770);
  assert.equal(ind.corner(), 'left', 'the old place is free now');
  document.point(100, 780);
  assert.equal(ind.corner(), 'right');
  // Hidden, it listens no more; shown again, it keeps its corner.
  ind.show('');
  document.point(900, 770);
  assert.equal(ind.corner(), 'right');
});
