// Tabs that agents bring into reach: openPage opens an http(s) URL in a new
// tab of the last focused window (never an existing tab) and answers once
// the page has loaded (its top frame says that its tools are reported);
// focusTab brings an allowed tab to the front;
// closeTab closes only a tab that openPage opened for the same agent (the
// same MCP session: two agents of one HTTP shim are two agents), and only
// while it is still the agent's: a tab that navigates to another site, or
// that the user starts using (a click or a key in it), is the user's.
//
// A site the user allowed opens at once. Any other site waits for the
// user's answer in the extension's own window (askOpen, from the consent
// part): allow once (the tab opens, its tools stay hidden), allow and add
// the site to the allow list, or deny (an error the agent reads as the
// user's no).
//
// What counts is where the tab landed, not the URL the agent gave: after
// the load and the wait for its tools (a redirect, a navigation before the
// load ended or while the tools were awaited), a tab on a site that is
// neither allowed nor allowed by the user for this request asks the same
// question about that site; on a no the tab closes and the agent gets the
// error, nothing of the page. The answer carries the url and title only of
// a page the user allowed. The extension has no "tabs" permission: the
// browser names a tab's URL only on the sites it holds a grant for, the
// allowed ones (worker/sites.js), and a page of any other site runs no
// script of the extension. So a tab that lands on a site not allowed is
// known by the redirect that took it there (webRequest.onBeforeRedirect of
// the allowed site's request: the browser reports requests to granted
// sites only); one that a page's script sent there is not known, and the
// answer then carries the URL the agent gave, and no tools.

import { webOrigin } from '../lib/allowlist.js';
import { Code, PageLinkType as L } from '../lib/protocol.js';
import { postToFrame } from './frames.js';

/**
 * How long openPage waits for the page to load, then for its top frame's
 * relay to say that the loaded document's tools are reported (whenLoaded;
 * a hang guard), or, without the frames, for its first tools.
 */
export const LOAD_WAIT = 15000;
export const TOOLS_WAIT = 2000;
/** How often it looks for the page's tools while it waits. */
const LOOK_EVERY = 100;

/**
 * Reads openPage's url: an http(s) URL, or {code, message}.
 * @returns {{url?: string, origin?: string, code?: string, message?: string}}
 */
export function pageURL(raw) {
  if (typeof raw !== 'string' || raw.trim() === '') return { code: Code.badRequest, message: 'openPage: "url" must be an http(s) URL' };
  let u;
  try {
    u = new URL(raw.trim());
  } catch {
    return { code: Code.badRequest, message: `openPage: ${JSON.stringify(raw.slice(0, 200))} is not a URL` };
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    return { code: Code.badRequest, message: `openPage: only http and https pages may be opened, not ${u.protocol} URLs` };
  }
  return { url: u.href, origin: webOrigin(u.href) };
}

export class Opener {
  /**
   * @param {object} o
   * @param {typeof chrome} o.chrome
   * @param {import('../lib/registry.js').Registry} o.registry
   * @param {{forCall: (id: string) => ({pid: number, session: string} | undefined), nameFor: (id: string) => string}} o.agents
   * @param {(q: {id: string, agent: string, origin: string, url: string}) => Promise<'once' | 'add' | 'deny'>} [o.askOpen]
   *   asks the user about a site that is not allowed; without it such a
   *   site is refused
   * @param {(origin: string) => Promise<void>} [o.allowSite] turns a site on
   *   that the user added from the consent window (whose page asked the
   *   browser for it); resolves once its content scripts are registered
   * @param {(id: string) => void} [o.dropAsk] ends the question of request
   *   id (the agent cancelled it) as a no
   * @param {{now: () => number, setTimeout: Function, clearTimeout: Function}} o.clock
   * @param {{warn: Function}} o.log
   * @param {import('./frames.js').Frames} [o.frames] the relays: a loaded page's top frame is
   *   asked for its tools as they are (whenLoaded); without them openPage looks for tools
   *   until some come or TOOLS_WAIT passed
   */
  constructor({ chrome, registry, agents, askOpen, allowSite, dropAsk, clock, log, frames }) {
    Object.assign(this, { chrome, registry, agents, askOpen, allowSite, dropAsk, clock, log, frames });
    /** whenLoaded questions under way: id -> {conn, done(ok)} */
    this.asking = new Map();
    this.askSeq = 0;
    /**
     * tab id -> who opened it (owner) and the origin it opened on, once
     * loaded (until then navigations are the opening's own: redirects).
     * @type {Map<number, {by: string, origin: string, loaded: boolean}>}
     */
    this.opened = new Map();
    chrome.tabs.onRemoved.addListener((tabId) => this.opened.delete(tabId));
    // The extension sees a tab's new URL in onUpdated only where the
    // browser shows it (a "tabs" permission it does not ask for); the top
    // frame of a web page says its origin when it connects (topFrame).
    chrome.tabs.onUpdated.addListener((tabId, change, tab) => {
      const url = change.url || (tab && tab.url);
      if (typeof url === 'string' && url !== '') this.topFrame(tabId, webOrigin(url));
      else if (tab && tab.url === undefined) this.hidden(tabId);
    });
    // Where a redirect of an opening's request led (see landed).
    if (chrome.webRequest && chrome.webRequest.onBeforeRedirect) {
      chrome.webRequest.onBeforeRedirect.addListener((d) => {
        const o = this.opened.get(d.tabId);
        if (o && !o.loaded && d.frameId === 0) o.redirectedTo = d.redirectUrl;
      }, { urls: ['http://*/*', 'https://*/*'], types: ['main_frame'] });
    }
  }

