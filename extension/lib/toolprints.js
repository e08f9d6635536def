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
// panel). The known prints live in chrome.storage.local under PRINTS_KEY:
// at most MAX_SITE_PRINTS per site, so that a page registering thousands of
// throwaway names cannot push out a real tool's print (a site at its cap
// treats its unknown tools as changed), and at most MAX_PRINTS in all, the
// least recently seen sites forgotten whole first.
// Pure: no chrome.* calls; the worker loads and saves.

import { webOrigin } from './allowlist.js';
import { readsOnly } from './askpolicy.js';
import { sha256 } from './sha256.js';

/** The key of the known fingerprints in chrome.storage.local. */
export const PRINTS_KEY = 'toolPrints';

/** The most tools whose known fingerprint is kept, all sites together. */
export const MAX_PRINTS = 4096;

/**
 * The most tools whose known fingerprint is kept for one site (origin). A
 * site at its cap never pushes out its own known prints by registering more
 * names: its unknown tools are treated as changed instead.
 */
export const MAX_SITE_PRINTS = 256;
/** What follows a stored fingerprint whose definition was read-only (askpolicy.js readsOnly). */
const READ_ONLY = ':ro';

/** A stored entry: the fingerprint, and whether that definition was read-only. */
function entry(fp, readOnly) {
  return readOnly ? fp + READ_ONLY : fp;
}

/** The fingerprint of a stored entry. */
function printOf(e) {
  return e.endsWith(READ_ONLY) ? e.slice(0, -READ_ONLY.length) : e;
}

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
    /**
     * origin -> (name -> entry: the fingerprint, with READ_ONLY after it
     * when that definition was read-only); sites least recently seen first, and
     * in each site its tools least recently accepted or first seen first.
     * @type {Map<string, Map<string, string>>}
     */
    this.sites = new Map();
    /** How many prints sites holds in all. */
    this.count = 0;
    /** Seen before load(): observed once it arrives. @type {Map<string, Map<string, string>>} */
    this.early = new Map();
    this.loaded = false;
    /** Set when the known prints changed since the worker last saved them. */
    this.dirty = false;
    /** Called (by the worker, to store them) whenever the known prints changed. */
    this.onChange = null;
  }

  /** How many prints are known, all sites together. */
  size() {
    return this.count;
  }

  /** How many prints are known of a site. */
  siteSize(origin) {
    const site = this.sites.get(webOrigin(origin));
    return site ? site.size : 0;
  }

  /**
   * Takes the stored prints (call once; what was seen before it is observed
   * then). The stored shape is that of every version: an object of
   * `${origin} ${name}` -> fingerprint, least recent first, the fingerprint
   * followed by ":ro" when that definition was read-only (older versions
   * stored none: their definitions count as acting); a site over its cap
   * (stored before there was one) keeps its most recent prints.
   */
  load(stored) {
    if (stored && typeof stored === 'object' && !Array.isArray(stored)) {
      for (const [k, fp] of Object.entries(stored)) {
        const sp = k.indexOf(' ');
        if (typeof fp !== 'string' || sp <= 0) continue;
        this.put(k.slice(0, sp), k.slice(sp + 1), fp, false);
      }
    }
    this.loaded = true;
    for (const [origin, tools] of this.early) {
      for (const [name, fp] of tools) this.firstSeen(origin, name, fp);
    }
    this.early.clear();
  }

  /** What to store: an object of `${origin} ${name}` -> fingerprint[":ro"] (the shape older versions stored). */
  toJSON() {
    const out = {};
    for (const [origin, tools] of this.sites) {
      for (const [name, fp] of tools) out[`${origin} ${name}`] = fp;
    }
    return out;
  }

  /** A site's tool came (again): its first definition becomes the known one, unless the site is at its cap. */
  observe(origin, tool) {
    const o = webOrigin(origin);
    if (!this.loaded) {
      let tools = this.early.get(o);
      if (!tools) this.early.set(o, (tools = new Map()));
      if (!tools.has(tool.name) && tools.size < MAX_SITE_PRINTS) tools.set(tool.name, entry(fingerprint(tool), readsOnly(tool)));
      return;
    }
    this.firstSeen(o, tool.name, entry(fingerprint(tool), readsOnly(tool)));
  }

  firstSeen(o, name, e) {
    const site = this.sites.get(o);
    if (site) {
      // Seen again: the site is the most recent (in memory; stored with the next change).
      this.sites.delete(o);
      this.sites.set(o, site);
      if (site.has(name) || site.size >= MAX_SITE_PRINTS) return;
    }
    this.put(o, name, e, true);
  }

  /**
   * Whether a site's tool differs from its known definition. A tool with no
   * known definition is changed when its site is at its cap (its print may
   * have been pushed out), else first seen.
   */
  changed(origin, tool) {
    if (!this.loaded) return false;
    const site = this.sites.get(webOrigin(origin));
    if (!site) return false;
    const e = site.get(tool.name);
    if (e === undefined) return site.size >= MAX_SITE_PRINTS;
    return printOf(e) !== fingerprint(tool);
  }

  /**
   * Whether the known definition of a site's tool was read-only
   * (askpolicy.js readsOnly); false when none is known, or it was stored
   * by a version that did not keep it.
   */
  knownReadOnly(origin, name) {
    const site = this.sites.get(webOrigin(origin));
    const e = site && site.get(name);
    return !!e && e.endsWith(READ_ONLY);
  }

  /**
   * The user accepted a site's tool as it is now (fp: its fingerprint then;
   * readOnly: whether that definition was read-only, askpolicy.js readsOnly).
   */
  accept(origin, name, fp, readOnly = false) {
    this.put(webOrigin(origin), name, entry(fp, readOnly), true);
  }

  /**
   * Sets a print as the most recent of its site and its site as the most
   * recent site; a site over its cap forgets its least recent print, and
   * over MAX_PRINTS in all, the least recently seen other sites go whole.
   */
  put(o, name, e, notify) {
    let site = this.sites.get(o);
    if (site) this.sites.delete(o);
    else site = new Map();
    this.sites.set(o, site);
    if (site.has(name)) {
      site.delete(name);
      this.count--;
    }
    site.set(name, e);
    this.count++;
    while (site.size > MAX_SITE_PRINTS) {
      site.delete(site.keys().next().value);
      this.count--;
    }
    while (this.count > MAX_PRINTS) {
      const [oldest, tools] = this.sites.entries().next().value;
      if (oldest === o) break; // only this site is left; it is within its cap
      this.sites.delete(oldest);
      this.count -= tools.size;
    }
    if (notify) {
      this.dirty = true;
      if (this.onChange) this.onChange();
    }
  }
}
