// The frames that run the bridge's relay (content/isolated/): each connects
// with a long-lived Port named PORT_NAME (lib/protocol.js), keyed by tab and frame id. Frames
// checks who connects, keeps one connection per frame (a new document in the
// frame replaces the old one), records what a frame reports (tools,
// providers, context samples) in the registry, and tells the other parts,
// through hooks, about answers to calls, replaced and gone frames.

import { webOrigin } from '../lib/allowlist.js';
import { MAX_RESULT } from '../lib/chunks.js';
import { normalizeFrameContext, normalizeProviderDefs } from '../lib/contexts.js';
import { createLink } from '../lib/link.js';
import { PageLinkType as L, PORT_NAME, normalizeTools } from '../lib/protocol.js';
import { frameKey } from '../lib/registry.js';

// After a cold start, wait this long for the relays to connect again before
// the first state (at most SETTLE_MAX), so that agents do not see every tool
// vanish and come back.
export const SETTLE_QUIET = 150;
export const SETTLE_MAX = 1000;
const SETTLE_POLL = 25;

/**
 * One frame's connection.
 * @typedef {{port: chrome.runtime.Port, link: ReturnType<typeof createLink>, tabId: number, frameId: number, origin: string, contextOn: boolean, dialog?: {kind: string, text: string} | null}} Conn
 */

/**
 * Posts msg to a frame at once (even while the router holds the calls of a
 * host batch for it); false when its Port is gone.
 */
export function postToFrame(conn, msg) {
  return conn.link.send(msg, { now: true });
}

/**
 * The link over a frame's Port (lib/link.js): the worker's messages go
 * whole (calls and cancels of one host batch as one batch, between
 * hold() and release()); a frame's batch of answers is taken apart and its
 * chunks (a result over 32 MiB of JSON) joined.
 */
function frameLink(port, warn) {
  return createLink((m) => {
    try {
      port.postMessage(m);
      return true;
    } catch {
      return false;
    }
  }, { joinMax: MAX_RESULT + (1 << 20), problem: warn });
}

/** Frames holds the connections of the frames, by tab and frame id. */
export class Frames {
  /**
   * @param {object} o
   * @param {typeof chrome} o.chrome
   * @param {import('../lib/registry.js').Registry} o.registry
   * @param {{now: () => number, setTimeout: Function}} o.clock
   * @param {{warn: Function}} o.log
   * @param {object} o.on hooks, each given the Conn:
   *   tabSeen(tab) a frame's tab, as the sender names it;
   *   replaced(old) a new document took the frame's place;
   *   connected(conn); ended(conn) its Port closed;
   *   gone(conn) its Port closed (after the registry forgot the frame);
   *   sampled(conn, id) a context sample arrived, answering sample id;
   *   pushed(conn) the frame sent a sample of its own (after input, or a change);
   *   tools(conn) its tools message was taken in;
   *   answer(conn, m) a call's result or error; loaded(conn, m) the relay's loaded;
   *   changed() the registry changed.
   */
  constructor({ chrome, registry, clock, log, on }) {
    Object.assign(this, { chrome, registry, clock, log, on });
    this.startedAt = clock.now();
    this.lastConnect = 0;
    /** @type {Map<string, Conn>} */
    this.conns = new Map();
  }

  /** Listens for relays connecting. */
  listen() {
    this.chrome.runtime.onConnect.addListener((port) => this.connect(port));
  }

  /** The connection of a frame, or undefined. */
  get(tabId, frameId) {
    return this.conns.get(frameKey(tabId, frameId));
  }

  /** The connections of one tab, or of every tab when tabId is undefined. */
  inTab(tabId) {
    return [...this.conns.values()].filter((c) => tabId === undefined || c.tabId === tabId);
  }

  /**
   * The dialog (alert, confirm or prompt: {kind, text}) that blocks conn's
   * frame, or null: one of its own, or of a same-origin frame of its tab
   * (which shares its thread). Cross-origin frames usually run on other
   * threads; a dialog of theirs is not counted.
   */
  dialogFor(conn) {
    if (conn.dialog) return conn.dialog;
    for (const c of this.conns.values()) {
      if (c.tabId === conn.tabId && c.dialog && c.origin === conn.origin) return c.dialog;
    }
    return null;
  }

  /** Forgets the frames of a closed tab; returns their connections. */
  dropTab(tabId) {
    const out = [];
    for (const [key, c] of this.conns) {
      if (c.tabId !== tabId) continue;
      this.conns.delete(key);
      out.push(c);
    }
    return out;
  }

