// The inspector's warnings: where a page tool would confuse an agent or
// breaks the WebMCP draft. One function per rule, each returning a warning
// {rule, level, message} or null; toolWarnings() runs those that need only
// the tool, outputMismatch() checks a result once the tool ran. The rules
// are documented in docs/inspector.md (keep the two in step). Pure.
//
// level: 'error' (agents cannot use the tool as the page meant: calls fail,
// the schema is lost, the result is refused) or 'warning' (it works, but an
// agent may misuse it).

import { MAX_DESCRIPTION, libraryObject, refusal, schemaForMCP } from './agentview.js';
import { REJECTED_KEYWORD } from './schema.js';
import { utf8Length } from './utf8.js';

/** A description longer than this (bytes of UTF-8) costs every agent's context on every turn. */
export const LONG_DESCRIPTION = 2048;

const TYPES = new Set(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null']);

const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

const warn = (rule, message, level = 'warning') => ({ rule, level, message });

// The problems of one schema object's own keywords (not its subschemas').
function keywordProblems(s, at) {
  const out = [];
  const where = at ? ` at ${at}` : '';
  if (Object.hasOwn(s, 'type')) {
    const types = Array.isArray(s.type) ? s.type : [s.type];
    for (const t of types) if (!TYPES.has(t)) out.push(`"type"${where} is ${JSON.stringify(t)}, not one of ${[...TYPES].join(', ')}`);
  }
  if (Object.hasOwn(s, 'properties') && !isObj(s.properties)) out.push(`"properties"${where} must be an object of schemas`);
  if (Object.hasOwn(s, 'required')) {
    if (!Array.isArray(s.required) || s.required.some((r) => typeof r !== 'string')) out.push(`"required"${where} must be an array of property names`);
    else if (isObj(s.properties)) {
      for (const r of s.required) if (!Object.hasOwn(s.properties, r)) out.push(`"required"${where} names ${JSON.stringify(r)}, which "properties" does not describe`);
    }
  }
  if (Object.hasOwn(s, 'enum') && (!Array.isArray(s.enum) || s.enum.length === 0)) out.push(`"enum"${where} must be a non-empty array`);
  if (Object.hasOwn(s, 'items') && !isObj(s.items) && typeof s.items !== 'boolean') out.push(`"items"${where} must be a schema`);
  if (isObj(s.properties)) {
    for (const [k, v] of Object.entries(s.properties)) {
      if (!isObj(v) && typeof v !== 'boolean') out.push(`property ${JSON.stringify(k)}${where} has ${JSON.stringify(v)} as its schema, not an object`);
    }
  }
  return out;
}

/** The problems of a JSON Schema's structure, walked without recursion (at most 50 named). */
export function schemaProblems(schema) {
  const out = [];
  const stack = [[schema, '']];
  let seen = 0;
  while (stack.length && out.length < 50 && seen++ < 10000) {
    const [s, at] = stack.pop();
    if (!isObj(s)) continue;
    out.push(...keywordProblems(s, at));
    if (isObj(s.properties)) for (const [k, v] of Object.entries(s.properties)) stack.push([v, `${at}/properties/${k}`]);
    if (isObj(s.items)) stack.push([s.items, `${at}/items`]);
    for (const k of ['anyOf', 'oneOf', 'allOf']) if (Array.isArray(s[k])) s[k].forEach((v, i) => stack.push([v, `${at}/${k}/${i}`]));
    for (const k of ['$defs', 'definitions']) if (isObj(s[k])) for (const [n, v] of Object.entries(s[k])) stack.push([v, `${at}/${k}/${n}`]);
  }
  return out;
}

/**
 * invalid-schema: the inputSchema is not an object schema MCP can carry,
 * the bridge refused it (past its bounds), or its keywords are malformed
 * (an unknown type, "required" naming no property, …).
 */
export function invalidSchema(tool) {
  const raw = tool.inputSchema;
  if (isObj(raw) && Object.hasOwn(raw, REJECTED_KEYWORD)) {
    return warn('invalid-schema', `The bridge refused the inputSchema (${raw[REJECTED_KEYWORD]}): agents see the tool, but every call fails.`, 'error');
  }
  const { problem } = schemaForMCP(raw);
  if (problem) return warn('invalid-schema', `${problem[0].toUpperCase()}${problem.slice(1)}: agents are offered any object instead, and the arguments go unchecked.`, 'error');
  if (raw === undefined || raw === null) return null;
  const problems = schemaProblems(raw);
  if (!problems.length) return null;
  return warn('invalid-schema', `The inputSchema is not valid JSON Schema: ${problems.slice(0, 3).join('; ')}${problems.length > 3 ? `; and ${problems.length - 3} more` : ''}.`);
}

/**
 * library-schema: the page passed a schema library's object (zod,
 * valibot, …) instead of the JSON Schema it can make: the shim refuses it.
 */
export function librarySchema(tool) {
  if (!isObj(tool.inputSchema)) return null;
  if (!libraryObject(tool.inputSchema)) return null;
  return warn('library-schema', `${refusal(tool.inputSchema)}. Agents see the tool, but every call fails.`, 'error');
}

/** no-description: the page gave no description, so an agent can only guess from the name. */
export function noDescription(tool) {
  if (String(tool.description || '').trim() !== '') return null;
  return warn('no-description', 'No description: an agent has only the name to go by (the WebMCP draft requires one; the browser refuses such a registerTool).');
}

/**
 * long-description: a description past MAX_DESCRIPTION bytes is cut for
 * agents; past LONG_DESCRIPTION it costs every agent's context on every turn.
 */
export function longDescription(tool) {
  const n = utf8Length(String(tool.description || '').trim());
  if (n > MAX_DESCRIPTION) return warn('long-description', `The description is ${n} bytes: agents get the first ${MAX_DESCRIPTION}, cut with a note.`);
  if (n > LONG_DESCRIPTION) return warn('long-description', `The description is ${n} bytes: agents read every tool's description on every turn; say what the tool does in a few sentences.`);
  return null;
}

/**
 * name-clash: agents call the tool by another name than the page's: the
 * page's name has characters MCP clients refuse, is too long, is a bridge
 * tool's, or another allowed tab offers the same name.
 */
export function nameClash(tool, mcpName, { sameNameTabs = [] } = {}) {
  if (!mcpName || mcpName === tool.name) return null;
  const why = [];
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(tool.name)) why.push('MCP clients take only A-Z, a-z, 0-9, "_" and "-", at most 64 characters');
  if (sameNameTabs.length) why.push(`another tab offers ${tool.name} too (tab ${sameNameTabs.join(', tab ')})`);
  if (!why.length) why.push('the bridge has a tool of that name');
  return warn('name-clash', `Agents see this tool as ${mcpName}, not ${tool.name}: ${why.join('; ')}.`);
}

