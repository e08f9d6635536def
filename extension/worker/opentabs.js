// Tabs that were open before their site was allowed, or before the
// extension was installed, run none of its content scripts (the browser
// injects registered scripts into documents that start after the
// registration). Where the browser has its own WebMCP (native mode: the
// isolated world sees document.modelContext), the isolated-world relay
// needs nothing at document start: it lists the document's tools from the
// isolated world (content/isolated/browserwebmcp.js). So such a document gets
// generated/isolated-world.js now (chrome.scripting.executeScript), without the
// page world's script: no polyfill is late, and the page hears nothing
// (the relay hands no channel to a page world it does not share one with).
// Where the browser has no WebMCP of its own, the polyfill must be in the
// page before its scripts run: those tabs need to load again, which the
// caller offers or does (worker/panel.js).
//
// Each frame is first probed in the isolated world (invisible to the page):
// does it run the relay already (content/isolated/index.js sets RELAY_FLAG),
// is the browser's WebMCP there, and what is its origin. Only documents of
// allowed origins without the relay, with the browser's WebMCP, get the
// script, by their documentId (a document that replaced the probed one
// meanwhile has the registered scripts).

import { webOrigin } from '../lib/allowlist.js';
import { LATE_FLAG, RELAY_FLAG } from '../lib/protocol.js';

/**
 * The probe, run in each frame's isolated world (serialised by
 * executeScript: it uses nothing from outside). Returns whether the relay
 * runs there, whether the browser's own WebMCP is there, and the frame's
 * origin; marks a document that will get the relay late.
 */
export function probeFrame(relayFlag, lateFlag) {
  const has = globalThis[relayFlag] === true;
  let native = false;
  try {
    // The isolated world sees only the browser's own object, never one a page script set.
    const mc = document.modelContext;
    const proto = mc && typeof mc === 'object' ? Object.getPrototypeOf(mc) : null;
    native = !!proto && typeof proto.getTools === 'function' && typeof proto.executeTool === 'function' && typeof proto.registerTool === 'function';
  } catch {
    native = false;
  }
  if (!has && native) globalThis[lateFlag] = true;
  return { has, native, origin: location.origin };
}

/** OpenTabs brings the bridge to open tabs of allowed sites that do not run it. */
export class OpenTabs {
  /**
   * @param {object} o
   * @param {typeof chrome} o.chrome
   * @param {(origin: string) => boolean} o.allows whether an origin is allowed now
   * @param {{warn: Function}} o.log
   */
  constructor({ chrome, allows, log }) {
    Object.assign(this, { chrome, allows, log });
  }

  /**
   * Brings the bridge to the open tabs of origin (every allowed site without
   * it): resolves to {joined, needReload}, the ids of the tabs that got
   * it now and of those that get it only when they load again (no WebMCP
   * of the browser's own); null where the browser cannot inject
   * (no scripting.executeScript).
   */
  async join({ origin } = {}) {
    const out = { joined: [], needReload: [] };
    const { scripting, tabs } = this.chrome;
    if (!scripting || typeof scripting.executeScript !== 'function') return null;
    let list = [];
    try {
      list = await tabs.query({});
    } catch (e) {
      this.log.warn(`could not list the open tabs to bring them the bridge: ${e.message}`);
      return out;
    }
    for (const t of list) {
      // The browser names the URL of tabs of granted sites only.
      const o = typeof t.url === 'string' ? webOrigin(t.url) : '';
      if (o === '' || t.discarded || (origin && o !== origin) || !this.allows(o)) continue;
      const got = await this.joinTab(t.id);
      if (got) out[got].push(t.id);
    }
    return out;
  }

  /** Brings the bridge to one tab: 'joined', 'needReload', or null (it has it, or cannot be reached). */
  async joinTab(tabId) {
    const { scripting } = this.chrome;
    let probed;
    try {
      probed = await scripting.executeScript({
        target: { tabId, allFrames: true },
        world: 'ISOLATED',
        func: probeFrame,
        args: [RELAY_FLAG, LATE_FLAG],
      });
    } catch {
      return null; // an error page, a tab that went meanwhile
    }
    const frames = (probed || []).filter((r) => r && r.result && typeof r.result === 'object');
    const top = frames.find((r) => r.frameId === 0);
    const lacking = frames.filter((r) => !r.result.has && this.allows(webOrigin(r.result.origin)));
    if (lacking.length === 0) return null;
    if (!top || !top.result.native) return 'needReload';
    const native = lacking.filter((r) => r.result.native);
    const target = native.every((r) => typeof r.documentId === 'string')
      ? { tabId, documentIds: native.map((r) => r.documentId) }
      : { tabId, frameIds: native.map((r) => r.frameId) };
    try {
      await scripting.executeScript({ target, world: 'ISOLATED', files: ['generated/isolated-world.js'] });
    } catch (e) {
      this.log.warn(`could not bring the bridge to tab ${tabId}: ${e.message}`);
      return 'needReload';
    }
    return 'joined';
  }
}
