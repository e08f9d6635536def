// Ambient context: what the bridge sees of a page without the page's help,
// its text selection and its focused element (by role and accessible name).
// Each part is small: the selection is cut to MAX_SELECTION_CHARS, a name to
// MAX_NAME_CHARS; a password field's value is never read.
//
// The relay's sampler (sampler.js) runs this in the isolated world of a
// tab's top frame (the page cannot tamper with that world's DOM
// functions); the functions take element-like objects, so that
// test/ambient.test.js runs them in Node.
//
// The role and name follow the gist of WAI-ARIA, HTML-AAM and accname, not
// every rule: an explicit role attribute, else the implicit role of the tag
// (and type); the name from aria-labelledby, aria-label, the element's
// labels, alt, the text content (for roles named by their content), title,
// placeholder.


export const MAX_SELECTION_CHARS = 300;
export const MAX_NAME_CHARS = 100;

// Roles whose name may come from their content (accname "name from content").
const NAMED_BY_CONTENT = new Set([
  'button', 'cell', 'checkbox', 'columnheader', 'gridcell', 'heading', 'link', 'menuitem',
  'menuitemcheckbox', 'menuitemradio', 'option', 'radio', 'row', 'rowheader', 'switch', 'tab',
  'tooltip', 'treeitem', 'term', 'listitem', 'summary',
]);
// Inputs whose selected text may be read (never a password).
const TEXT_INPUTS = new Set(['text', 'search', 'url', 'tel', 'email']);

const SIMPLE_ROLES = {
  article: 'article', aside: 'complementary', blockquote: 'blockquote', button: 'button', caption: 'caption',
  code: 'code', datalist: 'listbox', dd: 'definition', del: 'deletion', details: 'group', dfn: 'term',
  dialog: 'dialog', dt: 'term', em: 'emphasis', fieldset: 'group', figure: 'figure', footer: 'contentinfo',
  form: 'form', h1: 'heading', h2: 'heading', h3: 'heading', h4: 'heading', h5: 'heading', h6: 'heading',
  header: 'banner', hr: 'separator', ins: 'insertion', li: 'listitem', main: 'main', math: 'math',
  menu: 'list', meter: 'meter', nav: 'navigation', ol: 'list', optgroup: 'group', option: 'option',
  output: 'status', p: 'paragraph', progress: 'progressbar', search: 'search', section: 'region',
  strong: 'strong', sub: 'subscript', summary: 'summary', sup: 'superscript', table: 'table',
  tbody: 'rowgroup', td: 'cell', textarea: 'textbox', tfoot: 'rowgroup', th: 'columnheader',
  thead: 'rowgroup', time: 'time', tr: 'row', ul: 'list',
};
const INPUT_ROLES = {
  button: 'button', checkbox: 'checkbox', color: '', date: '', 'datetime-local': '', email: 'textbox',
  file: '', hidden: '', image: 'button', month: '', number: 'spinbutton', password: 'textbox', radio: 'radio',
  range: 'slider', reset: 'button', search: 'searchbox', submit: 'button', tel: 'textbox', text: 'textbox',
  time: '', url: 'textbox', week: '',
};
const LABELABLE = new Set(['button', 'input', 'meter', 'output', 'progress', 'select', 'textarea']);

function attr(el, name) {
  try {
    const v = el.getAttribute(name);
    return typeof v === 'string' ? v : null;
  } catch {
    return null;
  }
}

function tagOf(el) {
  const t = el && el.tagName;
  return typeof t === 'string' ? t.toLowerCase() : '';
}

function collapse(s) {
  return String(s ?? '').replace(/\s+/g, ' ').trim();
}

/** Cuts text to max characters (code points), ending with "…" when cut. */
function cut(s, max) {
  const chars = Array.from(s);
  if (chars.length <= max) return { text: s, cut: false };
  return { text: chars.slice(0, max - 1).join('') + '…', cut: true };
}

function inputType(el) {
  const t = (attr(el, 'type') || 'text').toLowerCase();
  return Object.prototype.hasOwnProperty.call(INPUT_ROLES, t) ? t : 'text';
}

/** The element's role: its role attribute's first token, else its implicit role, else "". */
export function roleOf(el) {
  const explicit = collapse(attr(el, 'role') || '').toLowerCase().split(' ')[0];
  if (explicit) return explicit;
  const tag = tagOf(el);
  switch (tag) {
    case 'a':
    case 'area':
      return attr(el, 'href') !== null ? 'link' : '';
    case 'img':
      return attr(el, 'alt') === '' ? 'presentation' : 'img';
    case 'input': {
      const type = inputType(el);
      if (attr(el, 'list') !== null && TEXT_INPUTS.has(type)) return 'combobox';
      return INPUT_ROLES[type];
    }
    case 'select': {
      const size = Number(attr(el, 'size'));
      return attr(el, 'multiple') !== null || size > 1 ? 'listbox' : 'combobox';
    }
    default:
      if (Object.prototype.hasOwnProperty.call(SIMPLE_ROLES, tag)) return SIMPLE_ROLES[tag];
  }
  if (el.isContentEditable === true) return 'textbox';
  return '';
}

