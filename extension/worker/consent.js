// Ask-before-acting in the worker: each site's setting (lib/askpolicy.js, in
// chrome.storage.local), this browser session's grants "until the browser
// closes" (chrome.storage.session), and the queue of calls that wait for
// the user's answer in ONE extension-owned popup window (ui/consent.html,
// a page of the extension's own origin, never inside the web page). The
// same window also asks about an agent's wish to open a page of a site the
// user has not allowed (askOpen: allow once, allow and add the site, deny).
//
// A call's site is the origin of the frame that owns the tool, which may
// differ from its tab's (a framed page): it asks as the stricter of the
// two sites' settings say, and its grant "until the browser closes" is the
// frame's site's (and tool's). A request's origin is the tab's, and its
// frameOrigin the frame's when that differs.
//
// The router asks needs() before a call goes to its frame, and awaits
// ask() when it does: that resolves once, with {allow: true} or
// {allow: false, how: 'deny' | 'closed' | 'timeout' | 'failed', message}.
// A call that ends otherwise while it waits (the agent cancels, the tab
// closes, the host link is lost) is dropped: its request leaves the queue
// and the window; the window closes when the queue is empty. Closing the
// window declines every call in it.
//
// The consent page talks to the worker through uiapi.js only:
//   consent.list    -> {requests: [...]} the queue, oldest first
//   consent.answer  {id, answer: 'allow' | 'deny' | 'always'}
//   siteSettings.get {origin} -> {origin, ask, indicator, loopback}
//   siteSettings.set {origin, ask?, indicator?} -> the same
// and hears 'consent' and 'siteSettings' on the UI Port when they change.

import {
  GRANTS_KEY, SETTINGS_KEY, consentWait, foldArguments, grantKey, isLoopbackDefault, needsConsent, readsOnly, settingsOf, stricterAsk, withSettings,
} from '../lib/askpolicy.js';
import { fingerprint } from '../lib/toolprints.js';

/** The site of a queued call: its frame's origin (which its grant is keyed by). */
function siteOf(r) {
  return r.frameOrigin || r.origin;
}

/** The consent window's page. */
export const CONSENT_PAGE = 'ui/consent.html';

export class Consent {
  /**
   * @param {object} o
   * @param {typeof chrome} o.chrome
   * @param {{now: () => number, setTimeout: Function, clearTimeout: Function}} o.clock
   * @param {{warn: Function}} o.log
   * @param {(topic: string) => void} o.publish tells the UI pages
   * @param {import('../lib/toolprints.js').ToolPrints} [o.prints] the known tool
   *   definitions: a tool that acts and changed since asks, and a call the
   *   user allows makes its definition the known one
   * @param {() => void} [o.accepted] called when the user accepted a changed definition
   */
  constructor({ chrome, clock, log, publish, prints, accepted }) {
    Object.assign(this, { chrome, clock, log, publish, prints, accepted });
    this.stored = {};
    /** @type {Set<string>} grantKey()s */
    this.grants = new Set();
    /** @type {Map<string, object>} call id -> request, in arrival order */
    this.queue = new Map();
    this.windowId = null;
    this.opening = null;
    /** @type {Set<number>} windows closed while create() was under way */
    this.closedWhileOpening = new Set();
  }

  /** Takes what storage holds at start: the settings (storage.local) and the grants (storage.session). */
  load(settings, grants) {
    this.stored = settings && typeof settings === 'object' && !Array.isArray(settings) ? settings : {};
    this.grants = new Set(Array.isArray(grants) ? grants.filter((g) => typeof g === 'string') : []);
  }

  /** Reads both from storage (call before the host link opens). */
  async loadFromStorage() {
    const { chrome } = this;
    const local = await chrome.storage.local.get([SETTINGS_KEY]);
    let session = {};
    try {
      if (chrome.storage.session) session = await chrome.storage.session.get([GRANTS_KEY]);
    } catch (e) {
      this.log.warn(`could not read this session's consent grants: ${e.message}`);
    }
    this.load(local[SETTINGS_KEY], session[GRANTS_KEY]);
  }

  /** Listens for the settings changing in storage and the consent window closing. */
  listen(ui) {
    const { chrome } = this;
    chrome.storage.onChanged.addListener((changes, area) => {
      if (area === 'local' && SETTINGS_KEY in changes) {
        const v = changes[SETTINGS_KEY].newValue;
        this.stored = v && typeof v === 'object' && !Array.isArray(v) ? v : {};
        this.publish('siteSettings');
      }
    });
    if (chrome.windows && chrome.windows.onRemoved) chrome.windows.onRemoved.addListener((id) => this.windowClosed(id));
    if (!ui) return;
    ui.on('siteSettings.get', (m) => this.describe(m.origin));
    ui.on('siteSettings.set', (m) => this.setSettings(m.origin, { ask: m.ask, indicator: m.indicator }));
    ui.on('consent.list', () => ({ requests: this.list() }));
    ui.on('consent.answer', (m) => this.answer(m.id, m.answer));
  }