  /**
   * Resolves once the frames have had time to come back after a start: no
   * frame connected for SETTLE_QUIET ms, or SETTLE_MAX ms since the start.
   */
  settled() {
    return new Promise((resolve) => {
      const check = () => {
        const now = this.clock.now();
        const quiet = now - this.lastConnect >= SETTLE_QUIET && now - this.startedAt >= SETTLE_QUIET;
        if (quiet || now - this.startedAt >= SETTLE_MAX) resolve();
        else this.clock.setTimeout(check, SETTLE_POLL);
      };
      check();
    });
  }

  connect(port) {
    if (port.name !== PORT_NAME) return;
    const s = port.sender || {};
    if (s.id !== this.chrome.runtime.id || !s.tab || !Number.isSafeInteger(s.tab.id) || s.tab.id < 0 || !Number.isSafeInteger(s.frameId)) {
      port.disconnect();
      return;
    }
    const tabId = s.tab.id;
    const frameId = s.frameId;
    const key = frameKey(tabId, frameId);
    this.lastConnect = this.clock.now();
    this.on.tabSeen(s.tab);
    /** @type {Conn} */
    const origin = s.origin || webOrigin(s.url) || 'null';
    const link = frameLink(port, (why) => this.log.warn(`tab ${tabId} frame ${frameId} (${origin}): ${why}`));
    const conn = { port, link, tabId, frameId, origin, contextOn: false };
    const old = this.conns.get(key);
    if (old) {
      // The frame's previous document: it navigated away.
      this.on.replaced(old);
      try {
        old.port.disconnect();
      } catch {
        // gone already
      }
    }
    this.conns.set(key, conn);
    // A new document: nothing of the old one's tools, providers or context stays.
    this.registry.removeFrame(tabId, frameId);
    this.registry.setFrame(tabId, frameId, conn.origin, []);
    link.onMessage((m, inBatch) => this.receive(conn, m, inBatch));
    port.onMessage.addListener((m) => {
      if (this.get(tabId, frameId) === conn) link.receive(m);
    });
    port.onDisconnect.addListener(() => this.disconnected(conn));
    this.on.connected(conn);
  }

  /** One message of a frame (inBatch: it came in a batch, where only answers come). */
  receive(conn, m, inBatch = false) {
    if (!m || typeof m !== 'object' || this.get(conn.tabId, conn.frameId) !== conn) return;
    if (inBatch && m.type !== L.result && m.type !== L.error) return;
    const { registry } = this;
    switch (m.type) {
      case L.tools: {
        const normalized = normalizeTools(m.tools);
        // Bad tools and those past the caps are left out; the registry keeps why, for the panel.
        const problems = registry.setFrame(conn.tabId, conn.frameId, conn.origin, normalized.tools, normalized.problems);
        if (problems.length) this.log.warn(`tab ${conn.tabId} frame ${conn.frameId} (${conn.origin}): left out ${problems.join('; ')}`);
        this.on.changed();
        if (this.on.tools) this.on.tools(conn);
        // The frame sends its next tools message once this one is taken in.
        postToFrame(conn, { type: L.toolsTaken });
        break;
      }
      case L.providers:
        registry.setFrameProviders(conn.tabId, conn.frameId, normalizeProviderDefs(m.providers));
        this.on.changed();
        break;
      case L.context:
        registry.setFrameContext(conn.tabId, conn.frameId, normalizeFrameContext(m, conn.frameId === 0), this.clock.now());
        if (typeof m.id === 'string') this.on.sampled(conn, m.id);
        else if (this.on.pushed) this.on.pushed(conn);
        this.on.changed();
        break;
      case L.result:
      case L.error:
        this.on.answer(conn, m);
        break;
      case L.loaded:
        if (this.on.loaded) this.on.loaded(conn, m);
        break;
      case L.dialog:
        // An alert, confirm or prompt of the frame's is up (or closed): calls
        // to it, and to same-origin frames of its tab, are answered for it.
        conn.dialog = m.open === true ? { kind: String(m.kind), text: String(m.text ?? '') } : null;
        if (!conn.dialog && this.on.dialogClosed) this.on.dialogClosed(conn);
        break;
      case L.userInput:
        if (conn.frameId === 0 && this.on.used) this.on.used(conn.tabId);
        break;
      case L.bridgeAt:
        // Whether the bridge runs in documents of an origin: its content
        // scripts run on the allowed sites only (worker/sites.js).
        postToFrame(conn, { type: L.bridgeAt, id: m.id, yes: typeof m.origin === 'string' && registry.allows(webOrigin(m.origin)) });
        break;
    }
  }

  disconnected(conn) {
    void this.chrome.runtime.lastError;
    this.on.ended(conn);
    const key = frameKey(conn.tabId, conn.frameId);
    if (this.conns.get(key) === conn) {
      this.conns.delete(key);
      this.registry.removeFrame(conn.tabId, conn.frameId);
      this.on.changed();
    }
    this.on.gone(conn);
  }
}
