// The WebMCP draft's rules for the polyfill: how registerTool reads a tool
// and its options, and what getTools() lists.

import { DOMExc, URLCtor, isObject, jsonParse, jsonStringify } from '../../source/builtins.js';
import { TOOL_NAME_PATTERN, copyHints, copyTitle } from '../../source/toolcopy.js';
import { originOf } from './sameorigin.js';

export function modelContextError(method, message) {
  return new TypeError(`Failed to execute '${method}' on 'ModelContext': ${message}`);
}

/**
 * The draft's ToolAnnotations members, in lexicographic order (the order
 * WebIDL reads them): consequentialHint (webmcp PR "Add consequentialHint
 * to ToolAnnotations", 2026-07-01), debugging (Chromium 156 reads it),
 * readOnlyHint and untrustedContentHint (index.bs). Each is a boolean,
 * false by default; debugging is listed only when given.
 */
export const DRAFT_ANNOTATIONS = ['consequentialHint', 'debugging', 'readOnlyHint', 'untrustedContentHint'];

// Reads a ToolAnnotations dictionary as WebIDL does: each member once, in
// order, converted to a boolean (ToBoolean), undefined when absent.
function readAnnotations(a) {
  const out = {};
  for (const k of DRAFT_ANNOTATIONS) {
    const v = a[k];
    if (v !== undefined) out[k] = !!v;
  }
  return out;
}

// Reads a schema member (inputSchema, outputSchema): an object, serialised
// to JSON as the draft says (cycles and a toJSON that yields nothing throw).
function readSchema(value, member, method) {
  if (value === undefined) return undefined;
  if (!isObject(value)) {
    throw modelContextError(method, `Failed to read the '${member}' property from 'ModelContextTool': Failed to convert value to 'object'.`);
  }
  return value;
}

function serialiseSchema(value, member, method) {
  if (value === undefined) return undefined;
  const s = jsonStringify(value); // throws on cycles, as the draft says
  if (s === undefined) throw modelContextError(method, `${member} does not serialize to JSON.`);
  const schema = jsonParse(s);
  return isObject(schema) && !Array.isArray(schema) ? schema : undefined;
}

/**
 * Reads a ModelContextTool dictionary the way WebIDL does (members in
 * lexicographic order, each once) and applies the draft's rules; tools is
 * the registry it joins (name -> record). Returns the record, or throws.
 * The record's hints are what travel to agents: the page's own booleans
 * (MCP's destructiveHint, idempotentHint, openWorldHint included, as pages
 * written for MCP set them) over the draft's members converted.
 */
export function readTool(tools, tool, method) {
  if (!isObject(tool)) throw modelContextError(method, "The provided value is not of type 'ModelContextTool'.");
  const annotations = tool.annotations;
  if (annotations !== undefined && annotations !== null && !isObject(annotations)) {
    throw modelContextError(method, "Failed to read the 'annotations' property from 'ModelContextTool': The provided value is not of type 'ToolAnnotations'.");
  }
  const draft = isObject(annotations) ? readAnnotations(annotations) : undefined;
  const description = tool.description;
  if (description === undefined) throw modelContextError(method, "Failed to read the 'description' property from 'ModelContextTool': Required member is undefined.");
  const execute = tool.execute;
  if (execute === undefined) throw modelContextError(method, "Failed to read the 'execute' property from 'ModelContextTool': Required member is undefined.");
  if (typeof execute !== 'function') throw modelContextError(method, "Failed to read the 'execute' property from 'ModelContextTool': The given value is not a function.");
  const inputSchema = readSchema(tool.inputSchema, 'inputSchema', method);
  const rawName = tool.name;
  if (rawName === undefined) throw modelContextError(method, "Failed to read the 'name' property from 'ModelContextTool': Required member is undefined.");
  const outputSchema = readSchema(tool.outputSchema, 'outputSchema', method);
  const title = tool.title;
  const name = String(rawName);
  const desc = String(description);
  if (!TOOL_NAME_PATTERN.test(name)) throw new DOMExc('Invalid tool name', 'InvalidStateError');
  if (tools.has(name)) throw new DOMExc('Duplicate tool name', 'InvalidStateError');
  if (desc === '') throw new DOMExc('Description is required', 'InvalidStateError');
  const schema = serialiseSchema(inputSchema, 'inputSchema', method);
  const outSchema = serialiseSchema(outputSchema, 'outputSchema', method);
  let hints = copyHints(annotations, false);
  // The agent's title where the tool has none of its own (getTools() lists
  // the tool's own alone, as Chromium 156 does).
  const annotationsTitle = isObject(annotations) ? copyTitle({ annotations }) : undefined;
  if (draft && Object.keys(draft).length) hints = { ...hints, ...draft };
  return {
    name,
    title: title === undefined || title === null ? undefined : String(title),
    description: desc,
    inputSchema: schema,
    outputSchema: outSchema,
    hints,
    annotationsTitle,
    annotations: draft,
    execute,
    how: 'register',
  };
}

/**
 * Reads a list of origins (registerTool's exposedTo, getTools's
 * fromOrigins): a sequence of trustworthy origins, returned as their
 * serialisations; undefined when not given.
 */
export function readOrigins(list, method, dict, member) {
  if (list === undefined) return undefined;
  if (!isObject(list) || typeof list[Symbol.iterator] !== 'function') {
    throw modelContextError(method, `Failed to read the '${member}' property from '${dict}': The provided value cannot be converted to a sequence.`);
  }
  const out = [];
  for (const o of list) {
    let u;
    try {
      u = new URLCtor(String(o));
    } catch {
      throw new DOMExc(`Only secure origins are allowed in the ${member} list.`, 'SecurityError');
    }
    const host = u.hostname;
    const trustworthy = u.protocol === 'https:' || u.protocol === 'wss:' || u.protocol === 'file:' ||
      host === 'localhost' || host.endsWith('.localhost') || /^127\./.test(host) || host === '[::1]';
    if (!trustworthy) throw new DOMExc(`Only secure origins are allowed in the ${member} list.`, 'SecurityError');
    out.push(u.origin);
  }
  return out;
}

/** Checks registerTool's exposedTo option; returns its origins (undefined when not given). */
export function checkExposedTo(list) {
  return readOrigins(list, 'registerTool', 'ModelContextRegisterToolOptions', 'exposedTo');
}

/**
 * What getTools() lists for a record, like the browser's tool objects:
 * annotations as the draft's members (defaults filled in, debugging only
 * when given), the schemas as copies, the title ("" when none), the window
 * both as "window" (Chromium 156) and "source" (later browsers); origin
 * is win's unless given (a cross-origin window's, which win cannot tell).
 */
export function view(rec, win, origin) {
  const t = {};
  if (rec.annotations) {
    const a = {};
    for (const k of DRAFT_ANNOTATIONS) {
      if (k in rec.annotations) a[k] = rec.annotations[k];
      else if (k !== 'debugging') a[k] = false;
    }
    t.annotations = a;
  }
  t.description = rec.description;
  if (rec.inputSchema) t.inputSchema = jsonParse(jsonStringify(rec.inputSchema));
  t.name = rec.name;
  t.origin = origin === undefined ? originOf(win) : origin;
  if (rec.outputSchema) t.outputSchema = jsonParse(jsonStringify(rec.outputSchema));
  t.source = win;
  t.title = rec.title === undefined ? '' : rec.title; // "" when none, as in Chromium 156
  t.window = win;
  return t;
}
