// executeTool's arguments and answer, as Chromium 156 reads and gives them:
// the RegisteredTool dictionary that names the tool, the input copied
// through JSON, the tool's answer as its JSON text, and the error a page's
// failing tool becomes.

import { DOMExc, isArray, isObject, jsonParse, jsonStringify } from '../../source/builtins.js';
import { modelContextError } from './rules.js';

// Reads executeTool's first argument as WebIDL reads a RegisteredTool
// dictionary (members in order; description, name, origin and window
// are required, as in Chromium 156); returns {name, origin, window}.
export function readRegisteredTool(tool) {
  if (tool !== undefined && tool !== null && !isObject(tool)) {
    throw modelContextError('executeTool', "The provided value is not of type 'RegisteredTool'.");
  }
  const t = isObject(tool) ? tool : {};
  const required = (member) => {
    const v = t[member];
    if (v === undefined) throw modelContextError('executeTool', `Failed to read the '${member}' property from 'RegisteredTool': Required member is undefined.`);
    return String(v);
  };
  required('description');
  const name = required('name');
  const origin = required('origin');
  const w = t.window;
  if (w === undefined) throw modelContextError('executeTool', "Failed to read the 'window' property from 'RegisteredTool': Required member is undefined.");
  if (!isObject(w)) throw modelContextError('executeTool', "Failed to read the 'window' property from 'RegisteredTool': Failed to convert value to 'Window'.");
  return { name, origin, window: w };
}

// Reads executeTool's input: {} when left out, else an object that
// serialises to a JSON object, copied through JSON.
// takesText says whether JSON text of an object is taken as that object.
export function readToolInput(input, takesText) {
  if (input === undefined) return {};
  if (typeof input === 'string' && takesText && takesText()) {
    let v;
    try {
      v = jsonParse(input);
    } catch {
      v = undefined;
    }
    if (isObject(v) && !isArray(v)) input = v;
  }
  if (!isObject(input)) throw modelContextError('executeTool', 'invalid input object: value is not an object');
  let s;
  try {
    s = jsonStringify(input);
  } catch (e) {
    if (e instanceof TypeError) throw modelContextError('executeTool', e.message);
    throw e;
  }
  if (s === undefined) throw modelContextError('executeTool', 'invalid input object: toJSON() returns undefined');
  const copy = jsonParse(s);
  if (!isObject(copy)) throw new DOMExc('Failed to parse input arguments', 'UnknownError');
  return copy;
}

// What executeTool resolves to for a tool's answer: a string as it is,
// anything else as its JSON text ("undefined" where there is none); an
// answer that cannot be serialised fails the call, as in Chromium 156.
export function resultText(v) {
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint') return String(v);
  let s;
  try {
    s = jsonStringify(v);
  } catch {
    throw invocationFailed();
  }
  return s === undefined ? 'undefined' : s;
}

/** The error executeTool rejects with when the page's tool failed. */
export function invocationFailed() {
  return new DOMExc('Tool was executed but the invocation failed. For example, the script function threw an error', 'UnknownError');
}
