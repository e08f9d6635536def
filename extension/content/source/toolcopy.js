// What of a tool and of a result travels to agents: copies, field by field,
// never the page's objects themselves (tool objects may become
// non-serialisable interface objects in later browsers).

import { TOOL_NAME_PATTERN } from '../../lib/names.js';
import { HINTS } from '../../lib/protocol.js';
import { schemaForReport } from '../../lib/schema.js';
import { isObject, jsonParse, jsonStringify } from './builtins.js';

export { TOOL_NAME_PATTERN };

/**
 * The annotations that travel, each a boolean (lib/protocol.js's HINTS):
 * consequentialHint and debugging are WebMCP's own; the worker's
 * ask-before-acting reads consequentialHint, the shim maps both. A copy
 * taken at load, before any page script runs.
 */
const COPIED = [...HINTS];

// Errors whose bridge error code is not tool_error, by error object.
const codes = new WeakMap();

/**
 * An Error that bridge.js answers with the given error code of the bridge
 * protocol (e.g. "navigated") instead of tool_error.
 */
export function bridgeError(code, message) {
  const e = new Error(message);
  codes.set(e, code);
  return e;
}

/** The bridge error code of err: its bridgeError code, else tool_error. */
export function errorCode(err) {
  return (isObject(err) && codes.get(err)) || 'tool_error';
}

/**
 * What a call answers when the browser's executeTool resolved to null: the
 * draft's (and Chromium's) way to say that the call navigated the page
 * (a declarative form's submission), so the tool's response never came.
 */
export function navigatedError(name) {
  return bridgeError('navigated', `tool ${jsonStringify(String(name))} navigated the page (it submitted a form or followed a link): the new page is its answer`);
}

/**
 * The boolean hints of annotations a (only those set to true when onlyTrue),
 * or undefined when there are none.
 */
export function copyHints(a, onlyTrue) {
  if (!isObject(a)) return undefined;
  const out = {};
  let any = false;
  for (const h of COPIED) {
    let v;
    try {
      v = a[h];
    } catch {
      continue;
    }
    if (typeof v === 'boolean' && (v || !onlyTrue)) {
      out[h] = v;
      any = true;
    }
  }
  return any ? out : undefined;
}

/**
 * A tool's title as the agent gets it: the tool's own title, else the
 * title in its annotations (MCP's place for it, where page libraries such
 * as @mcp-b/react-webmcp put it; Chromium 156 keeps only the tool's own);
 * undefined for none. Never throws.
 */
export function copyTitle(tool) {
  for (const read of [() => tool.title, () => tool.annotations.title]) {
    let t;
    try {
      t = read();
    } catch {
      t = undefined;
    }
    if (typeof t === 'string' && t !== '') return t;
  }
  return undefined;
}

/**
 * The inputSchema a tool report carries for a page's schema (an object, or
 * its JSON text): a JSON copy within lib/schema.js's bounds, the stand-in
 * of a schema past them (rejectedSchema: the tool still travels, with a
 * note), or undefined for no schema (none, not an object, not JSON text).
 */
export function copySchema(s) {
  try {
    if (typeof s === 'string') s = jsonParse(s);
    if (!isObject(s) || Array.isArray(s)) return undefined;
    return schemaForReport(s);
  } catch {
    return undefined;
  }
}

/**
 * The fields of a tool that travel to agents: {name, title? (copyTitle),
 * description, inputSchema?, outputSchema?, annotations?}, or null for a tool without a
 * valid name or whose fields cannot be read. Each field is read by name
 * (browsers may hand out Tool interface objects that spreading and
 * JSON.stringify do not copy); a null schema or annotations is none.
 * hints, when given, replaces the tool's own annotations (null: none).
 */
export function copyMeta(tool, hints) {
  let name;
  try {
    name = tool.name;
  } catch {
    return null;
  }
  if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) return null;
  const meta = { name };
  try {
    const title = copyTitle(tool);
    if (title !== undefined) meta.title = title;
    const d = tool.description;
    meta.description = typeof d === 'string' ? d : '';
    const schema = copySchema(tool.inputSchema);
    if (schema) meta.inputSchema = schema;
    const out = copySchema(tool.outputSchema);
    if (out) meta.outputSchema = out;
    const a = hints === undefined ? copyHints(tool.annotations, false) : hints;
    if (a) meta.annotations = a;
  } catch {
    return null;
  }
  return meta;
}

/** A value as JSON data: what a result carries. */
export function toJSONValue(v) {
  const s = jsonStringify(v);
  return s === undefined ? null : jsonParse(s);
}

/**
 * executeTool resolves to a JSON string, or the string itself when the tool
 * returned a string: the value, or the string when it is not JSON.
 */
export function parseResultString(s) {
  if (typeof s !== 'string') return s;
  try {
    return jsonParse(s);
  } catch {
    return s;
  }
}

/** The message of an error (anything thrown), never throwing itself. */
export function errorText(err) {
  try {
    if (isObject(err) && 'message' in err) {
      const m = String(err.message);
      if (m !== '') return m;
      if (err.name) return String(err.name);
    }
    return String(err);
  } catch {
    return 'the tool failed with an error that cannot be shown';
  }
}
