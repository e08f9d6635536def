// The service worker's picture of the browser: tabs, the frames in them that
// run the bridge's content script, and each frame's tools, context providers
// and latest context sample. It decides what the host may see (http(s) tabs;
// tools and context only of allowed sites) and turns every change into the
// protocol's incremental messages by comparing what it would send now with
// what it sent last. Pure: no chrome.* calls.

import { webOrigin } from './allowlist.js';
import { contextKey, mergeContext } from './contexts.js';
import { Code, T, wireTool } from './protocol.js';
import { utf8Length } from './utf8.js';

/**
 * The most tools one frame may offer; those past it are left out, with a
 * problem noted, so that one page cannot flood every agent's tool list.
 */
export const MAX_FRAME_TOOLS = 1000;

/**
 * The most bytes of tools (their JSON) one tab's frames may offer together;
 * a frame's tools past it are left out, with a problem noted, so that one
 * big tab cannot crowd out the others (or the host's messages).
 */
export const MAX_TAB_TOOL_BYTES = 8 << 20;

/** The key of one frame. */
export function frameKey(tabId, frameId) {
  return `${tabId}/${frameId}`;
}

function toolKey(tabId, frameId, name) {
  return `${tabId}/${frameId}/${name}`;
}

/** Registry holds tabs, frames and tools. */
export class Registry {
  /**
   * @param {{allows?: (origin: string) => boolean, prints?: import('./toolprints.js').ToolPrints}} [opts]
   *   prints: the known tool fingerprints; a tool whose definition differs
   *   from its site's known one goes to the host with "changed": true
   */
  constructor(opts = {}) {
    this.allows = opts.allows || (() => false);
    this.prints = opts.prints || null;
    /** What the user excluded of a site's context: origin -> {providers: Set, ambient} | null (lib/exclusions.js). */
    this.excluded = opts.excluded || (() => null);
    /**
     * Tools as context (lib/contexttools.js): whether a site's tool is
     * sampled as context now, given whether it changed since first seen;
     * null: none is.
     * @type {{sampled: (origin: string, tool: object, changed: boolean) => boolean} | null}
     */
    this.contextTools = opts.contextTools || null;
    /** @type {Map<number, {id: number, windowId: number, active: boolean, url: string, title: string}>} */
    this.tabs = new Map();
    /**
     * providers: the frame's registered context providers [{id, description?}];
     * context: its latest sample {providers, ambient?} or null; sampledAt: when
     * that sample arrived (Unix ms); toolContext: the latest answers of its
     * tools sampled as context, name -> {snap (a ProviderSnapshot), at}.
     * @type {Map<string, {tabId: number, frameId: number, origin: string, tools: Map<string, object>,
     *   providers: object[], context: object | null, sampledAt: number, toolContext: Map<string, {snap: object, at: number}>}>}
     */
    this.frames = new Map();
    this.focusedWindow = -1;
    /** What the host was last told: tab id -> JSON, tool key -> JSON, tab id -> context key. */
    this.sentTabs = new Map();
    this.sentTools = new Map();
    this.sentContexts = new Map();
    /**
     * Each tab's context as last merged, {ctx, key}; dirty() drops a tab's
     * when what it is merged from changed, so that a flush merges and
     * serialises only the tabs that changed.
     */
    this.mergedContexts = new Map();
  }

  // A tab's context must be merged again (all tabs' when tabId is undefined).
  dirty(tabId) {
    if (tabId === undefined) this.mergedContexts.clear();
    else this.mergedContexts.delete(tabId);
  }

  /** Replaces the allow-list predicate. */
  setAllows(allows) {
    this.allows = allows;
    this.dirty();
  }

  /** Replaces what the user excluded of sites' context (origin -> exclusions or null). */
  setExcluded(excluded) {
    this.excluded = excluded;
    this.dirty();
  }

  /** Whether the user excluded a provider of a site (an origin) from what agents see. */
  isExcluded(origin, providerId) {
    const e = this.excluded(origin);
    return !!(e && e.providers.has(providerId));
  }

