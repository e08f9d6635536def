// The panel's requests (ui/panel.html, ui/options.html), answered through
// worker/uiapi.js, and the change notices the panel listens for. Here the
// user, never an agent, changes what leaves the browser:
//
//   panel/state      {tabId?, fresh?}  the panel's view of a tab (lib/panelview.js);
//                    fresh: sample the tab's providers first
//   site/set         {origin, on, reload?}  turn a site on (the page asked the browser
//                                      for it first: ui/sitegrant.js) or off; on:
//                                      its open tabs get the bridge (openTabs:
//                                      {joined, needReload}), the panel's tab
//                                      (reload) loads again where it must
//   site/reload      {origin}          reload the site's open tabs that cannot get
//                                      the bridge otherwise (no WebMCP of the browser's)
//   provider/include {origin, providerId | ambient: true, include}
//                    include or exclude one provider (or the ambient context) of a site
//   pin              {tabId, providerId}  pin a provider's fresh snapshot
//   unpin            {providerId?}     remove a pin (all without providerId)
//   sites/list       {}                the allow list, entry by entry (and the
//                                      sites an earlier version allowed that
//                                      wait for the browser's grant)
//   sites/remove     {entry}           remove one entry
//
// Site access is the browser's host permissions (worker/sites.js), which
// the browser's own settings change too; exclusions are applied at once
// and then stored in chrome.storage.local. Topics published to the pages: 'tab'
// (tabs, tools, context), 'pins', 'sites', 'host'.

import { webOrigin } from '../lib/allowlist.js';
import { readsOnly } from '../lib/askpolicy.js';
import { EXCLUSIONS_KEY, setIncluded, storedExclusions } from '../lib/exclusions.js';
import { panelState, siteEntries } from '../lib/panelview.js';
import { frameKey } from '../lib/registry.js';
import { fingerprint } from '../lib/toolprints.js';
import { pinFromContext, resolveTab } from '../lib/requestparams.js';

/**
 * Whether a pin may leave the browser: its site (the origin of its URL) is
 * allowed and the user has not excluded its provider there. A pin without a
 * URL names no site and goes.
 */
export function shareablePin(registry) {
  return (pin) => {
    if (!pin.url) return true;
    const origin = webOrigin(pin.url);
    return registry.allows(origin) && !registry.isExcluded(origin, pin.providerId);
  };
}

/** Panel answers the panel's requests and publishes its topics. */
export class Panel {
  /**
   * @param {object} o
   * @param {typeof chrome} o.chrome
   * @param {import('../lib/registry.js').Registry} o.registry
   * @param {import('./tabs.js').Tabs} o.tabs the allow list and exclusions, applied
   * @param {import('./sites.js').Sites} o.sites site access: the browser's grants and the blocks
   * @param {import('./contextsampler.js').ContextSampler} o.sampler
   * @param {import('./pins.js').PinStore} o.pins
   * @param {import('./uiapi.js').UiApi} o.ui
   * @param {() => boolean} o.connected whether the host link is up
   * @param {() => object[]} o.agents the connected agents (worker/agents.js list())
   * @param {() => void} o.changed the registry changed: tell the host
   * @param {{now: () => number}} o.clock
   * @param {import('./opentabs.js').OpenTabs} [o.openTabs] brings the bridge to open tabs
   */
  constructor({ chrome, registry, tabs, sites, sampler, pins, ui, connected, agents, changed, clock, openTabs = null }) {
    Object.assign(this, { chrome, registry, tabs, sites, sampler, pins, ui, connected, agents, changed, clock, openTabs });
    this.topics = new Set();
    this.writes = Promise.resolve();
  }

