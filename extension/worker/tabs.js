// Tabs and site access: keeps the registry's tabs and focused window in
// step with chrome.tabs and chrome.windows (when the focused window closes,
// the last focused normal window is asked for), ends what a closed tab had under
// way, and applies the allow list (worker/sites.js: the browser's grants) to
// the registry and to the frames' context sampling, and the context the user
// excluded per site (EXCLUSIONS_KEY, lib/exclusions.js) to the registry's
// merge. At start it takes the tabs that exist; events that arrive
// meanwhile are newer and win.

import { allowListFrom, compileAllowList } from '../lib/allowlist.js';
import { EXCLUSIONS_KEY, excludedFor, exclusionsFrom } from '../lib/exclusions.js';

/** Tabs follows the browser's tabs and the allow list. */
export class Tabs {
  /**
   * @param {object} o
   * @param {typeof chrome} o.chrome
   * @param {import('../lib/registry.js').Registry} o.registry
   * @param {{warn: Function}} o.log
   * @param {object} o.on hooks: closed(tabId) a tab closed (after the registry
   *   forgot it); access(tabId) whether context may leave the browser may have
   *   changed for a tab (every tab when tabId is undefined); changed() the
   *   registry changed; sites() the allow list or the exclusions changed
   *   (optional).
   */
  constructor({ chrome, registry, log, on }) {
    Object.assign(this, { chrome, registry, log, on });
    /** The allow list as stored (or the default), and the exclusions by origin. */
    this.allowList = allowListFrom(undefined);
    this.exclusions = exclusionsFrom(undefined);
    this.started = false;
    /** Tabs that closed before the start-up list came: that list is older. */
    this.removedEarly = new Set();
  }

  /** Listens for tab, window and exclusion changes. */
  listen() {
    const { chrome, registry, on } = this;
    chrome.tabs.onCreated.addListener((t) => {
      registry.upsertTab(t);
      on.changed();
    });
    chrome.tabs.onUpdated.addListener((tabId, change, t) => {
      // A Tab without url went to a site the extension may not see
      // (lib/registry.js upsertTab): its frames stop sampling too.
      if (registry.upsertTab(t) || change.url !== undefined) on.access(tabId);
      on.changed();
    });
    chrome.tabs.onActivated.addListener(({ tabId, windowId }) => {
      registry.activate(windowId, tabId);
      on.changed();
    });
    chrome.tabs.onRemoved.addListener((tabId) => {
      if (!this.started) this.removedEarly.add(tabId);
      this.closed(tabId);
    });
    chrome.tabs.onReplaced.addListener((addedTabId, removedTabId) => {
      this.closed(removedTabId);
      this.refresh(addedTabId);
    });
    chrome.tabs.onAttached.addListener((tabId) => this.refresh(tabId));
    chrome.windows.onFocusChanged.addListener((windowId) => {
      registry.setFocusedWindow(windowId);
      on.changed();
    });
    chrome.windows.onRemoved.addListener((windowId) => {
      if (windowId !== registry.focusedWindow) return;
      // The focused window closed (the consent window, a popup, a window's
      // last tab). The browser need not say which window has the focus now
      // (headless Chromium never does): ask for the last focused normal one.
      registry.clearFocusedWindow();
      on.changed();
      this.refocus();
    });
    chrome.storage.onChanged.addListener((changes, area) => {
      if (area !== 'local') return;
      if (EXCLUSIONS_KEY in changes) {
        this.setExclusions(changes[EXCLUSIONS_KEY].newValue);
        on.changed();
      }
    });
  }

  /** Takes the tabs and the last focused window (or null) that exist at start. */
  adopt(tabs, win) {
    const { registry } = this;
    for (const t of tabs) if (!registry.tabs.has(t.id) && !this.removedEarly.has(t.id)) registry.upsertTab(t);
    if (win && registry.focusedWindow < 0) registry.setFocusedWindow(win.id);
    this.started = true;
    this.removedEarly.clear();
  }

  /** The start-up list will not come (start-up failed). */
  giveUpStart() {
    this.started = true;
  }

  /** A frame's sender named its tab. */
  seen(tab) {
    if (!this.removedEarly.has(tab.id)) this.registry.upsertTab(tab);
  }

  /** Applies the allow list (worker/sites.js; anything not a list: the default). */
  setAllowList(stored) {
    const list = allowListFrom(stored);
    if (JSON.stringify(list) === JSON.stringify(this.allowList) && this.applied) return;
    this.allowList = list;
    this.applied = true;
    const compiled = compileAllowList(list);
    for (const e of compiled.errors) this.log.warn(e);
    this.registry.setAllows(compiled.allows);
    this.on.access(undefined);
    if (this.on.sites) this.on.sites();
  }

  /** Applies the exclusions as stored (lib/exclusions.js; anything else: none). */
  setExclusions(stored) {
    const map = stored instanceof Map ? stored : exclusionsFrom(stored);
    this.exclusions = map;
    this.registry.setExcluded((origin) => excludedFor(map, origin));
    if (this.on.sites) this.on.sites();
  }

  closed(tabId) {
    this.registry.removeTab(tabId);
    this.on.closed(tabId);
    this.on.changed();
  }

  /** Takes the last focused normal window as the focused one, unless a focus change named one meanwhile. */
  refocus() {
    const { chrome, registry, on } = this;
    chrome.windows.getLastFocused({ windowTypes: ['normal'] }).then((w) => {
      if (!w || registry.focusedWindow >= 0) return;
      registry.setFocusedWindow(w.id);
      on.changed();
    }, () => {});
  }

  refresh(tabId) {
    this.chrome.tabs.get(tabId).then((t) => {
      this.registry.upsertTab(t);
      this.on.access(tabId);
      this.on.changed();
    }, () => {});
  }
}
