// Tools as context sources, the pure part: which page tools may be sampled
// as UI context (read-only, no required argument, nothing destructive or
// consequential), which the page itself offers (named get_ui_context or
// ending in _get_ui_context), the person's choices per site and tool name
// (kept with the fingerprint of the definition they saw: a tool whose
// definition changed is not sampled until the person turns it on again),
// and how a tool's answer becomes a context snapshot ({id, summary, data},
// the shape of a provider's; lib/snapshot.js cuts it to the same limits).
// The worker's contexttools.js runs the tools; no chrome.* here.
//
// Choices live in chrome.storage.local under CONTEXT_TOOLS_KEY as
// {"<origin> <tool name>": {"on": bool, "print": "<sha-256>"}}.

import { webOrigin } from './allowlist.js';
import { fromSample } from './snapshot.js';
import { fingerprint } from './toolprints.js';

/** The key of the person's choices in chrome.storage.local. */
export const CONTEXT_TOOLS_KEY = 'contextTools';

/** The most choices kept (the oldest forgotten first). */
export const MAX_CHOICES = 1024;

/**
 * How long a context sample waits for a tool's answer (ms); a tool that is
 * later counts with its last answer, marked stale (or not at all).
 */
export const TOOL_SAMPLE_BUDGET = 250;

/** How long a tool's context call may run at all (ms) before it is cancelled. */
export const TOOL_CALL_LIMIT = 5000;

/** The name by which a page offers a tool as its context (alone, or after a prefix and "_"). */
export const OFFERED_NAME = 'get_ui_context';

/**
 * What a tool's switch says: on (sampled), off, or changed (the person
 * turned it on for a definition the page has since changed: not sampled).
 */
export const State = Object.freeze({ on: 'on', off: 'off', changed: 'changed' });

function isPlainObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * Whether a tool may be sampled as context: it says it is read-only
 * (readOnlyHint), says nothing destructive or consequential (those
 * override read-only), and needs no argument (its input schema requires
 * none).
 */
export function canBeContext(tool) {
  if (!tool || typeof tool !== 'object') return false;
  const a = isPlainObject(tool.annotations) ? tool.annotations : {};
  if (a.readOnlyHint !== true || a.destructiveHint === true || a.consequentialHint === true) return false;
  const s = tool.inputSchema;
  if (isPlainObject(s) && Array.isArray(s.required) && s.required.length > 0) return false;
  return true;
}

/** Whether the page offers a tool as its context by its name (get_ui_context, or *_get_ui_context). */
export function isOffered(name) {
  return typeof name === 'string' && (name === OFFERED_NAME || name.endsWith(`_${OFFERED_NAME}`));
}

/** The person's choices of tools as context, per site and tool name. */
export class ContextToolChoices {
  constructor() {
    /** @type {Map<string, {on: boolean, print: string}>} `${origin} ${name}` -> choice, oldest first */
    this.choices = new Map();
  }

  key(origin, name) {
    return `${webOrigin(origin)} ${name}`;
  }

  /** Takes what storage holds (anything malformed is left out). */
  load(stored) {
    this.choices.clear();
    if (!isPlainObject(stored)) return;
    for (const [k, c] of Object.entries(stored)) {
      if (!isPlainObject(c) || typeof c.on !== 'boolean') continue;
      this.choices.set(k, { on: c.on, print: typeof c.print === 'string' ? c.print : '' });
    }
    this.trim();
  }

  /** What to store. */
  toJSON() {
    return Object.fromEntries(this.choices);
  }

  /** The person turns a site's tool on (for its definition now) or off. */
  set(origin, tool, on) {
    const k = this.key(origin, tool.name);
    this.choices.delete(k);
    this.choices.set(k, { on, print: on ? fingerprint(tool) : '' });
    this.trim();
  }

  trim() {
    while (this.choices.size > MAX_CHOICES) this.choices.delete(this.choices.keys().next().value);
  }

  /**
   * The state of a site's tool as a context source, or null when it cannot
   * be one (canBeContext). changed: the tool differs from the site's known
   * definition (lib/toolprints.js), which stops a page-offered tool the
   * person never chose. offered: the page offers it (isOffered).
   * @returns {{state: string, offered: boolean} | null}
   */
  stateOf(origin, tool, changed = false) {
    if (!canBeContext(tool)) return null;
    const offered = isOffered(tool.name);
    const c = this.choices.get(this.key(origin, tool.name));
    if (c) {
      if (!c.on) return { state: State.off, offered };
      return { state: c.print === fingerprint(tool) ? State.on : State.changed, offered };
    }
    if (offered) return { state: changed ? State.changed : State.on, offered };
    return { state: State.off, offered };
  }