  /** Tab tabId now shows a page of origin: a tab that went to another site is the user's. */
  topFrame(tabId, origin) {
    const o = this.opened.get(tabId);
    if (o && o.loaded && origin !== o.origin) this.release(tabId, `it went to another site (${origin || 'not a web page'})`);
  }

  /**
   * The browser hides tab tabId's URL: a tab that had loaded a page of an
   * allowed site (whose URL the browser shows) went to a site the extension
   * may not see (a navigation by the user or a script, a redirect), and is
   * the user's. One opened on a site allowed once has a hidden URL all along.
   */
  hidden(tabId) {
    const o = this.opened.get(tabId);
    if (o && o.loaded && this.registry.allows(o.origin)) this.release(tabId, 'it went to a site the extension may not see');
  }

  /**
   * Who is behind request id, as opened remembers it: the agent (one MCP
   * session) of the shim (its pid, which outlives a host restart, else
   * its session).
   */
  owner(id) {
    const a = this.agents.forCall(id);
    const shim = a && a.pid ? `pid ${a.pid}` : `session ${String(id).split('.')[0]}`;
    return a && a.agent ? `${shim} agent ${a.agent}` : shim;
  }

  /** The user used tab tabId (a click or a key in its page): it is no agent's any more. */
  used(tabId) {
    this.release(tabId, 'the user used it');
  }

  release(tabId, why) {
    if (this.opened.delete(tabId)) this.log.info?.(`tab ${tabId} is the user's now: ${why}`);
  }

  /** openPage: {url, background?} → {output: {tabId, url, title, tools}} or {code, message}. */
  async open(id, params) {
    const p = pageURL(params.url);
    if (p.code) return p;
    if (params.background !== undefined && typeof params.background !== 'boolean') {
      return { code: Code.badRequest, message: 'openPage: "background" must be true or false' };
    }
    /** Origins that are not allowed but that the user let this request open: origin -> 'once' | 'add'. */
    const consented = new Map();
    if (!this.registry.allows(p.origin)) {
      const no = await this.askAbout(id, { origin: p.origin, url: p.url }, consented);
      if (no) return no;
    }
    const win = await this.chrome.windows.getLastFocused().catch(() => null);
    const tab = await this.chrome.tabs.create({ url: p.url, active: !params.background, ...(win ? { windowId: win.id } : {}) });
    const mine = { by: this.owner(id), origin: p.origin, loaded: false };
    this.opened.set(tab.id, mine);
    await this.waitLoaded(tab.id);
    // Its tools, or news that it landed on a site whose tools stay hidden;
    // then where it is now, asked about when it is not allowed.
    const first = await this.waitTools(tab.id, consented);
    const at = await this.landed(id, tab.id, p, consented);
    if (at.code) return at;
    // From now on a navigation to another site is no longer the opening's own (a redirect): see topFrame.
    mine.origin = at.origin || p.origin;
    mine.loaded = true;
    let tools = [];
    if (this.shows(at.origin, consented)) tools = at.asked ? await this.waitTools(tab.id, consented) : first;
    return { output: { tabId: tab.id, url: at.url, title: at.title, tools } };
  }

  /** Whether the tools of a site reach agents: it is allowed, or the user just added it for this request. */
  shows(origin, consented) {
    return origin !== '' && (this.registry.allows(origin) || consented.get(origin) === 'add');
  }

