// The service worker's picture of the browser: tabs, the frames in them that
// run the bridge's content script, and each frame's tools. It decides what
// the host may see (http(s) tabs; tools only of allowed sites) and turns every
// change into the protocol's incremental messages by comparing what it would
// send now with what it sent last. Pure: no chrome.* calls.

import { Code, T, wireTool } from './protocol.js';
import { webOrigin } from './sites.js';

/** The key of one frame. */
export function frameKey(tabId, frameId) {
  return `${tabId}/${frameId}`;
}

function toolKey(tabId, frameId, name) {
  return `${tabId}/${frameId}/${name}`;
}

/** Registry holds tabs, frames and tools. */
export class Registry {
  /** @param {{allows?: (origin: string) => boolean}} [opts] */
  constructor(opts = {}) {
    this.allows = opts.allows || (() => false);
    /** @type {Map<number, {id: number, windowId: number, active: boolean, url: string, title: string}>} */
    this.tabs = new Map();
    /** @type {Map<string, {tabId: number, frameId: number, origin: string, tools: Map<string, object>}>} */
    this.frames = new Map();
    this.focusedWindow = -1;
    /** What the host was last told: tab id -> JSON, tool key -> JSON. */
    this.sentTabs = new Map();
    this.sentTools = new Map();
  }

  /** Replaces the allow-list predicate. */
  setAllows(allows) {
    this.allows = allows;
  }

  /**
   * Adds or updates a tab from a chrome.tabs.Tab (or a part of one: fields
   * left out keep their value).
   */
  upsertTab(tab) {
    if (!tab || !Number.isSafeInteger(tab.id) || tab.id < 0) return;
    const old = this.tabs.get(tab.id) || { id: tab.id, windowId: -1, active: false, url: '', title: '' };
    const url = tab.url || tab.pendingUrl || old.url;
    this.tabs.set(tab.id, {
      id: tab.id,
      windowId: tab.windowId ?? old.windowId,
      active: tab.active ?? old.active,
      url: url || '',
      title: tab.title ?? old.title,
    });
  }

  /** Forgets a tab and its frames. */
  removeTab(tabId) {
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

  /** Sets the tools of one frame (already normalised), replacing its old ones. */
  setFrame(tabId, frameId, origin, tools) {
    const map = new Map();
    for (const t of tools) map.set(t.name, t);
    this.frames.set(frameKey(tabId, frameId), { tabId, frameId, origin: origin || '', tools: map });
  }

  /** Forgets one frame and its tools. */
  removeFrame(tabId, frameId) {
    this.frames.delete(frameKey(tabId, frameId));
  }

  /** The protocol Tab for a tab, or null when the host does not see it (not http(s)). */
  wireTab(t) {
    const origin = webOrigin(t.url);
    if (origin === '') return null;
    return {
      id: t.id,
      windowId: t.windowId,
      active: !!t.active,
      url: t.url,
      title: t.title || '',
      origin,
      allowed: this.allows(origin),
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
        tools.set(toolKey(f.tabId, f.frameId, tool.name), wireTool(f.tabId, f.frameId, f.origin, tool));
      }
    }
    return { tabs, tools };
  }

  /**
   * The whole picture as a state message; what it holds counts as sent.
   */
  snapshot() {
    const { tabs, tools } = this.view();
    this.sentTabs = new Map([...tabs].map(([k, v]) => [k, JSON.stringify(v)]));
    this.sentTools = new Map([...tools].map(([k, v]) => [k, JSON.stringify(v)]));
    const byId = (a, b) => a.id - b.id;
    const byRef = (a, b) => a.tabId - b.tabId || a.frameId - b.frameId || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
    return { type: T.state, state: { tabs: [...tabs.values()].sort(byId), tools: [...tools.values()].sort(byRef) } };
  }

  /**
   * The messages that bring the host from what it was last told to the
   * present, in a safe order: tabRemoved, tabUpdated, toolsRemoved,
   * toolsAdded. What they say counts as sent.
   */
  changes() {
    const { tabs, tools } = this.view();
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
