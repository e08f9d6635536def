// Declarative WebMCP (the draft's declarative-api-explainer.md): how a
// <form toolname tooldescription> and its controls become a tool's input
// schema, and how a call's input fills them. The draft leaves the
// synthesis TBD ("Chromium is implementing a loose version"); this follows
// what Chromium 156 derives, key for key and in its key order, so that an
// agent sees the same tool in both modes (e2e/forms_conform_test.go
// compares the two in real Chromium over every kind of control):
//
//   text-like <input>, <textarea>   {"type":"string"} (+ pattern; no minLength or maxLength)
//   <input type=date>               {"type":"string","format":"date"}, the date-format note in its description
//   time, datetime-local, month,    {"type":"string","format":"<a regular expression>"} (Chromium puts the
//   week, color                     pattern in "format"; time and datetime-local allow seconds when step does)
//   <input type=number|range>       {"type":"number"} (+ minimum, maximum; multipleOf the step, 1 by default)
//   one <input type=checkbox>       {"type":"boolean"}
//   checkboxes of one name          {"type":"array","items":<the choices>,"uniqueItems":true}
//   radio buttons of one name       the choices: {"type":"string","anyOf":[{type,const,title}],"enum":[values]}
//                                   (each title its label's text)
//   <select>                        the choices (each title its option's text, disabled ones too);
//                                   multiple: {"type":"array","items":<the choices>,"uniqueItems":true}
//   description                     toolparamdescription, else the control's <label>, else
//                                   aria-description (none for two or more radio buttons or checkboxes)
//   required                        the names of required controls
//
// Controls without a name, disabled ones, buttons, and hidden, file and
// image inputs are left out, and so is a name that controls of different
// kinds share (two text fields, a radio button and a text field): Chromium
// leaves those out too. toolparamtitle is not read (Chromium 156 does not).
// The DOM is reached through dom (see forms.js), so Node's tests hand in
// plain objects.

import { jsonStringify } from '../../source/builtins.js';

const SKIP_TYPES = new Set(['submit', 'button', 'reset', 'image', 'file', 'hidden']);

/** The note Chromium 156 adds to a date field's description. */
export const DATE_NOTE = "Dates MUST be provided in 'YYYY-MM-DD' format.";

const TIME = '([01][0-9]|2[0-3]):[0-5][0-9]';
const DATE = '[0-9]{4}-(0[1-9]|1[0-2])-[0-9]{2}';
// The patterns of the inputs whose value has a fixed syntax (Chromium 156's).
const PATTERNS = {
  month: '^[0-9]{4}-(0[1-9]|1[0-2])$',
  week: '^[0-9]{4}-W(0[1-9]|[1-4][0-9]|5[0-3])$',
  color: '^#[0-9a-zA-Z]{6}$',
};

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

// The kind of a fillable control: its input type, or select, textarea.
function kind(el) {
  const tag = lower(el.tagName);
  if (tag !== 'input') return tag;
  return lower(el.type) || 'text';
}

