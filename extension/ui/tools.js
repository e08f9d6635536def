// The panel's Tools section: the tools the tab offers agents, one line
// each — the name, read-only or acts (from the page's annotations:
// readOnlyHint), "not shared" while the site is off, "changed" when the
// page changed its definition since this browser first saw it (with a
// button to accept the new one) — with the title and description on demand
// (a <details>; Markdown shown as plain text); the tools the extension left
// out (past a cap, invalid) are listed with why.
// With the inspector's view (state.inspect, worker/inspect.js): a tag for
// the warnings and one for a tool whose calls ask first, the page's tool
// beside what an agent gets in the details, and a "Try NAME" button that
// opens the tool's form (ui/inspector.js).

import { h, fill, toggle } from './dom.js';
import { TryForms, sides, warningList } from './inspector.js';
import { plainText } from './plaintext.js';

/** The Try forms, kept across renders. */
const tryForms = new TryForms();

/** Renders the section's body into el; actions: {send, refresh, report} (panel-page.js). */
export function renderTools(el, state, actions) {
  const { tools, site } = state;
  const leftOut = (state.leftOut || []).length > 0 && h('details', { class: 'left-out' },
    h('summary', {}, `${state.leftOut.length === 1 ? 'One tool was' : `${state.leftOut.length} tools were`} left out`),
    h('ul', {}, state.leftOut.map((p) => h('li', { class: 'muted small' }, p.frameId ? `frame ${p.frameId}: ${p.problem}` : p.problem))));
  if (!site) {
    // This site's section says why (not a web page, or a site not
    // allowed), once; the panel hides this one (panel-page.js).
    fill(el);
    return;
  }
  if (!tools.length) {
    fill(el, h('p', { class: 'muted' }, 'This tab offers no tools.'), leftOut);
    return;
  }
  const open = new Set([...el.querySelectorAll('li.tool > details[open]')].map((d) => d.parentElement.dataset.tool));
  const inspect = state.inspect && state.tab && state.inspect.tabId === state.tab.id ? state.inspect : null;
  const entryOf = (t) => inspect && inspect.tools.find((e) => e.frameId === t.frameId && e.name === t.name);
  const tabId = state.tab && state.tab.id;
  fill(el, h('ul', { class: 'tools' }, tools.map((t) => {
    const e = entryOf(t);
    const warnings = e ? e.warnings.length : 0;
    return h('li', { class: 'tool', 'data-tool': t.name, 'data-frame': String(t.frameId) },
    h('details', { open: open.has(t.name) },
      h('summary', {},
        h('code', { class: 'name' }, t.name),
        h('span', { class: t.readOnly ? 'tag read' : 'tag act' }, t.readOnly ? 'read-only' : 'acts'),
        !t.shared && h('span', { class: 'tag off' }, 'not shared'),
        t.changed && h('span', { class: 'tag changed', title: 'The page changed this tool since this browser first saw it' }, 'changed'),
        e && e.asks && t.shared && h('span', { class: 'tag asks', title: 'An agent\'s call waits for your consent' }, 'asks first'),
        warnings > 0 && h('span', { class: e.warnings.some((w) => w.level === 'error') ? 'tag error' : 'tag warned' }, warnings === 1 ? '1 warning' : `${warnings} warnings`),
        e && e.agent && e.agent.name !== t.name && h('span', { class: 'tag renamed', title: 'The name agents call it by' }, `agents: ${e.agent.name}`),
        t.title && t.title !== t.name && h('span', { class: 'title' }, t.title)),
      h('p', { class: 'desc' }, plainText(t.description) || '(no description)'),
      t.frameId !== 0 && h('p', { class: 'muted small' }, `in a frame of ${t.origin}`),
      e && warningList(e.warnings),
      e && sides(e, inspect.notes)),
      t.context && actions && contextSwitch(state, t, e ? e.agent && e.agent.name : '', actions),
      e && actions && tryButton(tabId, e, actions),
      e && tryForms.isOpen(tabId, e) && tryForms.node(tabId, e, actions),
      t.changed && h('p', { class: 'changed-note' },
        'The page changed this tool (its description, schema or hints) since this browser first saw it on this site: ' +
        'agents see it marked [CHANGED], and if it acts, its next call asks you first. ',
        actions && h('button', {
          type: 'button',
          'aria-label': `Accept the new ${t.name}`,
          onclick: async () => {
            try {
              // The definition shown: the worker refuses if the page changed it since.
              await actions.send('tool/accept', { tabId: state.tab.id, frameId: t.frameId, name: t.name, print: t.print });
              actions.refresh();
            } catch (e) {
              actions.report(`Could not accept the new ${t.name}: ${e.message}`, true);
              actions.refresh(); // shows the definition the page has now
            }
          },
        }, 'Accept the new definition')));
  })), leftOut);
}

// "Send NAME with every prompt": a read-only tool without required
// arguments travels as context with every prompt while its tab is the one
// the person looks at (worker/contexttools.js). NAME is the tool's name
// for agents.
function contextSwitch(state, t, agentName, actions) {
  const name = agentName || t.name;
  const c = t.context;
  const set = async (on, input) => {
    input.disabled = true;
    try {
      await actions.send('contextTool/set', { tabId: state.tab.id, frameId: t.frameId, name: t.name, on });
      actions.report(on ? `${name} now goes with every prompt while you look at this tab.` : `${name} no longer goes with your prompts.`);
    } catch (e) {
      input.checked = !on;
      actions.report(`Could not change ${name}: ${e.message}`, true);
    } finally {
      input.disabled = false;
      actions.refresh();
    }
  };
  let note = '';
  if (c.state === 'changed') note = 'The page changed this tool since it was turned on: turn it on again to send the new one.';
  else if (c.offered && c.state === 'on') note = 'The page offers it as what you are looking at.';
  return h('div', { class: 'context-tool' },
    toggle({ label: `Send ${name} with every prompt`, text: 'Send with every prompt', checked: c.state === 'on', onChange: (on, input) => set(on, input) }),
    note && h('p', { class: 'muted small' }, note));
}

// "Try NAME": shows or hides the tool's form, in place (no render).
function tryButton(tabId, e, actions) {
  const open = tryForms.isOpen(tabId, e);
  const button = h('button', { type: 'button', class: 'quiet small try-button', 'aria-expanded': String(open) }, `Try ${e.name}`);
  button.addEventListener('click', () => {
    const li = button.closest('li.tool');
    const node = tryForms.node(tabId, e, actions);
    if (tryForms.toggle(tabId, e)) {
      button.after(node);
      const first = node.querySelector('input, select, textarea, button');
      if (first) first.focus();
    } else if (li && node.parentElement === li) {
      node.remove();
    }
    button.setAttribute('aria-expanded', String(tryForms.isOpen(tabId, e)));
  });
  return button;
}
