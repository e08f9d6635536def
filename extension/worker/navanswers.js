// The answer of a call that navigated its frame (a declarative form that
// submits to another document): Chromium answers such a call, once the new
// document is parsed, with that document's application/ld+json data (an
// array of JSON values, [] when it has none). The frame says "navigated"
// as the form submits; the worker holds that answer until the frame's next
// document has loaded (its relay's "loaded", answering whenLoaded), puts
// the document's data in the answer's output beside the error (the shim
// tells the agent where the tab went as well), and sends it after the
// registry's changes, so that the new document's tools are known when the
// answer arrives.
//
// A new document of a site the user has not allowed gives no data; nor
// does one whose relay never connects (a subframe without tools, a page
// the extension does not run in: the tab's "complete" says so for a top
// frame, NAV_WAIT for any other), nor a tab that closes.

import { PageLinkType as L } from '../lib/protocol.js';
import { frameKey } from '../lib/registry.js';
import { postToFrame } from './frames.js';

/** The longest a navigated answer waits for the frame's next document (a hang guard). */
export const NAV_WAIT = 5000;
/**
 * How long after its tab's "complete" a top frame's answer still waits for
 * the new document's relay: the two reach the worker by different ways,
 * and a small page's "complete" may come first.
 */
export const COMPLETE_GRACE = 1000;

export class NavAnswers {
  /**
   * @param {object} o
   * @param {typeof chrome} o.chrome
   * @param {import('./frames.js').Frames} o.frames
   * @param {import('../lib/registry.js').Registry} o.registry
   * @param {{setTimeout: Function, clearTimeout: Function}} o.clock
   * @param {(out: object) => void} o.reply sends an answer to the host
   * @param {() => void} o.flush sends the registry's changes now
   */
  constructor({ chrome, frames, registry, clock, reply, flush }) {
    Object.assign(this, { chrome, frames, registry, clock, reply, flush });
    /** @type {Map<string, {out: object, old: object, asked: object | null, timer: unknown}[]>} */
    this.held = new Map();
    chrome.tabs.onUpdated.addListener((tabId, change) => {
      if (change.status === 'complete') this.tabComplete(tabId);
    });
  }

  /** Holds out, the navigated answer of a call that old (a frame's Conn) ran. */
  hold(old, out) {
    const key = frameKey(old.tabId, old.frameId);
    const entry = { out, old, asked: null, timer: null };
    entry.timer = this.clock.setTimeout(() => this.release(key, entry), NAV_WAIT);
    const list = this.held.get(key);
    if (list) list.push(entry);
    else this.held.set(key, [entry]);
    const now = this.frames.get(old.tabId, old.frameId);
    if (now && now !== old) this.ask(key, entry, now);
  }

  /** A relay connected: the next document of a frame whose answer is held. */
  connected(conn) {
    const key = frameKey(conn.tabId, conn.frameId);
    for (const entry of this.held.get(key) || []) {
      if (entry.old !== conn && !entry.asked) this.ask(key, entry, conn);
    }
  }

  ask(key, entry, conn) {
    entry.asked = conn;
    if (!this.registry.allows(conn.origin)) {
      this.release(key, entry);
      return;
    }
    if (!postToFrame(conn, { type: L.whenLoaded, id: entry.out.id, jsonLd: true })) this.release(key, entry);
  }

  /** The relay's loaded message: the document that conn holds is parsed. */
  loaded(conn, m) {
    const key = frameKey(conn.tabId, conn.frameId);
    for (const entry of [...(this.held.get(key) || [])]) {
      if (entry.asked !== conn || entry.out.id !== m.id) continue;
      if (Array.isArray(m.jsonLd)) entry.out.output = m.jsonLd;
      this.release(key, entry);
    }
  }

  /** A frame's relay went away: a held answer that waited for it goes without data. */
  gone(conn) {
    const key = frameKey(conn.tabId, conn.frameId);
    for (const entry of [...(this.held.get(key) || [])]) if (entry.asked === conn) this.release(key, entry);
  }

  /**
   * The tab loaded: a top frame whose next document has no relay (a site
   * the extension does not run in) gives no data, once COMPLETE_GRACE has
   * passed without one.
   */
  tabComplete(tabId) {
    const key = frameKey(tabId, 0);
    for (const entry of this.held.get(key) || []) {
      if (entry.asked || entry.completed) continue;
      entry.completed = true;
      this.clock.clearTimeout(entry.timer);
      entry.timer = this.clock.setTimeout(() => {
        if (!entry.asked) this.release(key, entry);
      }, COMPLETE_GRACE);
    }
  }

  /** The tab closed: its held answers go. */
  tabClosed(tabId) {
    for (const [key, list] of [...this.held]) {
      for (const entry of [...list]) if (entry.old.tabId === tabId) this.release(key, entry);
    }
  }

  release(key, entry) {
    const list = this.held.get(key);
    const i = list ? list.indexOf(entry) : -1;
    if (i < 0) return;
    list.splice(i, 1);
    if (!list.length) this.held.delete(key);
    this.clock.clearTimeout(entry.timer);
    this.flush();
    this.reply(entry.out);
  }
}
