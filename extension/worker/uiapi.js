// The extension's own pages (the panel, the consent window, the options
// page) talk to the worker here, and only they: a content script, whatever
// page it runs in, is never answered. Each part of the worker registers the
// requests it answers with on(type, handler); the pages send
// chrome.runtime.sendMessage({type, ...}) and get {ok: true, value} or
// {ok: false, error}. Pages that show live state also open a Port named
// UI_PORT and are sent {type: 'changed', topic} whenever a part calls
// publish(topic), so that they ask again.
//
// This is the one door through which the user, not an agent, changes what
// agents may do (site access, consent, context exclusion): nothing here is
// reachable from the native link or from a page.

import { UI_PORT } from '../lib/protocol.js';

export class UiApi {
  /**
   * @param {object} o
   * @param {typeof chrome} o.chrome
   * @param {{warn: Function}} o.log
   */
  constructor({ chrome, log }) {
    this.chrome = chrome;
    this.log = log;
    /** @type {Map<string, (msg: object, sender: object) => any>} */
    this.handlers = new Map();
    /** @type {Set<object>} the UI pages' Ports */
    this.ports = new Set();
  }

  /** Answers requests of type with handler(msg, sender); its value (or promise) is the answer. */
  on(type, handler) {
    if (this.handlers.has(type)) throw new Error(`uiapi: ${type} is answered twice`);
    this.handlers.set(type, handler);
  }

  /** Whether sender is a page of this extension (not a content script). */
  fromOwnPage(sender) {
    if (!sender || sender.id !== this.chrome.runtime.id) return false;
    // A content script's sender.url is its page's; an extension page's
    // (popup, side panel, a tab or window showing it) is ours. Our pages
    // are not web-accessible, so no site can frame them.
    const base = this.chrome.runtime.getURL('');
    return typeof sender.url === 'string' && sender.url.startsWith(base);
  }

  /** Registers the listeners; call once at start. */
  listen() {
    this.chrome.runtime.onMessage.addListener((msg, sender, sendResponse) => this.onMessage(msg, sender, sendResponse));
    this.chrome.runtime.onConnect.addListener((port) => {
      if (port.name !== UI_PORT) return;
      if (!this.fromOwnPage(port.sender)) {
        port.disconnect();
        return;
      }
      this.ports.add(port);
      port.onDisconnect.addListener(() => this.ports.delete(port));
    });
  }

  onMessage(msg, sender, sendResponse) {
    if (!msg || typeof msg.type !== 'string') return false;
    const handler = this.handlers.get(msg.type);
    if (!handler) return false;
    if (!this.fromOwnPage(sender)) {
      this.log.warn(`refused ${msg.type} from ${sender && sender.url}: only the extension's own pages may ask`);
      sendResponse({ ok: false, error: 'only the extension\'s own pages may ask this' });
      return false;
    }
    Promise.resolve()
      .then(() => handler(msg, sender))
      .then(
        (value) => sendResponse({ ok: true, value }),
        (e) => sendResponse({ ok: false, error: String(e && e.message ? e.message : e) }),
      );
    return true; // the answer comes later
  }

  /** Tells every open UI page that topic changed. */
  publish(topic) {
    for (const port of this.ports) {
      try {
        port.postMessage({ type: 'changed', topic });
      } catch {
        this.ports.delete(port);
      }
    }
  }
}
