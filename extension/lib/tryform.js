// The inspector's "Try NAME" form, as data: one field per property of a
// tool's inputSchema, and the arguments read back from what the user typed.
// Pure: ui/inspector.js builds the DOM from it.
//
// A field's kind: 'number' and 'integer' (a number input; sent as a JSON
// number), 'boolean' (a checkbox), 'enum' (a select of the values), 'json'
// (arrays, objects, and anything the form cannot say otherwise: JSON text,
// checked before it is sent) and 'string'. Defaults fill the fields; a
// required field must be filled.

const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

// The one type of a property schema, '' for none or several.
function typeOf(s) {
  if (typeof s.type === 'string') return s.type;
  if (Array.isArray(s.type)) {
    const t = s.type.filter((x) => x !== 'null');
    return t.length === 1 ? t[0] : '';
  }
  return '';
}

/** A field for property name of schema s. */
export function field(name, s, required) {
  s = isObj(s) ? s : {};
  const f = { name, required, description: typeof s.description === 'string' ? s.description : '', title: typeof s.title === 'string' ? s.title : '' };
  const type = typeOf(s);
  if (Array.isArray(s.enum) && s.enum.length > 0) {
    f.kind = 'enum';
    f.options = s.enum;
  } else if (type === 'number' || type === 'integer') f.kind = type;
  else if (type === 'boolean') f.kind = 'boolean';
  else if (type === 'string') f.kind = 'string';
  else f.kind = 'json';
  if (Object.hasOwn(s, 'default')) f.default = s.default;
  for (const k of ['minimum', 'maximum']) if (typeof s[k] === 'number') f[k] = s[k];
  return f;
}

/** The fields of a tool's inputSchema, in the order of its properties. */
export function formFields(schema) {
  if (!isObj(schema) || !isObj(schema.properties)) return [];
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  return Object.entries(schema.properties).map(([k, s]) => field(k, s, required.has(k)));
}

/** The text a field shows at first: its default, as the field writes it. */
export function initialText(f) {
  if (!Object.hasOwn(f, 'default')) return f.kind === 'boolean' ? false : '';
  if (f.kind === 'boolean') return f.default === true;
  if (f.kind === 'json') return JSON.stringify(f.default, null, 2);
  if (f.kind === 'enum') return String(f.options.findIndex((o) => JSON.stringify(o) === JSON.stringify(f.default)));
  return String(f.default);
}

/**
 * The value of f from what the user entered (a checkbox's checked state, a
 * select's option index as text, else the text): {value} or {skip: true}
 * (left empty, not required) or {error}.
 */
export function readField(f, entered) {
  if (f.kind === 'boolean') return { value: entered === true };
  const text = String(entered ?? '');
  if (text.trim() === '') return f.required ? { error: `${f.name} is required` } : { skip: true };
  switch (f.kind) {
    case 'enum': {
      const i = Number(text);
      return Number.isInteger(i) && i >= 0 && i < f.options.length ? { value: f.options[i] } : { error: `choose one of ${f.name}'s values` };
    }
    case 'number':
    case 'integer': {
      const n = Number(text);
      if (!Number.isFinite(n)) return { error: `${f.name} must be a number, not ${JSON.stringify(text)}` };
      if (f.kind === 'integer' && !Number.isInteger(n)) return { error: `${f.name} must be a whole number` };
      return { value: n };
    }
    case 'json':
      try {
        return { value: JSON.parse(text) };
      } catch (e) {
        return { error: `${f.name} is not valid JSON (${e.message})` };
      }
    default:
      return { value: text };
  }
}

/**
 * The arguments of a call from the fields and what was entered for each
 * (entered: name -> value as readField takes it): {arguments} or {errors}.
 */
export function readForm(fields, entered) {
  const args = {};
  const errors = [];
  for (const f of fields) {
    const r = readField(f, entered[f.name]);
    if (r.error) errors.push({ name: f.name, message: r.error });
    else if (!r.skip) args[f.name] = r.value;
  }
  return errors.length ? { errors } : { arguments: args };
}
