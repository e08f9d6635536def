// The panel's Tools section: the tools the tab offers agents, each marked
// read-only or acting (from the page's annotations: readOnlyHint), with its
// description; a tool the agents do not get (its site is off) says so, and
// the tools the extension left out (past a cap, invalid) are listed with why.

import { h, fill } from './dom.js';

/** Renders the section's body into el. */
export function renderTools(el, state) {
  const { tools, site } = state;
  const leftOut = (state.leftOut || []).length > 0 && h('details', { class: 'left-out' },
    h('summary', {}, `${state.leftOut.length === 1 ? 'One tool was' : `${state.leftOut.length} tools were`} left out`),
    h('ul', {}, state.leftOut.map((p) => h('li', { class: 'muted small' }, p.frameId ? `frame ${p.frameId}: ${p.problem}` : p.problem))));
  if (!site) {
    fill(el, h('p', { class: 'muted' }, 'No tools: this is not a web page.'));
    return;
  }
  if (!tools.length) {
    fill(el, h('p', { class: 'muted' }, 'This tab offers no tools.'), leftOut);
    return;
  }
  fill(el, h('ul', { class: 'tools' }, tools.map((t) => h('li', { class: 'tool', 'data-tool': t.name },
    h('div', { class: 'row' },
      h('code', { class: 'name' }, t.name),
      h('span', { class: t.readOnly ? 'tag read' : 'tag act' }, t.readOnly ? 'read-only' : 'acts'),
      !t.shared && h('span', { class: 'tag off' }, 'not shared')),
    t.title && t.title !== t.name && h('div', { class: 'title' }, t.title),
    h('p', { class: 'desc' }, t.description || '(no description)'),
    t.frameId !== 0 && h('p', { class: 'muted small' }, `in a frame of ${t.origin}`)))), leftOut);
}
