// The page author's inspector, inside the panel's Tools section
// (ui/tools.js): for each tool, what the page registered beside what an
// agent gets (worker/inspect.js, inspect/tools), its warnings, and a
// "Try NAME" form made from its inputSchema (lib/tryform.js) whose "Run"
// runs the tool once in the page as the user (tool/try) and shows the
// result, whether it is an error and the time taken.
//
// A form keeps its values across the panel's renders: each is built once
// per tool and moved into the new list (tryNode).

import { formFields, initialText, readForm } from '../lib/tryform.js';
import { h } from './dom.js';

const pretty = (v) => JSON.stringify(v, null, 2);

/** A labelled JSON block, or nothing for null. */
function jsonBlock(label, v) {
  if (v === null || v === undefined) return h('p', { class: 'muted small' }, `${label}: none`);
  return h('div', { class: 'kv' }, h('h4', {}, label), h('pre', { class: 'json' }, pretty(v)));
}

function textBlock(label, text) {
  return h('div', { class: 'kv' }, h('h4', {}, label), h('p', { class: 'text' }, text || '(none)'));
}

/** The warnings of a tool, as a list (nothing when there are none). */
export function warningList(warnings) {
  if (!warnings || !warnings.length) return null;
  return h('ul', { class: 'warnings' }, warnings.map((w) => h('li', { class: w.level === 'error' ? 'error' : 'warn', 'data-rule': w.rule },
    h('strong', {}, w.level === 'error' ? 'Error' : 'Warning'), ` (${w.rule}): ${w.message}`)));
}

/** The two sides of a tool: what the page registered, what the agent gets. */
export function sides(entry, notes) {
  const p = entry.page;
  const a = entry.agent;
  const page = h('div', { class: 'side', 'aria-label': `What the page registered for ${entry.name}`, role: 'group' },
    h('h3', {}, 'The page registered'),
    textBlock('Name', entry.name),
    p.title && textBlock('Title', p.title),
    textBlock('Description', p.description),
    jsonBlock('inputSchema', p.inputSchema),
    jsonBlock('outputSchema', p.outputSchema),
    jsonBlock('annotations', p.annotations));
  const agent = h('div', { class: 'side', 'aria-label': `What an agent gets of ${entry.name}`, role: 'group' },
    h('h3', {}, 'An agent gets'),
    a ? [
      textBlock('MCP name', a.name),
      textBlock('Description (the bridge\'s provenance and labels, then the page\'s words)', a.tool.description),
      jsonBlock('inputSchema as sent', a.tool.inputSchema),
      a.problem && h('p', { class: 'warn small' }, `The shim offers any object instead: ${a.problem}.`),
      a.tool.outputSchema ? jsonBlock('outputSchema as sent', a.tool.outputSchema) : a.outputProblem && h('p', { class: 'warn small' }, `No outputSchema is sent: ${a.outputProblem}.`),
      jsonBlock('annotations', a.tool.annotations),
      a.tool._meta && jsonBlock('_meta', a.tool._meta),
      h('p', { class: 'small' }, entry.asks
        ? 'An agent\'s call asks you first (the consent window), by this site\'s setting.'
        : 'An agent\'s call runs without asking you first, by this site\'s setting.'),
      notes && notes.length ? h('p', { class: 'muted small' }, notes.join(' ')) : null,
    ] : h('p', { class: 'muted small' }, 'Nothing: this site is not shared with agents (turn it on above).'));
  return h('div', { class: 'sides' }, page, agent);
}

let seq = 0;

/** One control per field; returns [row, read()] where read() gives what was entered. */
function control(f, id) {
  const describedBy = f.description ? `${id}-d` : undefined;
  const common = { id, name: f.name, 'aria-label': f.name, required: f.required || undefined, 'aria-describedby': describedBy };
  let el;
  let read;
  const init = initialText(f);
  switch (f.kind) {
    case 'boolean':
      el = h('input', { ...common, type: 'checkbox', checked: init === true, required: undefined });
      read = () => el.checked;
      break;
    case 'enum':
      el = h('select', common,
        f.required ? null : h('option', { value: '' }, '(none)'),
        f.options.map((o, i) => h('option', { value: String(i) }, typeof o === 'string' ? o : JSON.stringify(o))));
      // No default: a required field shows its first value, another none.
      if (init !== '' && init !== '-1') el.value = init;
      else if (!f.required) el.value = '';
      read = () => el.value;
      break;
    case 'number':
    case 'integer':
      el = h('input', { ...common, type: 'number', step: f.kind === 'integer' ? '1' : 'any', min: f.minimum, max: f.maximum, value: init });
      read = () => el.value;
      break;
    case 'json':
      el = h('textarea', { ...common, rows: 3, spellcheck: 'false', placeholder: 'JSON', value: init });
      read = () => el.value;
      el.addEventListener('input', () => {
        let bad = false;
        if (el.value.trim() !== '') {
          try {
            JSON.parse(el.value);
          } catch {
            bad = true;
          }
        }
        el.setAttribute('aria-invalid', String(bad));
      });
      break;
    default:
      el = h('input', { ...common, type: 'text', value: init });
      read = () => el.value;
  }
  const label = h('label', { for: id }, h('code', {}, f.name), f.required ? h('span', { class: 'req', 'aria-hidden': 'true', title: 'required' }, ' *') : null,
    h('span', { class: 'muted small', 'aria-hidden': 'true' }, ` ${f.kind}`));
  const row = h('div', { class: `field kind-${f.kind}` }, label, el,
    f.description ? h('p', { class: 'muted small', id: describedBy }, f.description) : null,
    h('p', { class: 'field-error error small', id: `${id}-e`, hidden: true }));
  return [row, read, el];
}