  /** A site's setting. */
  settingsFor(origin) {
    return settingsOf(this.stored, origin);
  }

  describe(origin) {
    const s = this.settingsFor(origin);
    return { origin, ...s, loopback: isLoopbackDefault(origin) };
  }

  /** Changes a site's setting (the user did, in the extension's UI). */
  async setSettings(origin, patch) {
    const next = withSettings(this.stored, origin, patch);
    await this.chrome.storage.local.set({ [SETTINGS_KEY]: next });
    this.stored = next;
    this.publish('siteSettings');
    return this.describe(origin);
  }

  /**
   * Whether a call of tool waits for the user: site is the origin of the
   * frame that owns the tool, tabOrigin its tab's (the same for a top
   * frame). The stricter of their settings holds; a grant is the site's.
   */
  needs(site, tool, tabOrigin = site) {
    // A tool whose page changed its definition since it was first seen (or
    // last accepted) asks, whatever the site's setting, when it acts, or
    // when it acted before and says read-only now: it is not the tool the
    // user knew. Once allowed or accepted, the new definition is the known one.
    if (this.isChanged(site, tool) && (!readsOnly(tool) || !this.prints.knownReadOnly(site, tool.name))) return true;
    const ask = stricterAsk(this.settingsFor(site).ask, this.settingsFor(tabOrigin).ask);
    if (!needsConsent(ask, tool)) return false;
    return !this.grants.has(grantKey(site, tool.name, fingerprint(tool)));
  }

  /** Whether site's tool differs from its known definition. */
  isChanged(site, tool) {
    return !!this.prints && this.prints.changed(site, tool);
  }

  /**
   * Queues a call for the user's answer and shows it in the consent window.
   * req: {id, tabId, tabTitle, origin, frameOrigin, tool, arguments, agent, timeout}:
   * origin is the tab's, frameOrigin the tool's frame's (the window shows
   * it when it differs).
   * @returns {Promise<{allow: boolean, how?: string, message?: string}>}
   */
  ask(req) {
    return new Promise((resolve) => {
      const now = this.clock.now();
      const wait = consentWait(req.timeout);
      const r = {
        id: req.id,
        tabId: req.tabId,
        tabTitle: String(req.tabTitle || '').slice(0, 120),
        origin: req.origin,
        frameOrigin: req.frameOrigin && req.frameOrigin !== req.origin ? req.frameOrigin : undefined,
        tool: req.tool.name,
        print: fingerprint(req.tool),
        readOnly: readsOnly(req.tool),
        changed: this.isChanged(req.frameOrigin || req.origin, req.tool),
        title: req.tool.title || '',
        description: String(req.tool.description || '').slice(0, 500),
        agent: req.agent || 'an agent',
        args: foldArguments(req.arguments),
        since: now,
        deadline: Number.isFinite(wait) ? now + wait : null,
        resolve,
        timer: Number.isFinite(wait) ? this.clock.setTimeout(() => this.settle(req.id, {
          allow: false,
          how: 'timeout',
          message: `the user did not answer within ${Math.round(wait / 100) / 10} s`,
        }), wait) : 0,
      };
      this.queue.set(req.id, r);
      this.changed();
      this.showWindow();
    });
  }

  /**
   * Queues an agent's request to open a page of a site the user has not
   * allowed (worker/opener.js), in the same window as the calls.
   * req: {id, agent, origin, url, from?}: from is the origin of the URL the
   * agent gave when the page redirected (or navigated) from there to url.
   * It waits until the user answers, the window closes, or drop(id) (the
   * agent cancelled).
   * @returns {Promise<'once' | 'add' | 'deny'>} open the tab once, open it
   *   and allow the site, or not at all
   */
  askOpen(req) {
    return new Promise((resolve) => {
      this.queue.set(req.id, {
        kind: 'open',
        id: req.id,
        origin: req.origin,
        url: String(req.url || '').slice(0, 2000),
        from: req.from || undefined,
        agent: req.agent || 'an agent',
        since: this.clock.now(),
        deadline: null,
        resolve: (outcome) => resolve(outcome.allow ? outcome.how : 'deny'),
        timer: 0,
      });
      this.changed();
      this.showWindow();
    });
  }

