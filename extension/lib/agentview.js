// What an agent gets of a page tool, computed in the extension for the
// panel's inspector: the MCP name, the description with its provenance and
// labels, the input and output schemas as the shim advertises them, the
// annotations and _meta. The shim (shim/pagetools.go, shim/toolnames,
// shim/schemas) makes the real thing; this module mirrors its rules, and
// testdata/agentview/cases.json pins the two together: the shim's Go test
// (shim/agentview_test.go) and test/agentview.test.js read the same cases.
//
// Where it is approximate (the panel says so):
// - names: the shim names tools over every browser it is connected to, and
//   keeps a name for a tool's lifetime (the first of two clashing tools
//   keeps the plain name). Here the names are those a fresh shim would give
//   this browser's allowed tools, in the order the host lists them.
// - schemas: the shim also refuses a schema its validator cannot resolve
//   ($ref cycles, unknown keywords' shapes); here only the bounds (the
//   extension's own stand-in) and a schema library's object are mirrored.
// Pure: no chrome.* calls.

import { REJECTED_KEYWORD } from './schema.js';
import { utf8Length } from './utf8.js';

/** The bridge's own tools: a page tool of such a name (any case, '-' for '_') gets a suffix. */
export const BRIDGE_TOOLS = Object.freeze(['list_tabs', 'get_ui_context', 'open_page', 'focus_tab', 'close_tab']);

/** The longest MCP name every client accepts (toolnames.MaxLen). */
export const MAX_NAME = 64;

/** The most of a page's description that reaches agents, in bytes of UTF-8 (shim MaxToolDescription). */
export const MAX_DESCRIPTION = 8 << 10;

/** The longest title that reaches agents, in bytes of UTF-8 (shim MaxToolTitle). */
export const MAX_TITLE = 256;

/** The longest tab title quoted in a provenance, in characters. */
const MAX_TAB_TITLE = 40;

/** What introduces the page's own words (shim PageSays). */
export const PAGE_SAYS = 'The page says: ';

/** The labels before a page's description (shim Labels). */
export const Label = Object.freeze({
  changed: '[CHANGED]',
  readOnly: '[READ-ONLY]',
  consequential: '[CONSEQUENTIAL]',
  untrusted: '[UNTRUSTED OUTPUT]',
});

/** The schema of a tool whose page gave none (schemas.Default). */
export const DEFAULT_SCHEMA = Object.freeze({ type: 'object' });

const META = 'dev.webmcp/';

const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The MCP name of a page name alone (toolnames.Sanitize). */
export function sanitize(name) {
  let out = '';
  for (const ch of String(name)) {
    if (out.length === MAX_NAME) break;
    out += /^[A-Za-z0-9_-]$/.test(ch) ? ch : '_';
  }
  return out || 'tool';
}

function fold(name) {
  return name.toLowerCase().replaceAll('-', '_');
}

function withSuffix(base, n) {
  const suffix = `_${n}`;
  return (base.length + suffix.length > MAX_NAME ? base.slice(0, MAX_NAME - suffix.length) : base) + suffix;
}

/**
 * The MCP names a fresh shim gives tools, a list in the host's order (by
 * tab, frame and name): each the sanitized page name unless a bridge tool
 * or an earlier tool holds it, then name_2, name_3, … Returns one name per
 * tool, in order.
 */
export function mcpNames(tools) {
  const reserved = new Set(BRIDGE_TOOLS.map(fold));
  const held = new Set();
  return tools.map((t) => {
    const base = sanitize(t.name);
    let name = base;
    for (let n = 2; reserved.has(fold(name)) || held.has(name); n++) name = withSuffix(base, n);
    held.add(name);
    return name;
  });
}