  /**
   * Where a tab is, as far as the extension knows: {origin, url, title},
   * origin '' while it does not know. The browser gives a tab's url and
   * title only to extensions with the "tabs" permission or host
   * permissions, which this one does without; the registry has them from
   * the relays' Ports (their sender's tab), which connect as a page with
   * tools or context providers registers them.
   * @param {chrome.tabs.Tab | null} t the tab as chrome.tabs.get gave it
   */
  whereIs(t, tabId) {
    const known = this.registry.tabs.get(tabId);
    // A tab whose URL the browser hides is on a site not allowed: where a
    // redirect took it, if one did.
    const hidden = t && t.url === undefined ? (this.opened.get(tabId) || {}).redirectedTo : undefined;
    const url = (t && typeof t.url === 'string' && t.url) || hidden || (known && known.url) || '';
    const title = (t && t.title) || (known && known.title) || '';
    return { origin: webOrigin(url), url, title };
  }

  /**
   * Asks the user about opening a page of a site that is not allowed
   * (page: {origin, url, from?}); records a yes in consented and returns
   * nothing, or returns the error that answers the request.
   */
  async askAbout(id, page, consented) {
    const agent = this.agents.nameFor(id);
    let answer = this.askOpen ? await this.askOpen({ id, agent, ...page }) : 'deny';
    const redirect = page.from ? `${page.from} redirected to ${page.origin}, a site the user has not allowed; ` : '';
    if (answer === 'deny') {
      if (!this.askOpen) {
        return { code: Code.notAllowed, message: `${redirect || `${page.origin} is not a site the user allowed; `}the user can allow it in the WebMCP bridge extension` };
      }
      return { code: Code.declined, message: `${redirect}the user declined to open ${page.origin}; do not ask again unless the user says so` };
    }
    if (answer === 'add') {
      // The consent window asked the browser for the site on the user's
      // click; the tab opens once the content scripts are there for it.
      try {
        if (this.allowSite) await this.allowSite(page.origin);
      } catch (e) {
        this.log.warn(`open_page: ${page.origin} could not be added: ${e.message}; it opens as allowed once`);
        answer = 'once';
      }
    }
    consented.set(page.origin, answer);
    return undefined;
  }

  /**
   * Where the tab opened for request id is now: {origin, url, title,
   * asked}, of a site that is allowed or that the user let this request
   * open (asked: the user was asked on the way); a tab on any other site
   * asks the user first, and on a no it closes and the error comes back
   * ({code, message}). A tab gone, or whose page the extension does not
   * know, tells nothing but the URL the agent gave.
   */
  async landed(id, tabId, p, consented) {
    let asked = false;
    for (;;) {
      const t = await this.chrome.tabs.get(tabId).catch(() => null);
      const at = t ? this.whereIs(t, tabId) : { origin: '' };
      if (at.origin === '') return { origin: '', url: p.url, title: '', asked };
      if (this.registry.allows(at.origin) || consented.has(at.origin)) return { ...at, asked };
      const no = await this.askAbout(id, { origin: at.origin, url: at.url, from: p.origin }, consented);
      if (no) {
        await this.chrome.tabs.remove(tabId).catch(() => {}); // the user may have closed it
        this.opened.delete(tabId);
        return no;
      }
      asked = true; // and look again: it may have moved on while the user thought
      if (consented.get(at.origin) === 'add' && t && t.url === undefined) {
        // Its page loaded before the site was allowed, without the
        // extension's scripts: load it again with them.
        await this.chrome.tabs.reload(tabId).catch(() => {});
        await this.waitLoaded(tabId);
      }
    }
  }

  /** The agent cancelled request id: a question to the user about it ends. */
  cancel(id) {
    if (this.dropAsk) this.dropAsk(id);
  }

  /**
   * Resolves with the tab once it has loaded a web page (or LOAD_WAIT
   * passed, or it closed). A tab that says "complete" of an empty
   * document, or with a navigation pending, has not loaded the page. (The
   * browser leaves url out of the tabs of sites the extension has no host
   * permission for, which is all of them: see landed.)
   */
  waitLoaded(tabId) {
    return new Promise((resolve) => {
      let settled = false;
      const done = (tab) => {
        if (settled) return;
        settled = true;
        this.chrome.tabs.onUpdated.removeListener(onUpdated);
        this.chrome.tabs.onRemoved.removeListener(onRemoved);
        this.clock.clearTimeout(timer);
        resolve(tab);
      };
      const loaded = (tab) => !!tab && tab.status === 'complete' && !tab.pendingUrl && (tab.url === undefined || webOrigin(tab.url) !== '');
      const onUpdated = (id, change, tab) => {
        if (id === tabId && change.status === 'complete' && loaded(tab)) done(tab);
      };
      const onRemoved = (id) => {
        if (id === tabId) done(null);
      };
      const timer = this.clock.setTimeout(() => done(null), LOAD_WAIT);
      this.chrome.tabs.onUpdated.addListener(onUpdated);
      this.chrome.tabs.onRemoved.addListener(onRemoved);
      // It may have loaded before the listeners were there.
      this.chrome.tabs.get(tabId).then((tab) => {
        if (loaded(tab)) done(tab);
      }, () => done(null));
    });
  }