  /** The queue as the consent page shows it, oldest first. */
  list() {
    return [...this.queue.values()].map(({ resolve, timer, ...r }) => r);
  }

  /** The user's answer to call id: 'allow', 'deny' or 'always' (allow this tool on this site until the browser closes). */
  async answer(id, answer) {
    const r = this.queue.get(id);
    if (!r) throw new Error('that call is no longer waiting (it was answered, cancelled or timed out)');
    if (r.kind === 'open') {
      if (answer !== 'once' && answer !== 'add' && answer !== 'deny') {
        throw new Error(`the answer to opening a page must be once, add or deny, not ${JSON.stringify(answer)}`);
      }
      this.settle(id, answer === 'deny' ? { allow: false, how: 'deny' } : { allow: true, how: answer });
      return true;
    }
    if (answer !== 'deny' && r.changed && this.prints) {
      // The user allowed the new definition: it is the known one now.
      this.prints.accept(siteOf(r), r.tool, r.print, r.readOnly);
      if (this.accepted) this.accepted();
    }
    if (answer === 'allow') {
      this.settle(id, { allow: true, how: 'allow' });
    } else if (answer === 'deny') {
      this.settle(id, { allow: false, how: 'deny', message: 'the user denied it' });
    } else if (answer === 'always') {
      const key = grantKey(siteOf(r), r.tool, r.print);
      this.grants.add(key);
      // Every waiting call of the same tool (and definition) on the same site goes too.
      for (const other of [...this.queue.values()]) {
        if (other.kind !== 'open' && grantKey(siteOf(other), other.tool, other.print) === key) this.settle(other.id, { allow: true, how: 'always' });
      }
      try {
        if (this.chrome.storage.session) await this.chrome.storage.session.set({ [GRANTS_KEY]: [...this.grants] });
      } catch (e) {
        this.log.warn(`could not keep the grant for ${key} in storage.session: ${e.message}; it lasts until the worker restarts`);
      }
    } else {
      throw new Error(`answer must be allow, deny or always, not ${JSON.stringify(answer)}`);
    }
    return true;
  }

  /** Call id ended while it waited (cancelled, its tab closed, the host link lost): it leaves the queue unanswered. */
  drop(id) {
    const r = this.queue.get(id);
    if (!r) return;
    this.clock.clearTimeout(r.timer);
    this.queue.delete(id);
    this.changed();
  }

  /** Whether call id waits for the user. */
  waiting(id) {
    return this.queue.has(id);
  }

  settle(id, outcome) {
    const r = this.queue.get(id);
    if (!r) return;
    this.clock.clearTimeout(r.timer);
    this.queue.delete(id);
    r.resolve(outcome);
    this.changed();
  }

  changed() {
    this.publish('consent');
    if (this.queue.size === 0) this.closeWindow();
  }

  // The one consent window: opened for the first request, focused for the
  // next ones (the page lists the queue), closed when the queue is empty.
  // A window that is gone without a word (its onRemoved never came) is
  // opened anew rather than focused in vain; one the user closes before
  // create() answers declines its calls as any closed window does.
  showWindow() {
    const { chrome } = this;
    if (this.opening) return;
    if (this.windowId !== null) {
      const id = this.windowId;
      chrome.windows.update(id, { focused: true }).catch(() => {
        if (this.windowId !== id) return;
        this.windowId = null;
        if (this.queue.size > 0) this.showWindow();
      });
      return;
    }
    this.closedWhileOpening = new Set();
    this.opening = chrome.windows.create({
      type: 'popup', url: chrome.runtime.getURL(CONSENT_PAGE), width: 480, height: 620, focused: true,
    }).then((w) => {
      this.opening = null;
      this.windowId = w.id;
      if (this.closedWhileOpening.has(w.id)) this.windowClosed(w.id);
      else if (this.queue.size === 0) this.closeWindow();
    }, (e) => {
      this.opening = null;
      const message = `the consent window could not be opened (${e && e.message ? e.message : e})`;
      this.log.warn(message);
      for (const id of [...this.queue.keys()]) this.settle(id, { allow: false, how: 'failed', message });
    });
  }

  closeWindow() {
    if (this.windowId === null) return;
    const id = this.windowId;
    this.windowId = null; // a request from now on opens a new window
    this.chrome.windows.remove(id).catch(() => {});
  }

  windowClosed(id) {
    if (this.opening) this.closedWhileOpening.add(id);
    if (id !== this.windowId) return;
    this.windowId = null;
    for (const rid of [...this.queue.keys()]) {
      this.settle(rid, { allow: false, how: 'closed', message: 'the user closed the consent window without allowing it' });
    }
  }
}
