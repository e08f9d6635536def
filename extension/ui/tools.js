// The panel's Tools section: the tools the tab offers agents, each marked
// read-only or acting (from the page's annotations: readOnlyHint), with its
// description; a tool the agents do not get (its site is off) says so.

import { h, fill } from './dom.js';

/** Renders the section's body into el. */
export function renderTools(el, state) {
  const { tools, site } = state;
  if (!site) {
    fill(el, h('p', { class: 'muted' }, 'No tools: this is not a web page.'));
    return;
  }
  if (!tools.length) {
    fill(el, h('p', { class: 'muted' }, 'This tab offers no tools.'));
    return;
  }
  fill(el, h('ul', { class: 'tools' }, tools.map((t) => h('li', { class: 'tool', 'data-tool': t.name },
    h('div', { class: 'row' },
      h('code', { class: 'name' }, t.name),
      h('span', { class: t.readOnly ? 'tag read' : 'tag act' }, t.readOnly ? 'read-only' : 'acts'),
      !t.shared && h('span', { class: 'tag off' }, 'not shared')),
    t.title && t.title !== t.name && h('div', { class: 'title' }, t.title),
    h('p', { class: 'desc' }, t.description || '(no description)'),
    t.frameId !== 0 && h('p', { class: 'muted small' }, `in a frame of ${t.origin}`)))));
}