  /**
   * Resolves once the relay of tab tabId's top frame says that its loaded
   * document's tools are reported (true), or, when it does not answer or
   * connect within TOOLS_WAIT or goes, false. (A relay connects once the
   * page's world has made its first report, which may come after the
   * tab's "complete".)
   */
  settleTop(tabId) {
    return new Promise((resolve) => {
      const id = `open${++this.askSeq}`;
      const a = { tabId, conn: null, done: null };
      const done = (ok) => {
        if (!this.asking.delete(id)) return;
        this.clock.clearTimeout(timer);
        resolve(ok);
      };
      a.done = done;
      a.ask = (conn) => {
        a.conn = conn;
        if (!postToFrame(conn, { type: L.whenLoaded, id })) done(false);
      };
      const timer = this.clock.setTimeout(() => done(false), TOOLS_WAIT);
      this.asking.set(id, a);
      const conn = this.frames.get(tabId, 0);
      if (conn) a.ask(conn);
    });
  }

  /** A relay connected: a top frame that settleTop waits for is asked. */
  connected(conn) {
    if (conn.frameId !== 0) return;
    for (const a of [...this.asking.values()]) if (a.tabId === conn.tabId && !a.conn) a.ask(conn);
  }

  /** A relay's loaded message (answering settleTop). */
  loaded(conn, m) {
    const a = this.asking.get(m.id);
    if (a && a.conn === conn) a.done(true);
  }

  /** A relay went away: a question to it ends. */
  frameGone(conn) {
    for (const a of [...this.asking.values()]) if (a.conn === conn) a.done(false);
  }

  /**
   * The names of the tools the tab's allowed frames offer: with the frames,
   * those reported once its top frame's document has loaded (settleTop:
   * none, at once, for a tab without a relay); without them, once there are
   * some (at most TOOLS_WAIT). None once the tab is known to be on a site
   * whose tools stay hidden (consented: see open).
   */
  async waitTools(tabId, consented) {
    if (this.frames) {
      const hidden = () => {
        const { origin } = this.whereIs(null, tabId);
        return origin !== '' && !this.shows(origin, consented);
      };
      if (hidden()) return [];
      await this.settleTop(tabId);
      return hidden() ? [] : this.toolsOf(tabId);
    }
    const until = this.clock.now() + TOOLS_WAIT;
    return new Promise((resolve) => {
      const look = () => {
        const names = this.toolsOf(tabId);
        const { origin } = this.whereIs(null, tabId);
        if (origin !== '' && !this.shows(origin, consented)) resolve([]);
        else if (names.length > 0 || this.clock.now() >= until) resolve(names);
        else this.clock.setTimeout(look, LOOK_EVERY);
      };
      look();
    });
  }

  toolsOf(tabId) {
    const names = [];
    for (const f of this.registry.frames.values()) {
      if (f.tabId !== tabId || !this.registry.allows(f.origin)) continue;
      for (const name of f.tools.keys()) names.push(name);
    }
    return names.sort();
  }

  /** focusTab: {tabId} of an allowed site → its tab and window come to the front. */
  async focus(params) {
    const t = this.allowedTab('focusTab', params);
    if (t.code) return t;
    await this.chrome.tabs.update(t.tab.id, { active: true });
    await this.chrome.windows.update(t.tab.windowId, { focused: true }).catch(() => {}); // a window gone meanwhile
    return { output: { tabId: t.tab.id } };
  }

  /** closeTab: {tabId} of a tab openPage opened for the same agent. */
  async close(id, params) {
    const tabId = params.tabId;
    if (!Number.isSafeInteger(tabId) || tabId <= 0) return { code: Code.badRequest, message: 'closeTab: "tabId" must be a tab id' };
    const o = this.opened.get(tabId);
    if (o === undefined || o.by !== this.owner(id)) {
      return { code: Code.notAllowed, message: `closeTab: tab ${tabId} was not opened by this agent with open_page, or the user has used it since (or it went to another site); only the user closes it` };
    }
    await this.chrome.tabs.remove(tabId);
    this.opened.delete(tabId);
    return { output: { tabId } };
  }

  allowedTab(method, params) {
    const tabId = params.tabId;
    if (!Number.isSafeInteger(tabId) || tabId <= 0) return { code: Code.badRequest, message: `${method}: "tabId" must be a tab id` };
    const tab = this.registry.tabs.get(tabId);
    if (!tab) return { code: Code.notFound, message: `${method}: no tab ${tabId}; list_tabs shows the tabs` };
    if (!this.registry.allows(tab.url)) return { code: Code.notAllowed, message: `${method}: tab ${tabId} is of a site the user has not allowed` };
    return { tab };
  }
}
