// The WebMCP draft's rules for the polyfill: how registerTool reads a tool
// and its options, and what getTools() lists.

import { DOMExc, URLCtor, isObject, jsonParse, jsonStringify } from '../builtins.js';
import { TOOL_NAME_PATTERN, copyHints } from '../tools.js';

export function modelContextError(method, message) {
  return new TypeError(`Failed to execute '${method}' on 'ModelContext': ${message}`);
}

/**
 * Reads a ModelContextTool dictionary the way WebIDL does (members in
 * lexicographic order, each once) and applies the draft's rules; tools is
 * the registry it joins (name -> record). Returns the record, or throws.
 */
export function readTool(tools, tool, method) {
  if (!isObject(tool)) throw modelContextError(method, "parameter 1 is not of type 'ModelContextTool'.");
  const annotations = tool.annotations;
  if (annotations !== undefined && annotations !== null && !isObject(annotations)) {
    throw modelContextError(method, "Failed to read the 'annotations' property from 'ModelContextTool': The provided value is not of type 'ToolAnnotations'.");
  }
  const description = tool.description;
  if (description === undefined) throw modelContextError(method, "Failed to read the 'description' property from 'ModelContextTool': Required member is undefined.");
  const execute = tool.execute;
  if (execute === undefined) throw modelContextError(method, "Failed to read the 'execute' property from 'ModelContextTool': Required member is undefined.");
  if (typeof execute !== 'function') throw modelContextError(method, "Failed to read the 'execute' property from 'ModelContextTool': The given value is not a function.");
  const inputSchema = tool.inputSchema;
  if (inputSchema !== undefined && !isObject(inputSchema)) {
    throw modelContextError(method, "Failed to read the 'inputSchema' property from 'ModelContextTool': Failed to convert value to 'object'.");
  }
  const rawName = tool.name;
  if (rawName === undefined) throw modelContextError(method, "Failed to read the 'name' property from 'ModelContextTool': Required member is undefined.");
  const title = tool.title;
  const name = String(rawName);
  const desc = String(description);
  if (!TOOL_NAME_PATTERN.test(name)) throw new DOMExc('Invalid tool name', 'InvalidStateError');
  if (tools.has(name)) throw new DOMExc('Duplicate tool name', 'InvalidStateError');
  if (desc === '') throw new DOMExc('Description is required', 'InvalidStateError');
  let schema;
  if (inputSchema !== undefined) {
    const s = jsonStringify(inputSchema); // throws on cycles, as the draft says
    if (s === undefined) throw modelContextError(method, 'inputSchema does not serialize to JSON.');
    schema = jsonParse(s);
  }
  return {
    name,
    title: title === undefined || title === null ? undefined : String(title),
    description: desc,
    inputSchema: isObject(schema) && !Array.isArray(schema) ? schema : undefined,
    hints: copyHints(annotations, false),
    readOnly: isObject(annotations) && !!annotations.readOnlyHint,
    untrusted: isObject(annotations) && !!annotations.untrustedContentHint,
    execute,
    how: 'register',
  };
}

/** Checks registerTool's exposedTo option: a list of trustworthy origins. */
export function checkExposedTo(list) {
  if (list === undefined) return;
  if (!isObject(list) || typeof list[Symbol.iterator] !== 'function') {
    throw modelContextError('registerTool', "Failed to read the 'exposedTo' property from 'ModelContextRegisterToolOptions': The provided value cannot be converted to a sequence.");
  }
  for (const o of list) {
    let u;
    try {
      u = new URLCtor(String(o));
    } catch {
      throw new DOMExc('Only secure origins are allowed in the exposedTo list.', 'SecurityError');
    }
    const host = u.hostname;
    const trustworthy = u.protocol === 'https:' || u.protocol === 'wss:' || u.protocol === 'file:' ||
      host === 'localhost' || host.endsWith('.localhost') || /^127\./.test(host) || host === '[::1]';
    if (!trustworthy) throw new DOMExc('Only secure origins are allowed in the exposedTo list.', 'SecurityError');
  }
}

/** What getTools() lists for a record, like the browser's tool objects. */
export function view(rec, win) {
  const t = {};
  if (rec.hints) t.annotations = { readOnlyHint: rec.readOnly, untrustedContentHint: rec.untrusted };
  t.description = rec.description;
  if (rec.inputSchema) t.inputSchema = jsonParse(jsonStringify(rec.inputSchema));
  t.name = rec.name;
  t.origin = win.location ? win.location.origin : '';
  if (rec.title !== undefined) t.title = rec.title;
  t.window = win;
  return t;
}