  /**
   * Adds or updates a tab from a chrome.tabs.Tab (windowId and active left
   * out keep their value; url and title left out are hidden by the
   * browser). Returns whether the tab's address changed.
   */
  upsertTab(tab) {
    if (!tab || !Number.isSafeInteger(tab.id) || tab.id < 0) return false;
    this.dirty(tab.id);
    const old = this.tabs.get(tab.id) || { id: tab.id, windowId: -1, active: false, url: '', title: '' };
    // The extension has no "tabs" permission: the browser leaves url and
    // title out of a Tab whose page is on a site it holds no grant for. A
    // Tab without them is on such a site now, whatever it showed before:
    // its address and title are forgotten, and it counts as not allowed
    // until an allowed address is seen again.
    const url = tab.url || tab.pendingUrl || '';
    this.tabs.set(tab.id, {
      id: tab.id,
      windowId: tab.windowId ?? old.windowId,
      active: tab.active ?? old.active,
      url,
      title: url ? tab.title ?? old.title : '',
    });
    return url !== old.url;
  }

  /** Forgets a tab and its frames. */
  removeTab(tabId) {
    this.dirty(tabId);
    this.tabs.delete(tabId);
    for (const [key, f] of this.frames) if (f.tabId === tabId) this.frames.delete(key);
  }

  /** Records that tabId became the active tab of windowId. */
  activate(windowId, tabId) {
    for (const t of this.tabs.values()) {
      if (t.windowId === windowId) t.active = t.id === tabId;
    }
    const t = this.tabs.get(tabId);
    if (t) {
      t.windowId = windowId;
      t.active = true;
    }
  }

  /** Records the last focused window (chrome.windows.WINDOW_ID_NONE is ignored). */
  setFocusedWindow(windowId) {
    if (Number.isSafeInteger(windowId) && windowId >= 0) this.focusedWindow = windowId;
  }

  /** Forgets the focused window (it closed): no tab is focused until one is named. */
  clearFocusedWindow() {
    this.focusedWindow = -1;
  }

  /**
   * Sets the tools of one frame (already normalised), replacing its old ones;
   * its context providers and sample stay while its origin stays. A new
   * document in the frame is removeFrame, then setFrame. Tools past
   * MAX_FRAME_TOOLS, and past MAX_TAB_TOOL_BYTES with the tab's other
   * frames' tools counted first, are left out until the frame reports
   * again. It returns what was left out and why (problems, the caller's
   * included), which the frame keeps for the panel (problems()).
   */
  setFrame(tabId, frameId, origin, tools, problems = []) {
    const map = new Map();
    const key = frameKey(tabId, frameId);
    let room = MAX_TAB_TOOL_BYTES;
    for (const f of this.frames.values()) if (f.tabId === tabId && frameKey(f.tabId, f.frameId) !== key) room -= f.bytes;
    let bytes = 0;
    let overBytes = 0;
    for (const t of tools.slice(0, MAX_FRAME_TOOLS)) {
      const size = utf8Length(JSON.stringify(t));
      if (bytes + size > room) {
        overBytes++;
        continue;
      }
      bytes += size;
      map.set(t.name, t);
      if (this.prints && origin) this.prints.observe(origin, t);
    }
    const left = [...problems];
    if (tools.length > MAX_FRAME_TOOLS) {
      left.push(`${tools.length - MAX_FRAME_TOOLS} tools past the first ${MAX_FRAME_TOOLS} of this frame (at most ${MAX_FRAME_TOOLS} tools per frame)`);
    }
    if (overBytes) {
      left.push(`${overBytes} tools that would take the tab's tools past ${MAX_TAB_TOOL_BYTES} bytes of JSON (at most 8 MiB of tools per tab)`);
    }
    const old = this.frames.get(key);
    const keep = old && old.origin === (origin || '');
    this.dirty(tabId);
    this.frames.set(key, {
      tabId,
      frameId,
      origin: origin || '',
      tools: map,
      bytes,
      problems: left,
      providers: keep ? old.providers : [],
      context: keep ? old.context : null,
      sampledAt: keep ? old.sampledAt : 0,
      toolContext: keep ? old.toolContext : new Map(),
    });
    return left;
  }

