// The ambient-context functions on element-like objects: the attributes,
// tag, text and labels that content/isolated/ambient.js reads of a DOM element.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as A from '../content/isolated/ambient.js';

// A minimal document of element-like objects.
function makeDoc() {
  const byId = new Map();
  const doc = {
    getElementById: (id) => byId.get(id) || null,
    body: null,
    documentElement: null,
    activeElement: null,
  };
  doc.el = (tag, attrs = {}, { text = '', labels, props = {} } = {}) => {
    const e = {
      tagName: tag.toUpperCase(),
      ownerDocument: doc,
      textContent: text,
      getAttribute: (n) => (Object.prototype.hasOwnProperty.call(attrs, n) ? String(attrs[n]) : null),
    };
    Object.defineProperties(e, Object.getOwnPropertyDescriptors(props));
    if (labels) e.labels = labels;
    if (attrs.id) byId.set(attrs.id, e);
    return e;
  };
  doc.body = doc.el('body');
  doc.documentElement = doc.el('html');
  doc.activeElement = doc.body;
  return doc;
}

test('roles: explicit first, else implicit from the tag and type', () => {
  const d = makeDoc();
  const cases = [
    [d.el('div', { role: 'Tab selected' }), 'tab'],
    [d.el('button'), 'button'],
    [d.el('a', { href: '/x' }), 'link'],
    [d.el('a'), ''],
    [d.el('input'), 'textbox'],
    [d.el('input', { type: 'search' }), 'searchbox'],
    [d.el('input', { type: 'CHECKBOX' }), 'checkbox'],
    [d.el('input', { type: 'range' }), 'slider'],
    [d.el('input', { type: 'submit' }), 'button'],
    [d.el('input', { type: 'number' }), 'spinbutton'],
    [d.el('input', { type: 'email', list: 'l' }), 'combobox'],
    [d.el('input', { type: 'password' }), 'textbox'],
    [d.el('input', { type: 'bogus' }), 'textbox'],
    [d.el('textarea'), 'textbox'],
    [d.el('select'), 'combobox'],
    [d.el('select', { multiple: '' }), 'listbox'],
    [d.el('img', { alt: '' }), 'presentation'],
    [d.el('img', { alt: 'Logo' }), 'img'],
    [d.el('h3'), 'heading'],
    [d.el('li'), 'listitem'],
    [d.el('nav'), 'navigation'],
    [d.el('div'), ''],
    [d.el('div', {}, { props: { isContentEditable: true } }), 'textbox'],
  ];
  for (const [el, role] of cases) assert.equal(A.roleOf(el), role, `${el.tagName} ${el.getAttribute('type') ?? el.getAttribute('role') ?? ''}`);
});

test('names: aria-labelledby, aria-label, labels, alt, content, title, placeholder', () => {
  const d = makeDoc();
  d.el('span', { id: 'l1' }, { text: ' Trace ' });
  d.el('span', { id: 'l2', 'aria-label': 'viewer' }, { text: 'ignored' });
  const label = d.el('label', {}, { text: '  Slice\n name  ' });
  const cases = [
    [d.el('div', { 'aria-labelledby': 'l1 missing l2', 'aria-label': 'not this' }), 'Trace viewer'],
    [d.el('button', { 'aria-label': 'Zoom in', title: 't' }, { text: '+' }), 'Zoom in'],
    [d.el('input', { placeholder: 'p' }, { labels: [label] }), 'Slice name'],
    [d.el('img', { alt: 'A chart', title: 't' }), 'A chart'],
    [d.el('input', { type: 'submit' }), 'Submit'],
    [d.el('input', { type: 'button', value: 'Go' }), 'Go'],
    [d.el('button', { title: 'tip' }, { text: '  Run   query ' }), 'Run query'],
    [d.el('a', { href: '#' }, { text: 'x'.repeat(150) }), 'x'.repeat(99) + '…'],
    [d.el('input', { title: 'Filter by name', placeholder: 'Filter' }), 'Filter by name'],
    [d.el('input', { type: 'search', placeholder: 'Filter slices' }), 'Filter slices'],
    [d.el('textarea', {}, { text: 'what the user typed' }), ''],
    [d.el('div', { tabindex: '0' }, { text: 'A focusable div' }), 'A focusable div'],
    [d.el('div', { role: 'region' }, { text: 'not named by content' }), ''],
  ];
  for (const [el, name] of cases) assert.equal(A.nameOf(el), name, `${el.tagName} ${name}`);
});