function num(v) {
  if (v === null || v === undefined || v === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
}

// The seconds part of a time's pattern: none at the default step (60 s),
// seconds when the step is not whole minutes, milliseconds when it is not
// whole seconds.
function secondsPart(el, dom) {
  const step = num(dom.attr(el, 'step'));
  if (step === undefined || step <= 0 || step % 60 === 0) return '';
  return step % 1 === 0 ? '(:[0-5][0-9])?' : '(:[0-5][0-9](\\.[0-9]{1,3})?)?';
}

function describe(el, dom) {
  const d = dom.attr(el, 'toolparamdescription');
  if (d) return d;
  const label = dom.labelText(el);
  if (label) return label;
  return dom.attr(el, 'aria-description') || '';
}

// {type, anyOf: [{type, const, title?}], enum}: the choices of radio
// buttons, checkboxes or a select's options.
function choices(list) {
  const anyOf = [];
  const values = [];
  for (const { value, title } of list) {
    const c = { type: 'string', const: value };
    if (title) c.title = title;
    anyOf.push(c);
    values.push(value);
  }
  return { type: 'string', anyOf, enum: values };
}

// The schema of a control that is alone with its name.
function controlSchema(el, dom) {
  const k = kind(el);
  let s;
  if (k === 'select') {
    const one = choices(Array.from(el.options || [], (o) => ({ value: String(o.value), title: dom.text(o) })));
    s = el.multiple ? { type: 'array', items: one, uniqueItems: true } : one;
  } else if (k === 'checkbox') {
    s = { type: 'boolean' };
  } else if (k === 'number' || k === 'range') {
    s = { type: 'number' };
    const min = num(dom.attr(el, 'min'));
    const max = num(dom.attr(el, 'max'));
    if (min !== undefined) s.minimum = min;
    if (max !== undefined) s.maximum = max;
    const step = dom.attr(el, 'step');
    if (lower(step) !== 'any') {
      const n = num(step);
      s.multipleOf = n !== undefined && n > 0 ? n : 1;
    }
  } else if (k === 'date') {
    s = { type: 'string', format: 'date' };
  } else if (k === 'time') {
    s = { type: 'string', format: `^${TIME}${secondsPart(el, dom)}$` };
  } else if (k === 'datetime-local') {
    s = { type: 'string', format: `^${DATE}T${TIME}${secondsPart(el, dom)}$` };
  } else if (PATTERNS[k]) {
    s = { type: 'string', format: PATTERNS[k] };
  } else {
    s = { type: 'string' };
    const pattern = k === 'textarea' ? null : dom.attr(el, 'pattern');
    if (pattern) s.pattern = pattern;
  }
  const d = describe(el, dom);
  if (k === 'date') s.description = d ? `${d} (${DATE_NOTE})` : DATE_NOTE;
  else if (d) s.description = d;
  return s;
}

// The form's fillable controls by name, in document order.
function byName(form, dom) {
  const groups = new Map();
  for (const el of dom.controls(form)) {
    if (!isFillable(el)) continue;
    const list = groups.get(el.name);
    if (list) list.push(el);
    else groups.set(el.name, [el]);
  }
  return groups;
}

// How a name's controls take a value: 'radio' (one of them), 'checkboxes'
// (an array of their values), 'one' (the only control), or null: controls
// of different kinds, or several that are not all radio buttons or all
// checkboxes, which no value fills.
function groupKind(els) {
  const k = kind(els[0]);
  if (k === 'radio') return els.every((e) => kind(e) === 'radio') ? 'radio' : null;
  if (els.length === 1) return 'one';
  return k === 'checkbox' && els.every((e) => kind(e) === 'checkbox') ? 'checkboxes' : null;
}

/** The input schema of a form tool, from its fillable controls. */
export function formSchema(form, dom) {
  const properties = {};
  const required = [];
  for (const [name, els] of byName(form, dom)) {
    const g = groupKind(els);
    if (!g) continue;
    if (g === 'one') properties[name] = controlSchema(els[0], dom);
    else {
      const one = choices(els.map((e) => ({ value: String(e.value), title: dom.labelText(e) })));
      properties[name] = g === 'radio' ? one : { type: 'array', items: one, uniqueItems: true };
      // A radio button alone with its name is described as a control is.
      const d = els.length === 1 && describe(els[0], dom);
      if (d) one.description = d;
    }
    if (els.some((e) => e.required)) required.push(name);
  }
  return { type: 'object', properties, required };
}

function sameList(a, b) {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/**
 * Fills form's controls from input (the call's arguments, already checked
 * against formSchema by the bridge), with the events Chromium 156 fires: a
 * text-like control or a select whose value changes gets input and change,
 * once, and none when it holds the value already; a checkbox (each of a
 * group) and the radio button chosen get change every time, and input
 * before it when their state changes. Returns the names of input that no
 * control takes.
 */
export function fillForm(form, input, dom) {
  const groups = byName(form, dom);
  const unknown = [];
  // Checks or unchecks a checkbox or radio button.
  const toggle = (el, on) => {
    if (!!el.checked !== on) {
      el.checked = on;
      dom.fire(el, 'input');
    }
    dom.fire(el, 'change');
  };
  for (const key of Object.keys(input)) {
    const els = groups.get(key);
    const g = els && groupKind(els);
    if (!g) {
      unknown.push(key);
      continue;
    }
    const v = input[key];
    if (g === 'radio') {
      const chosen = els.find((r) => String(r.value) === String(v));
      for (const r of els) if (r !== chosen) r.checked = false;
      if (chosen) toggle(chosen, true);
      continue;
    }
    if (g === 'checkboxes') {
      const want = Array.isArray(v) ? v.map(String) : [String(v)];
      for (const c of els) toggle(c, want.includes(String(c.value)));
      continue;
    }
    const el = els[0];
    const k = kind(el);
    if (k === 'checkbox') {
      toggle(el, v === true || v === 'true' || v === 'on');
      continue;
    }
    if (k === 'select' && el.multiple) {
      const want = Array.isArray(v) ? v.map(String) : [String(v)];
      const options = Array.from(el.options || []);
      const before = options.map((o) => !!o.selected);
      const after = options.map((o) => want.includes(String(o.value)));
      if (sameList(before, after)) continue;
      options.forEach((o, i) => {
        o.selected = after[i];
      });
    } else {
      const text = v === null || v === undefined ? '' : typeof v === 'object' ? jsonStringify(v) : String(v);
      if (el.value === text) continue;
      el.value = text;
    }
    dom.fire(el, 'input');
    dom.fire(el, 'change');
  }
  return unknown;
}