  /** What was left out of a tab's tools and why, frame by frame: [{frameId, problem}]. */
  problems(tabId) {
    const out = [];
    for (const f of this.frames.values()) {
      if (f.tabId === tabId) for (const problem of f.problems) out.push({ frameId: f.frameId, problem });
    }
    return out.sort((a, b) => a.frameId - b.frameId);
  }

  /** Sets the context providers that a frame registered (normalised: lib/contexts.js). */
  setFrameProviders(tabId, frameId, providers) {
    this.dirty(tabId);
    const f = this.frames.get(frameKey(tabId, frameId));
    if (f) f.providers = providers;
  }

  /** Sets a frame's latest context sample (normalised), which arrived at time. */
  setFrameContext(tabId, frameId, context, time) {
    this.dirty(tabId);
    const f = this.frames.get(frameKey(tabId, frameId));
    if (!f) return;
    f.context = context;
    f.sampledAt = time;
  }

  /** Reports whether the context of tabId/frameId may leave the browser: its tab's site and its own are allowed. */
  contextAllowed(tabId, frameId) {
    const t = this.tabs.get(tabId);
    const tab = t && this.wireTab(t);
    const f = this.frames.get(frameKey(tabId, frameId));
    return !!(tab && tab.allowed && f && this.allows(f.origin));
  }

  /** The frames of a tab whose context may leave the browser. */
  contextFrames(tabId) {
    const out = [];
    for (const f of this.frames.values()) if (f.tabId === tabId && this.contextAllowed(tabId, f.frameId)) out.push(f);
    return out.sort((a, b) => a.frameId - b.frameId);
  }

  /** The ids of the context providers registered in the allowed frames of a tab, and of its tools sampled as context, in frame order. */
  providerIds(tabId) {
    const ids = [];
    for (const f of this.contextFrames(tabId)) {
      for (const p of f.providers) if (!ids.includes(p.id)) ids.push(p.id);
      for (const t of f.tools.values()) if (this.toolSampled(f.origin, t) && !ids.includes(t.name)) ids.push(t.name);
    }
    return ids;
  }

  /** Whether a site's tool is sampled as context now (the person's choice, or the page's offer, for its definition now). */
  toolSampled(origin, tool) {
    if (!this.contextTools || !origin) return false;
    return this.contextTools.sampled(origin, tool, !!this.prints && this.prints.changed(origin, tool));
  }

  /** A site's tool as a context source: {state: on | off | changed, offered}, or null when it cannot be one (lib/contexttools.js). */
  contextToolState(origin, tool) {
    if (!this.contextTools || typeof this.contextTools.stateOf !== 'function' || !origin) return null;
    return this.contextTools.stateOf(origin, tool, !!this.prints && this.prints.changed(origin, tool));
  }

  /** The tools of a tab sampled as context now, in its allowed frames: [{frame, tool}], in frame order. */
  sampledTools(tabId) {
    const out = [];
    for (const f of this.contextFrames(tabId)) for (const t of f.tools.values()) if (this.toolSampled(f.origin, t)) out.push({ frame: f, tool: t });
    return out;
  }

  /** Sets the latest answer of a frame's tool sampled as context (a ProviderSnapshot), which arrived at time. */
  setToolContext(tabId, frameId, name, snap, time) {
    const f = this.frames.get(frameKey(tabId, frameId));
    if (!f || !f.tools.has(name)) return;
    this.dirty(tabId);
    f.toolContext.set(name, { snap, at: time });
  }

