// The panel's requests (ui/panel.html, ui/options.html), answered through
// worker/uiapi.js, and the change notices the panel listens for. Here the
// user, never an agent, changes what leaves the browser:
//
//   panel/state      {tabId?, fresh?}  the panel's view of a tab (lib/panelview.js);
//                    fresh: sample the tab's providers first
//   site/set         {origin, on}      turn a site on or off in the allow list
//   provider/include {origin, providerId | ambient: true, include}
//                    include or exclude one provider (or the ambient context) of a site
//   pin              {tabId, providerId}  pin a provider's fresh snapshot
//   unpin            {providerId?}     remove a pin (all without providerId)
//   sites/list       {}                the allow list, entry by entry
//   sites/remove     {entry}           remove one entry
//
// Each change is applied at once (the agents lose a site's tools in the
// same task) and then stored in chrome.storage.local, where worker/tabs.js
// picks up changes made elsewhere. Topics published to the pages: 'tab'
// (tabs, tools, context), 'pins', 'sites', 'host'.

import { STORAGE_KEY, setSiteAllowed, webOrigin } from '../lib/allowlist.js';
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
   * @param {import('./contextsampler.js').ContextSampler} o.sampler
   * @param {import('./pins.js').PinStore} o.pins
   * @param {import('./uiapi.js').UiApi} o.ui
   * @param {() => boolean} o.connected whether the host link is up
   * @param {() => object[]} o.agents the connected agents (worker/agents.js list())
   * @param {() => void} o.changed the registry changed: tell the host
   * @param {{now: () => number}} o.clock
   */
  constructor({ chrome, registry, tabs, sampler, pins, ui, connected, agents, changed, clock }) {
    Object.assign(this, { chrome, registry, tabs, sampler, pins, ui, connected, agents, changed, clock });
    this.topics = new Set();
    this.writes = Promise.resolve();
  }

  /** Registers the request handlers on the UI door. */
  listen() {
    const { ui } = this;
    ui.on('panel/state', (m) => this.state(m));
    ui.on('site/set', (m) => this.setSite(m));
    ui.on('provider/include', (m) => this.include(m));
    ui.on('pin', (m) => this.pin(m));
    ui.on('unpin', (m) => this.unpin(m));
    ui.on('sites/list', () => this.sites());
    ui.on('sites/remove', (m) => this.removeSite(m));
    ui.on('tool/accept', (m) => this.acceptTool(m));
  }

  /**
   * The user accepts a tool whose page changed its definition since it was
   * first seen: the definition it has now becomes the known one (its
   * "changed" mark goes, for the panel and the agents).
   */
  acceptTool({ tabId, frameId, name }) {
    const { registry } = this;
    const f = registry.frames.get(frameKey(tabId, frameId));
    const tool = f && f.tools.get(name);
    if (!tool) throw new Error(`tab ${tabId} frame ${frameId} has no tool ${JSON.stringify(String(name))} (any more)`);
    if (registry.prints) registry.prints.accept(f.origin, name, fingerprint(tool));
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
    if (fresh) {
      const id = Number.isSafeInteger(tabId) ? tabId : registry.focusedTab()?.id;
      const t = id === undefined ? null : registry.tabs.get(id);
      const wire = t && registry.wireTab(t);
      if (wire && wire.allowed) await this.sampler.sampleTab(wire);
    }
    return panelState({
      registry,
      tabId: Number.isSafeInteger(tabId) ? tabId : undefined,
      excludedFor: (origin) => registry.excluded(origin),
      pins: this.pins.pins,
      shareable: shareablePin(registry),
      connected: this.connected(),
      agents: this.agents(),
    });
  }

  async setSite({ origin, on }) {
    if (typeof on !== 'boolean') throw new Error('site/set: "on" must be true or false');
    const o = webOrigin(origin);
    const before = this.tabs.allowList;
    const next = setSiteAllowed(before, o || origin, on);
    await this.applyList(before, next);
    return { origin: o, allowed: this.registry.allows(o) };
  }

  async removeSite({ entry }) {
    const before = this.tabs.allowList;
    if (!before.includes(entry)) throw new Error(`${JSON.stringify(entry)} is not on the allow list (any more); the list is shown again`);
    await this.applyList(before, before.filter((e) => e !== entry));
    return this.sites();
  }

  sites() {
    return { entries: siteEntries(this.tabs.allowList) };
  }

  // Applies the new allow list now, then stores it; a failed write undoes it.
  async applyList(before, next) {
    this.tabs.setAllowList(next);
    this.changed();
    try {
      await this.store({ [STORAGE_KEY]: next });
    } catch (e) {
      this.tabs.setAllowList(before);
      this.changed();
      throw new Error(`the allow list could not be stored (${e.message}); nothing changed, try again`);
    }
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
