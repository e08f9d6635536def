// Declarative WebMCP (the draft's declarative-api-explainer.md): how a
// <form toolname tooldescription> and its controls become a tool's input
// schema, and how a call's input fills them. The draft leaves the
// synthesis TBD ("Chromium is implementing a loose version"); this follows
// what Chromium 156 derives (measured: e2e/webmcp2026_test.go), plus
// toolparamtitle:
//
//   text-like <input>, <textarea>   {"type":"string"} (+ minLength, maxLength, pattern; format for email, url, date, time)
//   <input type=number|range>       {"type":"number"} (+ minimum, maximum; multipleOf the step, 1 by default)
//   <input type=checkbox>           {"type":"boolean"}
//   radio buttons of one name       {"type":"string","enum":[their values]}
//   <select>                        {"type":"string","enum":[option values]}; multiple: an array of them
//   description                     toolparamdescription, else the control's <label>, else aria-description
//   title                           toolparamtitle
//   required                        the names of required controls
//
// Controls without a name, disabled ones, buttons, and hidden, file and
// image inputs are left out. The DOM is reached through dom (see forms.js),
// so Node's tests hand in plain objects.

import { jsonStringify } from '../builtins.js';

const SKIP_TYPES = new Set(['submit', 'button', 'reset', 'image', 'file', 'hidden']);
const FORMATS = { email: 'email', url: 'uri', date: 'date', time: 'time' };

function lower(s) {
  return typeof s === 'string' ? s.toLowerCase() : '';
}

/** Whether el is a control an agent fills: named, enabled, not a button. */
export function isFillable(el) {
  const tag = lower(el.tagName);
  if (tag !== 'input' && tag !== 'select' && tag !== 'textarea') return false;
  if (typeof el.name !== 'string' || el.name === '' || el.disabled) return false;
  return tag !== 'input' || !SKIP_TYPES.has(lower(el.type));
}

function num(v) {
  if (v === null || v === undefined || v === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
}

// The schema of one control (radio groups are done by the caller).
function controlSchema(el, dom) {
  const tag = lower(el.tagName);
  if (tag === 'select') {
    const values = [];
    for (const o of el.options || []) if (!o.disabled) values.push(String(o.value));
    const one = { type: 'string', enum: values };
    return el.multiple ? { type: 'array', items: one } : one;
  }
  const type = tag === 'textarea' ? 'textarea' : lower(el.type) || 'text';
  if (type === 'checkbox') return { type: 'boolean' };
  if (type === 'number' || type === 'range') {
    const s = { type: 'number' };
    const min = num(dom.attr(el, 'min'));
    const max = num(dom.attr(el, 'max'));
    if (min !== undefined) s.minimum = min;
    if (max !== undefined) s.maximum = max;
    const step = dom.attr(el, 'step');
    if (lower(step) !== 'any') {
      const n = num(step);
      s.multipleOf = n !== undefined && n > 0 ? n : 1;
    }
    return s;
  }
  const s = { type: 'string' };
  if (FORMATS[type]) s.format = FORMATS[type];
  const minLength = num(dom.attr(el, 'minlength'));
  const maxLength = num(dom.attr(el, 'maxlength'));
  if (minLength !== undefined && minLength >= 0) s.minLength = minLength;
  if (maxLength !== undefined && maxLength >= 0) s.maxLength = maxLength;
  const pattern = dom.attr(el, 'pattern');
  if (pattern) s.pattern = pattern;
  return s;
}

function describe(el, dom) {
  const d = dom.attr(el, 'toolparamdescription');
  if (d) return d;
  const label = dom.labelText(el);
  if (label) return label;
  return dom.attr(el, 'aria-description') || '';
}

/** The input schema of a form tool, from its fillable controls. */
export function formSchema(form, dom) {
  const properties = {};
  const required = [];
  const radios = new Map();
  for (const el of dom.controls(form)) {
    if (!isFillable(el)) continue;
    const name = el.name;
    if (lower(el.type) === 'radio' && lower(el.tagName) === 'input') {
      let g = radios.get(name);
      if (!g) {
        g = { type: 'string', enum: [] };
        radios.set(name, g);
        properties[name] = g;
      }
      g.enum.push(String(el.value));
      if (!g.description) {
        const d = describe(el, dom);
        if (d) g.description = d;
      }
      if (el.required && !required.includes(name)) required.push(name);
      continue;
    }
    if (name in properties) continue; // the first control of a name speaks for it
    const s = controlSchema(el, dom);
    const title = dom.attr(el, 'toolparamtitle');
    if (title) s.title = title;
    const d = describe(el, dom);
    if (d) s.description = d;
    properties[name] = s;
    if (el.required) required.push(name);
  }
  return { type: 'object', properties, required };
}

/**
 * Fills form's controls from input (the call's arguments, already checked
 * against formSchema by the bridge) and fires input and change on each, as
 * a user's typing would. Returns the names of input that no control takes.
 */
export function fillForm(form, input, dom) {
  const byName = new Map();
  for (const el of dom.controls(form)) {
    if (!isFillable(el)) continue;
    const list = byName.get(el.name);
    if (list) list.push(el);
    else byName.set(el.name, [el]);
  }
  const unknown = [];
  for (const key of Object.keys(input)) {
    const els = byName.get(key);
    if (!els) {
      unknown.push(key);
      continue;
    }
    const v = input[key];
    const el = els[0];
    const tag = lower(el.tagName);
    const type = lower(el.type);
    if (tag === 'input' && type === 'radio') {
      for (const r of els) r.checked = String(r.value) === String(v);
      const on = els.find((r) => r.checked) || el;
      dom.fire(on, 'input');
      dom.fire(on, 'change');
      continue;
    }
    if (tag === 'input' && type === 'checkbox') el.checked = v === true || v === 'true' || v === 'on';
    else if (tag === 'select' && el.multiple) {
      const want = Array.isArray(v) ? v.map(String) : [String(v)];
      for (const o of el.options || []) o.selected = want.includes(String(o.value));
    } else el.value = v === null || v === undefined ? '' : typeof v === 'object' ? jsonStringify(v) : String(v);
    dom.fire(el, 'input');
    dom.fire(el, 'change');
  }
  return unknown;
}