  /**
   * The frames of a tab whose context may leave the browser, as
   * lib/contexts.js mergeContext takes them: with the snapshots of their
   * tools sampled as context now (those turned off or changed since are
   * left out at once).
   */
  contextParts(tabId) {
    return this.contextFrames(tabId).map((f) => {
      const toolSnapshots = [];
      for (const [name, a] of f.toolContext) {
        const t = f.tools.get(name);
        if (t && this.toolSampled(f.origin, t)) toolSnapshots.push(a.snap);
      }
      return { frameId: f.frameId, providers: f.providers, context: f.context, sampledAt: f.sampledAt, toolSnapshots, toolAt: Math.max(0, ...[...f.toolContext.values()].map((a) => a.at)) };
    });
  }

  /**
   * The protocol Context of a tab, with the time of its latest sample, or
   * null when the tab is not allowed or its top frame has not been sampled.
   */
  tabContext(tabId) {
    const t = this.tabs.get(tabId);
    const tab = t && this.wireTab(t);
    return tab ? this.contextOf(tab) : null;
  }

  contextOf(tab) {
    if (!tab.allowed) return null;
    const frames = this.contextParts(tab.id);
    if (!frames.length || frames[0].frameId !== 0 || !frames[0].context) return null;
    const ctx = mergeContext(tab, frames, this.excluded(tab.origin));
    ctx.time = Math.max(...frames.map((f) => Math.max(f.sampledAt, f.toolSnapshots.length ? f.toolAt : 0)));
    return ctx;
  }

  /** The tab the user looks at: the active tab of the last focused window (the protocol Tab), or null. */
  focusedTab() {
    for (const t of this.tabs.values()) {
      if (t.active && t.windowId === this.focusedWindow) return this.wireTab(t);
    }
    return null;
  }

  /** Forgets one frame and its tools. */
  removeFrame(tabId, frameId) {
    this.dirty(tabId);
    this.frames.delete(frameKey(tabId, frameId));
  }

  /**
   * The protocol Tab for a tab, or null when the host does not see it (not
   * http(s)). A tab whose site is not allowed goes without its url and title:
   * only allowed sites reach agents.
   */
  wireTab(t) {
    const origin = webOrigin(t.url);
    if (origin === '') return null;
    const allowed = this.allows(origin);
    return {
      id: t.id,
      windowId: t.windowId,
      active: !!t.active,
      url: allowed ? t.url : '',
      title: allowed ? t.title || '' : '',
      origin,
      allowed,
      focused: !!t.active && t.windowId === this.focusedWindow,
    };
  }

  /** The tabs and tools the host should see now, keyed like sentTabs and sentTools. */
  view() {
    const tabs = new Map();
    for (const t of this.tabs.values()) {
      const w = this.wireTab(t);
      if (w) tabs.set(t.id, w);
    }
    const tools = new Map();
    for (const f of this.frames.values()) {
      const tab = tabs.get(f.tabId);
      if (!tab || !tab.allowed || !this.allows(f.origin)) continue;
      for (const tool of f.tools.values()) {
        const w = wireTool(f.tabId, f.frameId, f.origin, tool);
        if (this.prints && this.prints.changed(f.origin, tool)) w.changed = true;
        tools.set(toolKey(f.tabId, f.frameId, tool.name), w);
      }
    }
    // Contexts, with their change keys: merged again only for tabs that changed.
    const contexts = new Map();
    for (const id of this.mergedContexts.keys()) if (!tabs.has(id)) this.mergedContexts.delete(id);
    for (const tab of tabs.values()) {
      let m = this.mergedContexts.get(tab.id);
      if (!m) {
        const ctx = this.contextOf(tab);
        m = { ctx, key: ctx ? contextKey(ctx) : '' };
        this.mergedContexts.set(tab.id, m);
      }
      if (m.ctx) contexts.set(tab.id, m);
    }
    return { tabs, tools, contexts };
  }