function textOf(el) {
  try {
    return collapse(el.textContent);
  } catch {
    return '';
  }
}

function byIds(el, ids) {
  const doc = el.ownerDocument;
  if (!doc || typeof doc.getElementById !== 'function') return '';
  const parts = [];
  for (const id of ids.split(/\s+/)) {
    if (!id) continue;
    const ref = doc.getElementById(id);
    if (!ref) continue;
    const label = attr(ref, 'aria-label');
    parts.push(collapse(label || textOf(ref)));
  }
  return collapse(parts.join(' '));
}

function labelsOf(el) {
  let labels;
  try {
    labels = el.labels;
  } catch {
    labels = null;
  }
  if (!labels || typeof labels.length !== 'number') return '';
  const parts = [];
  for (let i = 0; i < labels.length; i++) parts.push(textOf(labels[i]));
  return collapse(parts.join(' '));
}

/**
 * The element's accessible name, whitespace collapsed and cut to
 * MAX_NAME_CHARS; "" when it has none. role is the element's role (roleOf).
 */
export function nameOf(el, role = roleOf(el)) {
  const tag = tagOf(el);
  const candidates = [
    () => {
      const ids = attr(el, 'aria-labelledby');
      return ids ? byIds(el, ids) : '';
    },
    () => collapse(attr(el, 'aria-label') || ''),
    () => (LABELABLE.has(tag) ? labelsOf(el) : ''),
    () => {
      if (tag === 'img' || tag === 'area' || (tag === 'input' && inputType(el) === 'image')) return collapse(attr(el, 'alt') || '');
      if (tag === 'input' && ['button', 'submit', 'reset'].includes(inputType(el))) {
        const v = attr(el, 'value');
        if (v !== null) return collapse(v);
        return { submit: 'Submit', reset: 'Reset' }[inputType(el)] || '';
      }
      if (tag === 'fieldset' || tag === 'figure' || tag === 'table') {
        const first = el.firstElementChild;
        if (first && ['legend', 'figcaption', 'caption'].includes(tagOf(first))) return textOf(first);
      }
      return '';
    },
    () => (NAMED_BY_CONTENT.has(role) ? textOf(el) : ''),
    () => collapse(attr(el, 'title') || ''),
    () => collapse(attr(el, 'placeholder') || attr(el, 'aria-placeholder') || ''),
    // The last resort for elements without a role of their own.
    () => (!role && tag !== 'iframe' && el.isContentEditable !== true ? textOf(el) : ''),
  ];
  for (const c of candidates) {
    let name;
    try {
      name = c();
    } catch {
      name = '';
    }
    if (name) return cut(name, MAX_NAME_CHARS).text;
  }
  return '';
}

/** Describes an element: {role?, name?, tag}. */
export function describeElement(el) {
  const role = roleOf(el);
  const name = nameOf(el, role);
  const out = {};
  if (role) out.role = role;
  if (name) out.name = name;
  out.tag = tagOf(el);
  return out;
}

/** The selection's text, whitespace collapsed and cut: {selection, selectionCut} or {} when empty. */
export function selectionFrom(text) {
  const s = collapse(text);
  if (!s) return {};
  const c = cut(s, MAX_SELECTION_CHARS);
  return c.cut ? { selection: c.text, selectionCut: true } : { selection: c.text };
}

// Text selected inside a text field (which the document's selection does
// not show), never a password.
function fieldSelection(el) {
  const tag = tagOf(el);
  if (tag !== 'textarea' && !(tag === 'input' && TEXT_INPUTS.has(inputType(el)))) return '';
  try {
    const { selectionStart: a, selectionEnd: b, value } = el;
    if (typeof a === 'number' && typeof b === 'number' && b > a && typeof value === 'string') return value.slice(a, b);
  } catch {
    // selection is not supported by this type
  }
  return '';
}

/** The focused element: the document's active element, through open shadow roots; null for none. */
export function focusedElement(doc) {
  let el = doc.activeElement;
  if (!el || el === doc.body || el === doc.documentElement) return null;
  for (let i = 0; i < 32 && el.shadowRoot && el.shadowRoot.activeElement; i++) el = el.shadowRoot.activeElement;
  return el;
}

/**
 * The ambient context of a document: {selection?, selectionCut?, focused?},
 * or undefined when there is nothing to say. doc is a Document (or like
 * one: activeElement, body, documentElement); win has getSelection().
 */
export function ambientOf(doc, win) {
  const out = {};
  const focused = focusedElement(doc);
  let text = '';
  try {
    const sel = win.getSelection();
    text = sel ? String(sel) : '';
  } catch {
    text = '';
  }
  if (!collapse(text) && focused) text = fieldSelection(focused);
  Object.assign(out, selectionFrom(text));
  if (focused) out.focused = describeElement(focused);
  return Object.keys(out).length ? out : undefined;
}