  /** Registers the request handlers on the UI door. */
  listen() {
    const { ui } = this;
    ui.on('panel/state', (m) => this.state(m));
    ui.on('site/set', (m) => this.setSite(m));
    ui.on('site/reload', (m) => this.reloadSite(m));
    ui.on('provider/include', (m) => this.include(m));
    ui.on('pin', (m) => this.pin(m));
    ui.on('unpin', (m) => this.unpin(m));
    // After the grants that changed meanwhile are applied and registered.
    ui.on('sites/list', () => this.sites.settled().then(() => this.siteList()));
    ui.on('sites/remove', (m) => this.removeSite(m));
    ui.on('tool/accept', (m) => this.acceptTool(m));
  }

  /**
   * The user accepts a tool whose page changed its definition since it was
   * first seen: the definition the panel showed (print, its fingerprint)
   * becomes the known one (its "changed" mark goes, for the panel and the
   * agents). Refused when the page changed the tool again meanwhile: the
   * user accepts only what they saw, as in the consent window.
   */
  acceptTool({ tabId, frameId, name, print }) {
    const { registry } = this;
    const f = registry.frames.get(frameKey(tabId, frameId));
    const tool = f && f.tools.get(name);
    if (!tool) throw new Error(`tab ${tabId} frame ${frameId} has no tool ${JSON.stringify(String(name))} (any more)`);
    if (typeof print !== 'string' || print === '') {
      throw new Error(`say which definition of ${name} you accept: tool/accept needs the print (fingerprint) the panel showed`);
    }
    if (print !== fingerprint(tool)) {
      throw new Error(`${name} changed again since the panel showed it, so nothing was accepted: read its new definition and accept that one if you trust it`);
    }
    if (registry.prints) registry.prints.accept(f.origin, name, print, readsOnly(tool));
    registry.dirty(tabId); // a tool the page offers as context is sampled again
    this.changed();
    return { accepted: name };
  }

  /** Tells the open pages that topic changed, once per task however often it is called. */
  notify(topic) {
    if (this.topics.has(topic)) return;
    this.topics.add(topic);
    if (this.topics.size > 1) return;
    queueMicrotask(() => {
      const list = [...this.topics];
      this.topics.clear();
      for (const t of list) this.ui.publish(t);
    });
  }

  async state({ tabId, fresh } = {}) {
    const { registry } = this;
    // The grants that changed meanwhile applied first, as for sites/list:
    // a view from before a change must not come after it.
    await this.sites.settled();
    // A tab of a site that is not allowed: the browser names its URL only
    // while the user let the extension look at it (activeTab: the toolbar
    // button), which is when the panel offers to allow it.
    const id = Number.isSafeInteger(tabId) ? tabId : this.activeTabId();
    const known = id === undefined ? null : registry.tabs.get(id);
    if (known && !known.url) {
      const t = await this.chrome.tabs.get(id).catch(() => null);
      if (t && typeof t.url === 'string' && t.url !== '') {
        registry.upsertTab(t);
        this.changed();
      }
    }
    if (fresh) {
      const t = id === undefined ? null : registry.tabs.get(id);
      const wire = t && registry.wireTab(t);
      if (wire && wire.allowed) await this.sampler.sampleTab(wire);
    }
    return panelState({
      registry,
      tabId: Number.isSafeInteger(tabId) ? tabId : (known ? id : undefined),
      excludedFor: (origin) => registry.excluded(origin),
      pins: this.pins.pins,
      shareable: shareablePin(registry),
      connected: this.connected(),
      agents: this.agents(),
    });
  }