const ACTING = /\b(add|append|apply|archive|book|buy|cancel|change|checkout|clear|close|create|delete|drop|edit|insert|move|order|pay|post|publish|purchase|put|remove|rename|reset|save|send|set|submit|toggle|update|upload|write)(?:s|es|ed|ing)?\b/i;

/**
 * read-only-acts: the tool says readOnlyHint but its name or description
 * says it changes things: agents call read-only tools without a second
 * thought, and the bridge never asks before them.
 */
export function readOnlyActs(tool) {
  if (!(tool.annotations && tool.annotations.readOnlyHint === true)) return null;
  const words = `${String(tool.name).replace(/[_.-]+|(?<=[a-z])(?=[A-Z])/g, ' ')} ${tool.description || ''}`;
  const m = words.match(ACTING);
  if (!m) return null;
  return warn('read-only-acts', `Marked read-only (readOnlyHint), but its ${String(tool.name).toLowerCase().includes(m[1].toLowerCase()) ? 'name' : 'description'} says "${m[0]}": a tool that changes things must not be read-only — agents call such tools freely, and the bridge never asks first.`);
}

/**
 * The warnings of a tool that need no run: ctx {mcpName, sameNameTabs}.
 * @returns {{rule: string, level: string, message: string}[]}
 */
export function toolWarnings(tool, ctx = {}) {
  return [
    invalidSchema(tool),
    librarySchema(tool),
    noDescription(tool),
    longDescription(tool),
    nameClash(tool, ctx.mcpName, ctx),
    readOnlyActs(tool),
  ].filter(Boolean);
}

function typeOf(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function fits(type, v) {
  const t = typeOf(v);
  return t === type || (type === 'number' && t === 'integer');
}

/** Where v does not fit schema (type, required, properties, items, enum, const), or "" (a small subset of JSON Schema, for display). */
export function mismatch(schema, v, at = '') {
  if (!isObj(schema)) return '';
  const here = at || 'the result';
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((t) => fits(t, v))) return `${here} is ${typeOf(v)}, the schema wants ${types.join(' or ')}`;
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(v))) return `${here} is not one of ${JSON.stringify(schema.enum)}`;
  if (Object.hasOwn(schema, 'const') && JSON.stringify(schema.const) !== JSON.stringify(v)) return `${here} is not ${JSON.stringify(schema.const)}`;
  if (isObj(v)) {
    if (Array.isArray(schema.required)) {
      for (const r of schema.required) if (!Object.hasOwn(v, r)) return `${at ? `${at}.` : ''}${r} is missing (required)`;
    }
    if (isObj(schema.properties)) {
      for (const [k, s] of Object.entries(schema.properties)) {
        if (!Object.hasOwn(v, k)) continue;
        const m = mismatch(s, v[k], at ? `${at}.${k}` : k);
        if (m) return m;
      }
    }
    if (schema.additionalProperties === false && isObj(schema.properties)) {
      const extra = Object.keys(v).find((k) => !Object.hasOwn(schema.properties, k));
      if (extra !== undefined) return `${at ? `${at}.` : ''}${extra} is not in the schema's properties (additionalProperties is false)`;
    }
  }
  if (Array.isArray(v) && isObj(schema.items)) {
    for (let i = 0; i < v.length; i++) {
      const m = mismatch(schema.items, v[i], `${at || 'the result'}[${i}]`);
      if (m) return m;
    }
  }
  return '';
}

/**
 * output-mismatch: the tool declares an outputSchema and what it returned
 * (the structured result an agent gets: a JSON object) does not match it;
 * the shim answers agents such a call with an error (invalid_output).
 * structured: the object result, or undefined when the result was none.
 */
export function outputMismatch(tool, structured) {
  const s = tool.outputSchema;
  if (!isObj(s) || s.type !== 'object' || Object.hasOwn(s, REJECTED_KEYWORD)) return null;
  if (!isObj(structured)) return warn('output-mismatch', 'The tool declares an outputSchema, but its result is no JSON object: agents get an error (invalid_output) instead.', 'error');
  const m = mismatch(s, structured);
  return m ? warn('output-mismatch', `The result does not match the outputSchema: ${m}. Agents get an error (invalid_output) instead.`, 'error') : null;
}
