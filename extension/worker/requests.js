// A shim's requests besides tool calls (sampleContext, pin, unpin, see
// lib/requestparams.js for their parameters; openPage, focusTab, closeTab, see
// opener.js): each is answered once, with a
// result or an error; a cancel answers `cancelled` first and the late
// answer is dropped, and a lost host link forgets them all.

import { webOrigin } from '../lib/allowlist.js';
import { Code, Method, errorMessage, resultMessage } from '../lib/protocol.js';
import { pinFromContext, pinParams, resolveTab, setContextToolParams, tabIdParam, unpinParams } from '../lib/requestparams.js';

/** Requests runs the requests under way. */
export class Requests {
  /**
   * @param {object} o
   * @param {import('../lib/registry.js').Registry} o.registry
   * @param {import('./contextsampler.js').ContextSampler} o.sampler
   * @param {import('./pins.js').PinStore} o.pins
   * @param {(msg: object) => void} o.send to the host
   * @param {{now: () => number}} o.clock
   * @param {{warn: Function}} o.log
   * @param {import('./opener.js').Opener} [o.opener] openPage, focusTab, closeTab
   * @param {import('./activity.js').Activity} [o.activity] logs what agents do to tabs
   * @param {import('./contexttools.js').ContextTools} [o.contextTools] page tools sampled as context
   * @param {{access: () => Promise<{allowed: string[], withheld: string[]}>}} [o.sites] site access (sites.js)
   */
  constructor({ registry, sampler, pins, send, clock, log, opener, activity, contextTools, sites }) {
    Object.assign(this, { registry, sampler, pins, send, clock, log, opener, activity, contextTools, sites });
    /** Ids of the requests the activity log follows. */
    this.tracked = new Set();
    /** Ids of the requests under way. */
    this.ids = new Set();
  }

  /** A checked request from the host. */
  handle(m) {
    if (this.ids.has(m.id)) {
      this.log.warn(`request ${m.id} is already under way; the repeated request is ignored`);
      return;
    }
    this.ids.add(m.id);
    let work;
    switch (m.method) {
      case Method.sampleContext:
        work = this.sample(m.params);
        break;
      case Method.pin:
        work = this.pin(m.params);
        break;
      case Method.unpin:
        work = this.unpin(m.params);
        break;
      case Method.contextTools:
        work = this.listContextTools(m.params);
        break;
      case Method.setContextTool:
        work = this.setContextTool(m.params);
        break;
      case Method.siteAccess:
        work = this.sites.access().then((output) => ({ output }));
        break;
      case Method.openPage:
        this.track(m, 'open_page', 0, webOrigin(String(m.params.url || '')));
        work = this.opener.open(m.id, m.params);
        break;
      case Method.focusTab:
        this.track(m, 'focus_tab', m.params.tabId, this.originOf(m.params.tabId));
        work = this.opener.focus(m.params);
        break;
      case Method.closeTab:
        this.track(m, 'close_tab', m.params.tabId, this.originOf(m.params.tabId));
        work = this.opener.close(m.id, m.params);
        break;
    }
    work.then((r) => this.answer(m.id, r), (e) => {
      this.log.warn(`${m.method} failed: ${e && e.stack ? e.stack : e}`);
      this.answer(m.id, { code: Code.internal, message: `${m.method} failed in the extension: ${e && e.message ? e.message : e}` });
    });
  }

  /** Cancels request id; false when no such request is under way. */
  cancel(id) {
    if (!this.ids.delete(id)) return false;
    if (this.opener) this.opener.cancel(id);
    if (this.tracked.delete(id) && this.activity) this.activity.end(id, errorMessage(id, Code.cancelled, 'the request was cancelled'));
    this.send(errorMessage(id, Code.cancelled, 'the request was cancelled'));
    return true;
  }

  /** Forgets every request (the host answered them when its link was lost). */
  clear() {
    this.ids.clear();
  }

  // r is {output} or {code, message}.
  answer(id, r) {
    if (!this.ids.delete(id)) return; // cancelled, or the host went away
    const msg = r.code ? errorMessage(id, r.code, r.message) : resultMessage(id, r.output);
    this.send(msg);
    if (this.tracked.delete(id) && this.activity) this.activity.end(id, msg);
  }

  // What agents do to tabs (open, focus, close) goes in the activity log
  // like their calls.
  track(m, tool, tabId, origin) {
    if (!this.activity) return;
    this.tracked.add(m.id);
    this.activity.start({ id: m.id, tabId: Number.isSafeInteger(tabId) ? tabId : 0, origin, name: tool, arguments: m.params }, false);
  }

  originOf(tabId) {
    const tab = this.registry.tabs.get(tabId);
    return tab ? webOrigin(tab.url || '') : '';
  }

  async sample(params) {
    const p = tabIdParam(Method.sampleContext, params);
    if (p.code) return p;
    const r = resolveTab(this.registry, p.tabId);
    if (r.code) return r;
    return { output: await this.sampler.sampleTab(r.tab) };
  }

  async pin(params) {
    const p = pinParams(params);
    if (p.code) return p;
    const r = resolveTab(this.registry, p.tabId);
    if (r.code) return r;
    if (this.registry.isExcluded(r.tab.origin, p.providerId)) {
      return { code: Code.notAllowed, message: `the user excluded context provider ${JSON.stringify(p.providerId)} of ${r.tab.origin} from what agents see; nothing was pinned` };
    }
    const ctx = await this.sampler.sampleTab(r.tab);
    const made = pinFromContext(ctx, p.providerId, this.registry.providerIds(r.tab.id), this.clock.now());
    if (made.code) return made;
    return this.pins.add(made.pin);
  }

  // The tools of a tab that can be context, and whether each is sent with prompts.
  async listContextTools(params) {
    const p = tabIdParam(Method.contextTools, params);
    if (p.code) return p;
    const r = resolveTab(this.registry, p.tabId);
    if (r.code) return r;
    return { output: { tabId: r.tab.id, tools: this.contextTools.list(r.tab.id) } };
  }

  // The person, through the local CLI, turns a tool on or off as context.
  async setContextTool(params) {
    const p = setContextToolParams(params);
    if (p.code) return p;
    const r = resolveTab(this.registry, p.tabId);
    if (r.code) return r;
    try {
      return { output: await this.contextTools.set({ tabId: r.tab.id, frameId: p.frameId, name: p.name, on: p.on }) };
    } catch (e) {
      return { code: Code.notFound, message: `setContextTool: ${e.message}` };
    }
  }

  async unpin(params) {
    const p = unpinParams(params);
    if (p.code) return p;
    return this.pins.remove(p.providerId);
  }
}