  /**
   * The whole picture as a state message, with the contexts of allowed tabs
   * and the given pins; what it holds counts as sent.
   */
  snapshot(pins = []) {
    const { tabs, tools, contexts } = this.view();
    this.sentTabs = new Map([...tabs].map(([k, v]) => [k, JSON.stringify(v)]));
    this.sentTools = new Map([...tools].map(([k, v]) => [k, JSON.stringify(v)]));
    this.sentContexts = new Map([...contexts].map(([k, v]) => [k, v.key]));
    const byId = (a, b) => a.id - b.id;
    const byRef = (a, b) => a.tabId - b.tabId || a.frameId - b.frameId || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
    const state = { tabs: [...tabs.values()].sort(byId), tools: [...tools.values()].sort(byRef) };
    if (contexts.size) state.contexts = [...contexts.values()].map((v) => v.ctx).sort((a, b) => a.tabId - b.tabId);
    if (pins.length) state.pins = pins;
    return { type: T.state, state };
  }

  /**
   * The messages that bring the host from what it was last told to the
   * present, in a safe order: tabRemoved, tabUpdated, toolsRemoved,
   * toolsAdded, context. What they say counts as sent. A tab whose context
   * may no longer leave the browser (its site is no longer allowed, its top
   * frame went away) gets a context without providers and ambient.
   */
  changes() {
    const { tabs, tools, contexts } = this.view();
    const out = [];
    const goneTabs = new Set();
    for (const id of this.sentTabs.keys()) {
      if (!tabs.has(id)) {
        goneTabs.add(id);
        out.push({ type: T.tabRemoved, tabId: id });
        this.sentTabs.delete(id);
      }
    }
    for (const [id, tab] of tabs) {
      const json = JSON.stringify(tab);
      if (this.sentTabs.get(id) !== json) {
        out.push({ type: T.tabUpdated, tab });
        this.sentTabs.set(id, json);
      }
    }
    const removed = [];
    for (const [key, json] of this.sentTools) {
      if (tools.has(key)) continue;
      this.sentTools.delete(key);
      const t = JSON.parse(json);
      if (!goneTabs.has(t.tabId)) removed.push({ tabId: t.tabId, frameId: t.frameId, name: t.name });
    }
    if (removed.length) out.push({ type: T.toolsRemoved, removed });
    const added = [];
    for (const [key, tool] of tools) {
      const json = JSON.stringify(tool);
      if (this.sentTools.get(key) !== json) {
        added.push(tool);
        this.sentTools.set(key, json);
      }
    }
    if (added.length) out.push({ type: T.toolsAdded, tools: added });
    for (const id of [...this.sentContexts.keys()]) {
      if (contexts.has(id)) continue;
      this.sentContexts.delete(id);
      const tab = tabs.get(id);
      if (!tab) continue; // tabRemoved says it all
      const empty = { tabId: id };
      if (tab.allowed) {
        if (tab.url) empty.url = tab.url;
        if (tab.title) empty.title = tab.title;
      }
      empty.time = Date.now();
      out.push({ type: T.context, context: empty });
    }
    for (const [id, { ctx, key }] of contexts) {
      if (this.sentContexts.get(id) === key) continue;
      this.sentContexts.set(id, key);
      out.push({ type: T.context, context: ctx });
    }
    return out;
  }

  /**
   * Decides whether a call may go to tabId/frameId's tool name. It returns
   * null when it may, or {code, message} for the error to answer with.
   */
  route(tabId, frameId, name) {
    const t = this.tabs.get(tabId);
    const tab = t && this.wireTab(t);
    if (!tab) return { code: Code.notFound, message: `no tab ${tabId} (it closed, or the bridge never saw it); list the tabs again` };
    if (!tab.allowed) {
      return { code: Code.notAllowed, message: `${tab.origin} is not on the bridge's allow list; the user can allow it in the extension` };
    }
    const f = this.frames.get(frameKey(tabId, frameId));
    if (!f) return { code: Code.notFound, message: `no frame ${frameId} with tools in tab ${tabId} (it navigated or closed); list the tools again` };
    if (!this.allows(f.origin)) {
      return { code: Code.notAllowed, message: `frame ${frameId} of tab ${tabId} is ${f.origin || 'an opaque origin'}, which is not on the bridge's allow list` };
    }
    if (!f.tools.has(name)) return { code: Code.notFound, message: `tab ${tabId} frame ${frameId} has no tool ${JSON.stringify(name)} (any more); list the tools again` };
    return null;
  }
}