test('describeElement gives role, name and tag', () => {
  const d = makeDoc();
  assert.deepEqual(A.describeElement(d.el('input', { type: 'search', 'aria-label': 'Filter slices by name' })),
    { role: 'searchbox', name: 'Filter slices by name', tag: 'input' });
  assert.deepEqual(A.describeElement(d.el('div')), { tag: 'div' });
  assert.deepEqual(A.describeElement(d.el('iframe', { title: 'embedded frame' })), { name: 'embedded frame', tag: 'iframe' });
});

test('selection: whitespace collapsed, cut to 300 characters with selectionCut', () => {
  assert.deepEqual(A.selectionFrom('  hello \n world '), { selection: 'hello world' });
  assert.deepEqual(A.selectionFrom(' \n '), {});
  const cut = A.selectionFrom('é'.repeat(400));
  assert.equal(Array.from(cut.selection).length, 300);
  assert.ok(cut.selection.endsWith('…'));
  assert.equal(cut.selectionCut, true);
  assert.deepEqual(A.selectionFrom('x'.repeat(300)), { selection: 'x'.repeat(300) });
});

test('ambientOf: the selection and the focused element, or nothing', () => {
  const d = makeDoc();
  let selected = '';
  const win = { getSelection: () => ({ toString: () => selected }) };
  assert.equal(A.ambientOf(d, win), undefined, 'nothing selected, body focused');
  selected = 'CommitNavigation';
  assert.deepEqual(A.ambientOf(d, win), { selection: 'CommitNavigation' });
  d.activeElement = d.el('button', { 'aria-label': 'Zoom in' });
  assert.deepEqual(A.ambientOf(d, win), { selection: 'CommitNavigation', focused: { role: 'button', name: 'Zoom in', tag: 'button' } });
});

test('ambientOf: text selected in a field, never in a password field', () => {
  const d = makeDoc();
  const win = { getSelection: () => ({ toString: () => '' }) };
  d.activeElement = d.el('input', { type: 'text', 'aria-label': 'Query' }, { props: { value: 'select * from slice', selectionStart: 9, selectionEnd: 19 } });
  assert.deepEqual(A.ambientOf(d, win), { selection: 'from slice', focused: { role: 'textbox', name: 'Query', tag: 'input' } });
  d.activeElement = d.el('input', { type: 'password', 'aria-label': 'Password' }, { props: { value: 'hunter2', selectionStart: 0, selectionEnd: 7 } });
  assert.deepEqual(A.ambientOf(d, win), { focused: { role: 'textbox', name: 'Password', tag: 'input' } });
  d.activeElement = d.el('input', { type: 'email' }, {
    props: { get selectionStart() { throw new Error('not supported'); }, value: 'a@b.c' },
  });
  assert.deepEqual(A.ambientOf(d, win), { focused: { role: 'textbox', tag: 'input' } });
});

test('ambientOf: focus inside an open shadow root', () => {
  const d = makeDoc();
  const inner = d.el('button', {}, { text: 'Inner' });
  d.activeElement = d.el('my-widget', {}, { props: { shadowRoot: { activeElement: inner } } });
  const win = { getSelection: () => null };
  assert.deepEqual(A.ambientOf(d, win), { focused: { role: 'button', name: 'Inner', tag: 'button' } });
});
