// The bounds of a page tool's inputSchema, the same in both WebMCP modes and
// the same as the shim's (shim/schemas: MaxSchemaBytes, MaxSchemaDepth,
// MaxSchemaNodes; testdata/limits/schema.json holds the numbers both sides
// are tested against).
//
// A schema past a bound must not leave the page as it is: a schema nested a
// few thousand levels deep makes the structured clone of the frame's whole
// tool report throw (postMessage to the relay), so every tool of the frame
// would vanish. checkSchema() walks a schema without recursion and stops at
// the first bound crossed; a refused schema travels as rejectedSchema(why),
// which the shim lists with a note and refuses to call.
//
// This module imports only lib/utf8.js and takes the built-ins it uses when
// it is loaded, so it also runs in the page's world (bundled into generated/main-world.js,
// which runs before any page script) and in the worker and Node.

import { utf8Length } from './utf8.js';

const { keys } = Object;
const { isArray } = Array;
const stringify = JSON.stringify;
const parse = JSON.parse;

/** The largest inputSchema, in bytes of its compact JSON text (UTF-8), as JSON.stringify writes it. */
export const MAX_SCHEMA_BYTES = 128 * 1024;

/** The deepest nesting of objects and arrays in an inputSchema; the schema object itself is at depth 1. */
export const MAX_SCHEMA_DEPTH = 64;

/** The most JSON values (objects, arrays, strings, numbers, booleans, nulls; not object keys) in an inputSchema. */
export const MAX_SCHEMA_NODES = 10000;

/** The keyword of the stand-in for a refused schema; its value says why (shim/schemas.RejectedKeyword). */
export const REJECTED_KEYWORD = 'x-webmcp-rejected';

function isObj(v) {
  return v !== null && typeof v === 'object';
}

/**
 * Checks the depth and the number of values of v, a schema object, without
 * recursion; it stops at the first bound crossed, so a cyclic or huge
 * object is safe. Values JSON.stringify leaves out of objects (undefined,
 * functions, symbols) are not counted. Returns "" or why v is refused.
 */
export function shapeProblem(v) {
  const tooMany = `it holds more than ${MAX_SCHEMA_NODES} JSON values; the bridge accepts at most ${MAX_SCHEMA_NODES}`;
  // Values are counted when they are pushed, so the stack never holds more
  // than MAX_SCHEMA_NODES of them.
  let nodes = 1;
  // An explicit stack of [value, depth] pairs, indexed rather than pushed:
  // in the page's world, Array.prototype.push is the page's.
  const stack = [v, 1];
  let sp = 2;
  while (sp > 0) {
    const depth = stack[--sp];
    const x = stack[--sp];
    if (!isObj(x)) continue;
    if (depth > MAX_SCHEMA_DEPTH) {
      return `it is nested more than ${MAX_SCHEMA_DEPTH} levels deep; the bridge accepts at most ${MAX_SCHEMA_DEPTH}`;
    }
    if (isArray(x)) {
      const n = x.length;
      if (nodes + n > MAX_SCHEMA_NODES) return tooMany;
      nodes += n;
      for (let i = n - 1; i >= 0; i--) {
        stack[sp++] = x[i];
        stack[sp++] = depth + 1;
      }
      continue;
    }
    const ks = keys(x);
    for (let i = ks.length - 1; i >= 0; i--) {
      const c = x[ks[i]];
      if (c === undefined || typeof c === 'function' || typeof c === 'symbol') continue;
      if (++nodes > MAX_SCHEMA_NODES) return tooMany;
      stack[sp++] = c;
      stack[sp++] = depth + 1;
    }
  }
  return '';
}

/** The stand-in for a schema the bridge refuses for problem. */
export function rejectedSchema(problem) {
  return { type: 'object', [REJECTED_KEYWORD]: String(problem) };
}

/**
 * Checks a page's inputSchema (an object, as the page gave it or as JSON
 * data) against the bounds. It returns {schema, bytes}, a JSON copy of a
 * schema within them and the size of its JSON text, or {problem} saying why
 * the schema is refused; the tool then travels with rejectedSchema(problem)
 * as its inputSchema (never left out, never without a schema: its other
 * fields and the frame's other tools go on as usual).
 * @returns {{schema?: object, bytes?: number, problem?: string}}
 */
export function checkSchema(value) {
  if (!isObj(value) || isArray(value)) return { problem: 'it is not a JSON object' };
  // Bound the page's object before JSON.stringify walks it (that recursion
  // throws a few thousand levels down), then check the copy, which is what
  // travels (toJSON and getters may make it differ).
  let problem = shapeProblem(value);
  if (problem) return { problem };
  let text;
  try {
    text = stringify(value);
  } catch (e) {
    return { problem: `it cannot be written as JSON (${e && e.message ? String(e.message).slice(0, 200) : 'error'})` };
  }
  if (typeof text !== 'string') return { problem: 'it cannot be written as JSON' };
  const bytes = utf8Length(text);
  if (bytes > MAX_SCHEMA_BYTES) return { problem: `it is ${bytes} bytes of JSON; the bridge accepts at most ${MAX_SCHEMA_BYTES}` };
  const schema = parse(text);
  if (!isObj(schema) || isArray(schema)) return { problem: 'it is not a JSON object' };
  problem = shapeProblem(schema);
  if (problem) return { problem };
  return { schema, bytes };
}

/**
 * The inputSchema a tool report carries for the page's schema value (an
 * object, or its JSON text as the browser's own getTools() gives it): a JSON
 * copy, the stand-in of a refused one, or undefined when there is none or it
 * is not an object (the shim then takes any object, unchecked, as it does
 * for a schema it cannot use).
 */
export function schemaForReport(value) {
  if (typeof value === 'string') {
    try {
      value = parse(value);
    } catch (e) {
      return rejectedSchema(`it is not valid JSON (${e && e.message ? String(e.message).slice(0, 200) : 'error'})`);
    }
  }
  if (!isObj(value) || isArray(value)) return undefined;
  const { schema, problem } = checkSchema(value);
  return problem ? rejectedSchema(problem) : schema;
}