  async setSite({ origin, on, reload }) {
    if (typeof on !== 'boolean') throw new Error('site/set: "on" must be true or false');
    const o = webOrigin(origin);
    if (o === '') throw new Error(`${JSON.stringify(origin)} is not the origin of a web page (http or https); only web sites can be allowed`);
    if (on) await this.sites.allow(o);
    else await this.sites.deny(o);
    this.changed();
    // The site's open tabs, opened before it was allowed, have none of the
    // extension's scripts (they are registered for allowed sites only).
    // Where the browser has its own WebMCP they get the relay now
    // (worker/opentabs.js); elsewhere the polyfill must come before the
    // page's own scripts: the panel's tab reloads, the others are counted
    // for the panel to offer their reload (site/reload).
    let reloaded = false;
    const openTabs = { joined: 0, needReload: 0 };
    const got = on && this.openTabs ? await this.openTabs.join({ origin: o }) : null;
    if (got) {
      openTabs.joined = got.joined.length;
      const others = got.needReload.filter((id) => id !== reload);
      openTabs.needReload = others.length;
      if (got.needReload.includes(reload)) reloaded = await this.chrome.tabs.reload(reload).then(() => true, () => false);
    } else if (on && Number.isSafeInteger(reload) && !this.hasFrames(reload)) {
      reloaded = await this.chrome.tabs.reload(reload).then(() => true, () => false);
    }
    return { origin: o, allowed: this.registry.allows(o), reloaded, ...(got ? { openTabs } : {}) };
  }

  /** Reloads the open tabs of an allowed site that do not run the bridge (the browser has no WebMCP of its own). */
  async reloadSite({ origin }) {
    const o = webOrigin(origin);
    if (o === '' || !this.registry.allows(o)) throw new Error(`${JSON.stringify(origin)} is not an allowed site; allow it first`);
    const got = this.openTabs ? await this.openTabs.join({ origin: o }) : null;
    let reloaded = 0;
    for (const id of got ? got.needReload : []) if (await this.chrome.tabs.reload(id).then(() => true, () => false)) reloaded++;
    return { origin: o, reloaded };
  }

  /** The id of the active tab of the focused window, whether or not the extension knows its URL. */
  activeTabId() {
    const { registry } = this;
    for (const t of registry.tabs.values()) if (t.active && t.windowId === registry.focusedWindow) return t.id;
    return undefined;
  }

  hasFrames(tabId) {
    for (const f of this.registry.frames.values()) if (f.tabId === tabId) return true;
    return false;
  }

  async removeSite({ entry }) {
    if (typeof entry !== 'string' || entry === '') throw new Error('sites/remove: say which entry to remove');
    await this.sites.remove(entry);
    this.changed();
    return this.siteList();
  }

  siteList() {
    return { entries: siteEntries(this.tabs.allowList, this.sites.pending) };
  }

  async include({ origin, providerId, ambient, include }) {
    if (typeof include !== 'boolean') throw new Error('provider/include: "include" must be true or false');
    const before = this.tabs.exclusions;
    const next = setIncluded(before, origin, ambient === true ? { ambient: true } : { providerId }, include);
    this.tabs.setExclusions(next);
    this.changed();
    try {
      await this.store({ [EXCLUSIONS_KEY]: storedExclusions(next) });
    } catch (e) {
      this.tabs.setExclusions(before);
      this.changed();
      throw new Error(`the choice could not be stored (${e.message}); nothing changed, try again`);
    }
    return { included: include };
  }

  async pin({ tabId, providerId }) {
    const { registry } = this;
    if (typeof providerId !== 'string' || providerId === '') throw new Error('pin: say which provider to pin');
    const r = resolveTab(registry, Number.isSafeInteger(tabId) ? tabId : null);
    if (r.code) throw new Error(r.message);
    if (registry.isExcluded(r.tab.origin, providerId)) {
      throw new Error(`${providerId} is excluded, so it cannot be pinned: include it first`);
    }
    const ctx = await this.sampler.sampleTab(r.tab);
    const made = pinFromContext(ctx, providerId, registry.providerIds(r.tab.id), this.clock.now());
    if (made.code) throw new Error(made.message);
    const res = await this.pins.add(made.pin);
    if (res.code) throw new Error(res.message);
    return res.output;
  }

  async unpin({ providerId } = {}) {
    const id = typeof providerId === 'string' && providerId !== '' ? providerId : null;
    const res = await this.pins.remove(id);
    if (res.code) throw new Error(res.message);
    return res.output;
  }

  // Storage writes go one at a time, in order.
  store(items) {
    const p = this.writes.then(() => this.chrome.storage.local.set(items));
    this.writes = p.catch(() => {});
    return p;
  }
}