  /** Whether a site's tool is sampled as context now. */
  sampled(origin, tool, changed = false) {
    const s = this.stateOf(origin, tool, changed);
    return !!s && s.state === State.on;
  }
}

// Up to this many characters of an answer that is not {summary, data} make its summary.
const SUMMARY_PREVIEW = 160;

/** The text of an MCP-shaped result ({content: [{type: "text", text}]}), or undefined. */
function contentText(v) {
  if (!isPlainObject(v) || !Array.isArray(v.content)) return undefined;
  const texts = v.content.filter((c) => isPlainObject(c) && c.type === 'text' && typeof c.text === 'string').map((c) => c.text);
  return texts.length ? texts.join('\n') : undefined;
}

function parseMaybe(text) {
  const t = text.trim();
  if (!(t.startsWith('{') || t.startsWith('['))) return text;
  try {
    return JSON.parse(t);
  } catch {
    return text;
  }
}

function oneLine(s) {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > SUMMARY_PREVIEW ? `${flat.slice(0, SUMMARY_PREVIEW - 1)}…` : flat;
}

/** A tool's name for a summary: its title, or the first sentence of its description, or its name. */
function toolPhrase(tool) {
  if (typeof tool.title === 'string' && tool.title.trim() !== '') return oneLine(tool.title);
  const d = typeof tool.description === 'string' ? tool.description.trim() : '';
  const first = d.split(/(?<=[.!?])\s|\n/)[0] || '';
  return first ? oneLine(first) : tool.name;
}

/**
 * A JSON value in plain words for a chip, at most SUMMARY_PREVIEW
 * characters: keys and values without JSON's quotes ("selection: {kind:
 * slice, id: 5}").
 */
export function plainPreview(v) {
  let out = '';
  const put = (s) => {
    out += s;
    return out.length <= SUMMARY_PREVIEW;
  };
  const walk = (x, depth) => {
    if (x === null || typeof x !== 'object') return put(typeof x === 'string' ? x.replace(/\s+/g, ' ') : String(x));
    if (depth > 4) return put('…');
    const arr = Array.isArray(x);
    if (!put(arr ? '[' : '{')) return false;
    let first = true;
    for (const [k, val] of Object.entries(x)) {
      if (!first && !put(', ')) return false;
      first = false;
      if (!arr && !put(`${k}: `)) return false;
      if (!walk(val, depth + 1)) return false;
    }
    return put(arr ? ']' : '}');
  };
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    // The outer braces say nothing.
    let first = true;
    for (const [k, val] of Object.entries(v)) {
      if (!first && !put(', ')) break;
      first = false;
      if (!put(`${k}: `) || !walk(val, 1)) break;
    }
  } else {
    walk(v, 0);
  }
  return out.length > SUMMARY_PREVIEW ? `${out.slice(0, SUMMARY_PREVIEW - 1)}…` : out;
}

/**
 * The context snapshot of a tool's answer (the output of its call, as the
 * page returned it), under the tool's name: an answer of the RFC's shape
 * {summary, data} is taken as it is; MCP-shaped content and JSON text are
 * read first; a short text is the summary; any other answer is the data,
 * summed up in plain words (plainPreview). The tool's description goes
 * along, said once. Cut to a
 * provider's limits (lib/snapshot.js).
 */
export function snapshotOfAnswer(tool, output) {
  let v = output;
  const text = contentText(v);
  if (text !== undefined) v = text;
  if (typeof v === 'string') v = parseMaybe(v);
  const raw = { id: tool.name };
  if (tool.description) raw.description = tool.description;
  if (isPlainObject(v) && typeof v.summary === 'string') {
    raw.summary = v.summary;
    if (v.data !== undefined) raw.json = JSON.stringify(v.data);
  } else if (typeof v === 'string') {
    raw.summary = oneLine(v);
    if (raw.summary !== v) raw.json = JSON.stringify(v);
  } else if (v === undefined || v === null) {
    raw.summary = `${toolPhrase(tool)}: nothing`;
  } else {
    let json;
    try {
      json = JSON.stringify(v);
    } catch {
      json = undefined;
    }
    if (json === undefined) {
      raw.note = 'the answer is not JSON';
    } else {
      raw.summary = plainPreview(JSON.parse(json)) || toolPhrase(tool);
      raw.json = json;
    }
  }
  return fromSample(raw);
}

/** The snapshot of a tool whose call failed: left out, with why. */
export function snapshotOfError(tool, message) {
  const raw = { id: tool.name, note: `the tool failed: ${String(message || 'no reason given')}` };
  if (tool.description) raw.description = tool.description;
  return fromSample(raw);
}
