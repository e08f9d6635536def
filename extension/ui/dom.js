// The extension pages' one DOM builder, without a framework:
// h(tag, attrs, ...children).
// attrs: plain attributes (aria-*, role, class, ...), on<Event> listeners,
// and a few properties (checked, disabled, open, value, hidden). Children
// are nodes, strings (as text, never HTML) or arrays; null and false are
// skipped.

const PROPS = new Set(['checked', 'disabled', 'open', 'value', 'hidden']);

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2).toLowerCase(), v);
    else if (PROPS.has(k)) el[k] = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/**
 * A switch: a checkbox with role "switch", its accessible name label (the
 * contract tests and screen readers use), a visible text, and onChange(on).
 */
export function toggle({ label, text, checked, disabled, onChange, describedBy }) {
  const input = h('input', {
    type: 'checkbox',
    role: 'switch',
    'aria-label': label,
    'aria-describedby': describedBy,
    checked,
    disabled,
    onChange: (e) => onChange(e.target.checked, e.target),
  });
  return h('label', { class: 'switch' }, input, h('span', { class: 'track', 'aria-hidden': 'true' }), text && h('span', { class: 'switch-text' }, text));
}

/** Replaces the children of el. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** A time (Unix ms) as the user's local HH:MM:SS, or HH:MM without seconds. */
export function timeOfDay(ms, { seconds = true } = {}) {
  const d = new Date(ms);
  const parts = seconds ? [d.getHours(), d.getMinutes(), d.getSeconds()] : [d.getHours(), d.getMinutes()];
  return parts.map((n) => String(n).padStart(2, '0')).join(':');
}
