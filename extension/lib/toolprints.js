// Tool fingerprints: what this browser has seen of each site's tools, so
// that a tool re-registered under the same name with another description,
// schema or hints (a "rug pull": approved as one thing, then changed into
// another) is shown as changed, to the user in the panel and the consent
// window and to agents ([CHANGED] in the tool's description), and asks
// again before it acts.
//
// A fingerprint is the SHA-256 of a tool's definition as agents get it
// (title, description, input and output schema, annotations), with object
// keys sorted. The first definition seen of a site's tool is the known one
// (trust on first use); it is replaced when the user accepts the new one
// (allows a call of it in the consent window, or accepts the change in the
// panel). The known prints live in chrome.storage.local under PRINTS_KEY,
// at most MAX_PRINTS, the least recently accepted or seen forgotten first.
// Pure: no chrome.* calls; the worker loads and saves.

import { webOrigin } from './allowlist.js';
import { sha256 } from './sha256.js';

/** The key of the known fingerprints in chrome.storage.local. */
export const PRINTS_KEY = 'toolPrints';

/** The most tools whose known fingerprint is kept. */
export const MAX_PRINTS = 4096;

/** A tool's definition as agents get it, canonical: the JSON text that its fingerprint hashes. */
export function definitionOf(tool) {
  return canonical({
    title: tool.title || '',
    description: tool.description || '',
    inputSchema: tool.inputSchema ?? null,
    outputSchema: tool.outputSchema ?? null,
    annotations: tool.annotations ?? null,
  });
}

function canonical(v) {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}

const cache = new WeakMap();

/** The fingerprint of a tool's definition (cached per tool object: tools are replaced, never changed in place). */
export function fingerprint(tool) {
  let fp = cache.get(tool);
  if (!fp) {
    fp = sha256(definitionOf(tool));
    cache.set(tool, fp);
  }
  return fp;
}

/** The known fingerprints of sites' tools. */
export class ToolPrints {
  constructor() {
    /** @type {Map<string, string>} `${origin} ${name}` -> fingerprint, least recent first */
    this.known = new Map();
    /** Seen before load(): observed once it arrives. */
    this.early = new Map();
    this.loaded = false;
    /** Set when known changed since the worker last saved it. */
    this.dirty = false;
    /** Called (by the worker, to store them) whenever known changed. */
    this.onChange = null;
  }

  key(origin, name) {
    return `${webOrigin(origin)} ${name}`;
  }

  /** Takes the stored prints (call once; what was seen before it is observed then). */
  load(stored) {
    if (stored && typeof stored === 'object' && !Array.isArray(stored)) {
      for (const [k, fp] of Object.entries(stored)) if (typeof fp === 'string') this.known.set(k, fp);
    }
    this.loaded = true;
    for (const [k, fp] of this.early) if (!this.known.has(k)) this.set(k, fp);
    this.early.clear();
  }

  /** What to store: an object of key -> fingerprint. */
  toJSON() {
    return Object.fromEntries(this.known);
  }

  /** A site's tool came (again): its first definition becomes the known one. */
  observe(origin, tool) {
    const k = this.key(origin, tool.name);
    if (!this.loaded) {
      if (!this.early.has(k)) this.early.set(k, fingerprint(tool));
      return;
    }
    if (!this.known.has(k)) this.set(k, fingerprint(tool));
  }

  /** Whether a site's tool differs from its known definition. */
  changed(origin, tool) {
    if (!this.loaded) return false;
    const fp = this.known.get(this.key(origin, tool.name));
    return fp !== undefined && fp !== fingerprint(tool);
  }

  /** The user accepted a site's tool as it is now (fp: its fingerprint then; default now). */
  accept(origin, name, fp) {
    this.set(this.key(origin, name), fp);
  }

  set(k, fp) {
    this.known.delete(k);
    this.known.set(k, fp);
    while (this.known.size > MAX_PRINTS) this.known.delete(this.known.keys().next().value);
    this.dirty = true;
    if (this.onChange) this.onChange();
  }
}