/** The host's order of tools: by tab, frame, then name (byte order). */
export function hostOrder(a, b) {
  return a.tabId - b.tabId || a.frameId - b.frameId || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

// The largest n <= max at which s's UTF-8 can be cut without splitting a
// character, as a count of UTF-16 units of s.
function cutAt(s, maxBytes) {
  let bytes = 0;
  let i = 0;
  for (const ch of s) {
    const b = utf8Length(ch);
    if (bytes + b > maxBytes) break;
    bytes += b;
    i += ch.length;
  }
  return { units: i, bytes };
}

/** A page description as agents get it: cut to MAX_DESCRIPTION bytes with a note (shim capDescription). */
export function capDescription(d) {
  const len = utf8Length(d);
  if (len <= MAX_DESCRIPTION) return d;
  const mark = (keep) => `… [cut by the WebMCP bridge: the page's description is ${len} bytes; the first ${keep} are shown]`;
  const { units, bytes } = cutAt(d, MAX_DESCRIPTION - utf8Length(mark(MAX_DESCRIPTION)));
  return d.slice(0, units) + mark(bytes);
}

/** A title as agents get it: cut to MAX_TITLE bytes, "…" included (shim capTitle). */
export function capTitle(t) {
  if (utf8Length(t) <= MAX_TITLE) return t;
  return `${t.slice(0, cutAt(t, MAX_TITLE - utf8Length('…')).units)}…`;
}

// Go's strings.TrimSpace (Unicode white space).
function trimSpace(s) {
  return s.replace(/^[\t\n\v\f\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]+|[\t\n\v\f\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]+$/g, '');
}

// Go's unicode.IsSpace.
const SPACE = '\t\n\v\f\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000';

/** What a tab title loses (shim plainTitle): white space, brackets, quotation marks (and look-alikes), control and format characters. */
const TITLE_CUT = new RegExp(`[${SPACE}\\[\\]"“”„‟［］＂\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}]+`, 'gu');

/**
 * A tab title as a provenance quotes it (shim plainTitle): each bracket,
 * quotation mark, line break, control or format character is a space;
 * runs of white space become one, none at either end.
 */
export function plainTitle(title) {
  return String(title).replace(TITLE_CUT, ' ').replace(/^ | $/g, '');
}

/** Every line break a reader may take as one (shim lineBreak). */
const LINE_BREAK = /\r\n|[\n\r\v\f\u0085\u2028\u2029]/g;

/** What begins every line of a page's description after its first (shim pageIndent). */
const PAGE_INDENT = '  ';

/** A page's description with each line break a "\n" and PAGE_INDENT (shim indentLines). */
export function indentLines(d) {
  return d.replace(LINE_BREAK, `\n${PAGE_INDENT}`);
}

function runes(s, n) {
  const r = [...s];
  return r.length <= n ? s : `${r.slice(0, n - 1).join('')}…`;
}

function displayOrigin(origin) {
  if (!origin || origin === 'null') return 'unknown origin';
  try {
    const u = new URL(origin);
    if (u.host) return u.host;
  } catch {
    // as it is
  }
  return origin;
}

/** Where a tool comes from, as agents read it: [localhost:8080 · tab 12 "Shop"] (shim Provenance). */
export function provenance(tool, tab) {
  const origin = displayOrigin(tool.origin || (tab && tab.origin) || '');
  let s = `[${origin} · tab ${tool.tabId}`;
  if (tool.frameId !== 0) s += ` frame ${tool.frameId}`;
  const title = runes(plainTitle((tab && tab.title) || ''), MAX_TAB_TITLE);
  if (title) s += ` "${title}"`;
  return `${s}]`;
}

const hint = (tool, k) => !!tool.annotations && tool.annotations[k] === true;

/** The bridge's labels of a tool, in order (shim Labels). */
export function labels(tool) {
  const out = [];
  if (tool.changed) out.push(Label.changed);
  if (hint(tool, 'readOnlyHint')) out.push(Label.readOnly);
  if (hint(tool, 'consequentialHint')) out.push(Label.consequential);
  if (hint(tool, 'untrustedContentHint')) out.push(Label.untrusted);
  return out;
}

/** A tool's description as agents read it (shim Description), before any note of a refused schema. */
export function agentDescription(tool, tab) {
  let s = provenance(tool, tab);
  for (const l of labels(tool)) s += ` ${l}`;
  const d = trimSpace(String(tool.description || ''));
  if (d) s += ` ${PAGE_SAYS}${indentLines(capDescription(d))}`;
  return s;
}

/**
 * The inputSchema advertised for a page's schema (schemas.ForMCP): the
 * page's own when it is an object schema, with "type":"object" added when
 * it has no type, DEFAULT_SCHEMA when there is none; a schema that cannot
 * describe MCP arguments gives DEFAULT_SCHEMA and a problem.
 * @returns {{schema: object, problem: string}}
 */
export function schemaForMCP(raw) {
  if (raw === undefined || raw === null) return { schema: DEFAULT_SCHEMA, problem: '' };
  if (!isObj(raw)) return { schema: DEFAULT_SCHEMA, problem: 'the page\'s inputSchema is not a JSON object' };
  if (!Object.hasOwn(raw, 'type')) {
    // The shim writes the object again: its keys come out sorted.
    const out = {};
    for (const k of [...Object.keys(raw), 'type'].sort()) out[k] = k === 'type' ? 'object' : raw[k];
    return { schema: out, problem: '' };
  }
  if (raw.type !== 'object') return { schema: DEFAULT_SCHEMA, problem: `the page's inputSchema has type ${JSON.stringify(raw.type)}; MCP tools take an object` };
  return { schema: raw, problem: '' };
}

const MAX_REASON = 300;

function clipReason(reason, n) {
  if (utf8Length(reason) <= n) return reason;
  return `${reason.slice(0, cutAt(reason, n).units)}…`;
}

/** The library whose schema object obj is ("zod", a Standard Schema vendor), or "". */
export function libraryVendor(obj) {
  const std = obj['~standard'];
  if (isObj(std) && typeof std.vendor === 'string' && std.vendor !== '' && typeof std.version === 'number') return std.vendor;
  if (isObj(obj._def) && Object.hasOwn(obj._def, 'typeName')) return 'zod';
  if (isObj(obj._zod) && Object.hasOwn(obj._zod, 'def')) return 'zod';
  return '';
}

/** Where schema holds a schema library's object ("/" or a JSON pointer) and whose, or null. */
export function libraryObject(schema) {
  const stack = [[schema, '']];
  while (stack.length) {
    const [v, ptr] = stack.pop();
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${ptr}/${i}`]);
    } else if (isObj(v)) {
      const vendor = libraryVendor(v);
      if (vendor) return { where: ptr || '/', vendor };
      const ks = Object.keys(v).sort();
      for (let i = ks.length - 1; i >= 0; i--) stack.push([v[ks[i]], `${ptr}/${ks[i].replaceAll('~', '~0').replaceAll('/', '~1')}`]);
    }
  }
  return null;
}

/** Why the shim refuses a page's inputSchema (a *RejectedError's reason), or "" (as far as this module mirrors it). */
export function refusal(raw) {
  if (!isObj(raw)) return '';
  if (Object.hasOwn(raw, REJECTED_KEYWORD)) {
    const r = typeof raw[REJECTED_KEYWORD] === 'string' && raw[REJECTED_KEYWORD] !== '' ? raw[REJECTED_KEYWORD] : 'no reason given';
    return `the browser extension refused it: ${clipReason(r, MAX_REASON)}`;
  }
  const lib = libraryObject(raw);
  if (lib) {
    const how = lib.vendor === 'zod' ? 'convert it with z.toJSONSchema() (zod 4) or zod-to-json-schema (zod 3)' : 'convert it to JSON Schema with the library';
    const at = lib.where !== '/' ? ` at ${clipReason(lib.where, MAX_REASON)}` : '';
    return `it is not a JSON Schema but the internals of a ${clipReason(lib.vendor, 40)} schema object${at}; the page must pass registerTool a JSON Schema (${how})`;
  }
  return '';
}

/** The note that ends the description of a tool whose inputSchema the shim refuses. */
export function refusedNote(reason) {
  return `(This tool cannot be called: the WebMCP bridge refuses its inputSchema: ${reason}. The page must change the schema.)`;
}

/**
 * The outputSchema advertised (schemas.ForOutput): an object schema, or
 * null with why it is left out ("" when the page declared none).
 */
export function outputForMCP(raw) {
  if (raw === undefined || raw === null) return { schema: null, problem: '' };
  if (isObj(raw) && Object.hasOwn(raw, REJECTED_KEYWORD)) return { schema: null, problem: `the browser extension refused it: ${raw[REJECTED_KEYWORD]}` };
  if (!isObj(raw)) return { schema: null, problem: 'the page\'s outputSchema is not a JSON object' };
  if (raw.type !== 'object') return { schema: null, problem: 'the page\'s outputSchema does not have "type":"object"; MCP\'s structured results are objects' };
  return { schema: raw, problem: '' };
}

/**
 * The MCP annotations of a page tool (shim annotations): its hints as the
 * page declared them, in MCP's words (destructiveHint also for
 * consequentialHint), and its title; what the page left unset stays unset,
 * and a tool that declared none of them has none (undefined). readOnlyHint
 * and idempotentHint are written whenever there are annotations, false
 * when unset (MCP's default), as the shim's MCP SDK writes them.
 */
export function agentAnnotations(tool) {
  const a = tool.annotations || {};
  const out = {};
  let set = false;
  if (typeof a.destructiveHint === 'boolean') {
    out.destructiveHint = a.destructiveHint;
    set = true;
  } else if (a.consequentialHint === true) {
    out.destructiveHint = true;
    set = true;
  }
  out.idempotentHint = a.idempotentHint === true;
  if (typeof a.idempotentHint === 'boolean') set = true;
  if (typeof a.openWorldHint === 'boolean') {
    out.openWorldHint = a.openWorldHint;
    set = true;
  }
  out.readOnlyHint = a.readOnlyHint === true;
  if (typeof a.readOnlyHint === 'boolean') set = true;
  const title = capTitle(String(tool.title || ''));
  if (title) {
    out.title = title;
    set = true;
  }
  return set ? out : undefined;
}

/**
 * The MCP tool an agent gets for a page tool of tab, without its name (see
 * mcpNames): {title?, description, inputSchema, outputSchema?, annotations,
 * _meta?}, and the notes of what the shim changed or left out (problem:
 * the inputSchema cannot describe arguments; refused: calls fail;
 * outputProblem: the outputSchema is left out).
 */
export function agentTool(tool, tab) {
  const { schema, problem } = schemaForMCP(tool.inputSchema);
  const mt = { description: agentDescription(tool, tab), inputSchema: schema };
  const annotations = agentAnnotations(tool);
  if (annotations) mt.annotations = annotations;
  const title = capTitle(String(tool.title || ''));
  if (title) mt.title = title;
  const refused = refusal(tool.inputSchema);
  if (refused) {
    mt.inputSchema = DEFAULT_SCHEMA;
    mt.description += ` ${refusedNote(refused)}`;
  }
  const out = outputForMCP(tool.outputSchema);
  if (out.schema) mt.outputSchema = out.schema;
  const meta = {};
  if (hint(tool, 'untrustedContentHint')) meta[`${META}untrustedContentHint`] = true;
  if (hint(tool, 'consequentialHint')) meta[`${META}consequentialHint`] = true;
  if (Object.keys(meta).length) mt._meta = meta;
  return { tool: mt, problem, refused, outputProblem: out.problem };
}

/**
 * A tool's answer as an agent gets it (shim results.FromOutput, in short):
 * a string is its text; an MCP-style {content, isError} gives its texts;
 * anything else its compact JSON (structured when an object).
 * @returns {{text: string, isError: boolean, structured?: object}}
 */
export function resultView(output) {
  if (typeof output === 'string') return { text: output, isError: false };
  if (isObj(output) && Array.isArray(output.content)) {
    const text = output.content.map((c) => (isObj(c) && c.type === 'text' ? String(c.text ?? '') : JSON.stringify(c))).join('\n');
    const v = { text, isError: output.isError === true };
    if (isObj(output.structuredContent)) v.structured = output.structuredContent;
    return v;
  }
  const text = JSON.stringify(output === undefined ? null : output);
  return isObj(output) ? { text, isError: false, structured: output } : { text, isError: false };
}