/** The result of a run, as the panel shows it. */
function resultBlock(r) {
  const took = `took ${r.ms} ms`;
  if (r.error) {
    return [h('p', {}, h('strong', { class: 'error' }, `Error: ${r.error.code}`), ` · ${took}`), h('pre', { class: 'json result-text' }, r.error.message), warningList(r.warnings)];
  }
  return [
    h('p', {}, h('strong', { class: r.result.isError ? 'error' : 'ok' }, r.result.isError ? 'Result (isError: true)' : 'Result'), ` · ${took}`),
    h('pre', { class: 'json result-text' }, r.result.text),
    r.result.structured && r.result.structured !== null ? h('details', {}, h('summary', {}, 'As JSON (structuredContent)'), h('pre', { class: 'json' }, pretty(r.result.structured))) : null,
    warningList(r.warnings),
  ];
}

/**
 * The "Try NAME" form of a tool entry: a field per property, "Run", and
 * the result. ctx: {send, tabId}.
 */
export function tryForm(entry, ctx) {
  const id = `try-${++seq}`;
  const schema = entry.page.inputSchema;
  const fields = formFields(schema);
  const controls = fields.map((f, i) => [f, ...control(f, `${id}-f${i}`)]);
  const out = h('div', { class: 'try-result', role: 'status', 'aria-live': 'polite', 'aria-label': `Result of ${entry.name}` });
  const run = h('button', { type: 'submit' }, 'Run');
  const form = h('form', { class: 'try', 'aria-label': `Try ${entry.name}: arguments`, novalidate: true },
    h('p', { class: 'muted small' }, fields.length
      ? 'One field per property of the inputSchema; * marks a required one. Run calls the tool once in the page, as you: it does not ask first, and the activity log shows it as yours.'
      : 'The inputSchema names no properties: Run calls the tool with {} once in the page, as you.'),
    controls.map(([, row]) => row),
    h('div', { class: 'row' }, run),
    out);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const entered = {};
    for (const [f, , read] of controls) entered[f.name] = read();
    const r = readForm(fields, entered);
    for (const [f, row, , el] of controls) {
      const err = r.errors && r.errors.find((x) => x.name === f.name);
      const p = row.querySelector('.field-error');
      p.hidden = !err;
      p.textContent = err ? err.message : '';
      el.setAttribute('aria-invalid', String(!!err));
      if (err) el.setAttribute('aria-errormessage', p.id);
      else el.removeAttribute('aria-errormessage');
    }
    if (r.errors) {
      out.replaceChildren(h('p', { class: 'error' }, 'Not run: fix the fields marked above.'));
      return;
    }
    run.disabled = true;
    out.replaceChildren(h('p', { class: 'muted' }, 'Running…'));
    try {
      const res = await ctx.send('tool/try', { tabId: ctx.tabId, frameId: entry.frameId, name: entry.name, arguments: r.arguments });
      out.replaceChildren(...resultBlock(res).filter(Boolean));
    } catch (err) {
      out.replaceChildren(h('p', { class: 'error' }, `Could not run ${entry.name}: ${err.message}`));
    } finally {
      run.disabled = false;
    }
  });
  return h('div', { class: 'try-box' }, form);
}

/**
 * Keeps each tool's Try form across renders, keyed by tab, frame and name:
 * the same node (with what the user typed) goes into the new list.
 */
export class TryForms {
  constructor() {
    /** @type {Map<string, {node: Element, open: boolean, print: string}>} */
    this.forms = new Map();
  }

  key(tabId, entry) {
    return `${tabId}/${entry.frameId}/${entry.name}`;
  }

  isOpen(tabId, entry) {
    const f = this.forms.get(this.key(tabId, entry));
    return !!f && f.open;
  }

  /** The form of entry (built again when its inputSchema changed). */
  node(tabId, entry, ctx) {
    const k = this.key(tabId, entry);
    const print = JSON.stringify(entry.page.inputSchema);
    let f = this.forms.get(k);
    if (!f || f.print !== print) {
      f = { node: tryForm(entry, { ...ctx, tabId }), open: f ? f.open : false, print };
      this.forms.set(k, f);
    }
    return f.node;
  }

  toggle(tabId, entry) {
    const f = this.forms.get(this.key(tabId, entry));
    if (f) f.open = !f.open;
    return !!f && f.open;
  }

  open(tabId, entry) {
    const f = this.forms.get(this.key(tabId, entry));
    if (f) f.open = true;
  }
}
