// The service worker, wired: startWorker builds the parts, registers every
// listener at once (so that events wake the worker), and starts: storage
// closed to content scripts, the allow list, pins and profile instance id
// from storage, the browser's name, the
// tabs that exist, then the host link. Everything it takes from the browser
// comes in env, so that tests run it with a fake chrome and clock.
//
//   hostlink.js  the native link: reconnects, chunks, hello, state, changes
//   frames.js    the relays' Ports, and what the frames report
//   routing.js   calls to frames and their answers, cancels
//   contextsampler.js  contextOn and sample requests to frames
//   contexttools.js    page tools sampled as context: the person's choices, the calls
//   requests.js  sampleContext, pin, unpin
//   pins.js      the pin store
//   tabs.js      tabs, the focused window, the allow list applied
//   sites.js     site access: the browser's grants, blocks, the content scripts' registration
//   uiapi.js     the extension's own pages' requests, and change notices to them
//   agents.js    the shims connected to the host and the agents they serve
//   opener.js    openPage, focusTab, closeTab: tabs agents bring into reach
//   consent.js   ask-before-acting: site settings, the consent window's queue
//   activity.js  the activity log, and the calls under way in each tab
//   badge.js     the toolbar badge per tab; indicator.js the in-page indicator
//   panel.js     the panel's requests: site access, context exclusion, pins; its change notices
//   inspect.js   the inspector's requests: a tab's tools as agents get them, and the user's own runs

import { EXCLUSIONS_KEY } from '../lib/exclusions.js';
import { PINS_KEY } from '../lib/pinlist.js';
import { T, browserInfo } from '../lib/protocol.js';
import { storageAccessGap } from '../lib/compat.js';
import { Registry } from '../lib/registry.js';
import { PRINTS_KEY, ToolPrints } from '../lib/toolprints.js';
import { Activity } from './activity.js';
import { Agents } from './agents.js';
import { Badge } from './badge.js';
import { CALL_PATH_KEY, CallPaths } from './callpath.js';
import { Consent } from './consent.js';
import { ContextSampler } from './contextsampler.js';
import { CONTEXT_TOOLS_KEY, ContextTools } from './contexttools.js';
import { Frames } from './frames.js';
import { NavAnswers } from './navanswers.js';
import { HostLink } from './hostlink.js';
import { Indicator } from './indicator.js';
import { Inspector } from './inspect.js';
import { Opener } from './opener.js';
import { OpenTabs } from './opentabs.js';
import { Panel, shareablePin } from './panel.js';
import { PinStore } from './pins.js';
import { Requests } from './requests.js';
import { Sites } from './sites.js';
import { CallRouter } from './routing.js';
import { Tabs } from './tabs.js';
import { UiApi } from './uiapi.js';

/** The key of the profile's random instance id in chrome.storage.local. */
export const INSTANCE_KEY = 'instance';

/** The clock of the real worker. */
export const realClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (t) => clearTimeout(t),
};

/** The log of the real worker: the console, with a prefix. */
export const consoleLog = {
  info: (...args) => console.info('[webmcp bridge]', ...args),
  warn: (...args) => console.warn('[webmcp bridge]', ...args),
};

/** The extension's version, from its manifest ('' where that cannot be read). */
export function extensionVersion(chrome) {
  try {
    return String(chrome.runtime.getManifest().version || '');
  } catch {
    return '';
  }
}

/**
 * Closes chrome.storage.local and chrome.storage.session to content
 * scripts (TRUSTED_CONTEXTS: the worker and the extension's own pages
 * only). storage.local holds the site blocks (the allowed sites are the
 * browser's host permissions: worker/sites.js), the site settings and the
 * exclusions, which the worker applies as they change; content scripts
 * run in the web page's renderer process, and a renderer a page took over
 * must not be able to write them. No content script uses storage. A
 * browser without setAccessLevel for an area (Firefox has none: it keeps
 * storage.session from content scripts, not storage.local; see
 * lib/compat.js), or one that refuses it, gets a warning; the worker goes
 * on.
 */
export async function restrictStorage(chrome, log) {
  for (const name of ['local', 'session']) {
    const area = chrome.storage && chrome.storage[name];
    if (!area || typeof area.setAccessLevel !== 'function') {
      const gap = storageAccessGap(chrome, name);
      if (gap) log.warn(gap);
      continue;
    }
    try {
      await area.setAccessLevel({ accessLevel: 'TRUSTED_CONTEXTS' });
    } catch (e) {
      log.warn(`could not close chrome.storage.${name} to content scripts: ${e && e.message ? e.message : e}`);
    }
  }
}

/** Names the browser for hello from navigator.userAgentData. */
export async function detectBrowser(navigator) {
  const uad = navigator.userAgentData;
  let fullVersionList;
  try {
    if (uad && uad.getHighEntropyValues) ({ fullVersionList } = await uad.getHighEntropyValues(['fullVersionList']));
  } catch {
    // brands alone will do
  }
  return browserInfo({ fullVersionList, brands: uad && uad.brands, userAgent: navigator.userAgent });
}

/**
 * Starts the worker.
 * @param {object} env
 * @param {typeof chrome} env.chrome
 * @param {Navigator} env.navigator
 * @param {{randomUUID: () => string}} env.crypto
 * @param {typeof realClock} [env.clock]
 * @param {typeof consoleLog} [env.log]
 * @returns the parts, and `started`, a promise that resolves once the
 *   host link was first opened
 */
export function startWorker({ chrome, navigator, crypto, clock = realClock, log = consoleLog }) {
  const prints = new ToolPrints();
  const registry = new Registry({ prints });
  const link = new HostLink({
    chrome, clock, log,
    settled: () => frames.settled(),
    state: () => {
      queueMicrotask(() => panel.notify('host')); // the link is ready once the state went out
      return registry.snapshot(pins.shared());
    },
    changes: () => registry.changes(),
    onMessage: (m) => {
      if (m.type === T.call || m.type === T.request) agents.noteCall(m.id, m.agent);
      if (m.type === T.call) router.call(m);
      else if (m.type === T.request) requests.handle(m);
      else if (m.type === T.sessions) agents.apply(m.sessions);
      else if (m.type === T.cancel && !requests.cancel(m.id)) router.cancel(m.id);
    },
    batches: { hold: () => router.hold(), release: () => router.release() },
    onLost: () => {
      router.hostLost();
      requests.clear();
      agents.clear();
      panel.notify('host');
    },
  });
  const changed = () => {
    link.schedule();
    badge.schedule();
    panel.notify('tab');
  };
  const frames = new Frames({
    chrome, registry, clock, log,
    on: {
      tabSeen: (tab) => tabs.seen(tab),
      dialogClosed: (conn) => router.dialogClosed(conn.tabId),
      replaced: (old) => {
        router.frameReplaced(old);
        sampler.endFor(old);
      },
      connected: (conn) => {
        if (conn.frameId === 0) opener.topFrame(conn.tabId, conn.origin);
        sampler.updateOn(conn);
        changed();
        navAnswers.connected(conn);
        opener.connected(conn);
      },
      ended: (conn) => sampler.endFor(conn),
      gone: (conn) => {
        router.frameGone(conn);
        navAnswers.gone(conn);
        opener.frameGone(conn);
      },
      loaded: (conn, m) => {
        navAnswers.loaded(conn, m);
        opener.loaded(conn, m);
      },
      sampled: (conn, id) => sampler.sampled(conn, id),
      pushed: (conn) => contextTools.noticed(conn.tabId),
      tools: (conn) => sampler.updateAllOn(conn.tabId),
      answer: (conn, m) => router.answer(conn, m),
      used: (tabId) => opener.used(tabId),
      changed,
    },
  });
  // Ask-before-acting and agent activity (ui and agents are built below; they are used only later).
  const publish = (topic) => ui.publish(topic);
  const callAgents = { nameFor: (id) => agents.nameFor(id) };
  const consent = new Consent({ chrome, clock, log, publish, prints, accepted: () => changed() });
  const badge = new Badge({ chrome, registry, clock, log });
  const indicator = new Indicator({ frames, registry, clock, settingsFor: (origin) => consent.settingsFor(origin) });
  const activity = new Activity({
    chrome, clock, log, publish, agents: callAgents,
    on: {
      live: (tabId, calls) => {
        badge.setCalls(tabId, calls);
        indicator.update(tabId, calls);
      },
    },
  });
  const navAnswers = new NavAnswers({
    chrome, frames, registry, clock, flush: () => link.flush(),
    reply: (out) => {
      link.send(out);
      activity.end(out.id, out);
    },
  });
  const callPaths = new CallPaths({ chrome });
  const router = new CallRouter({
    chrome, registry, frames, send: (m) => link.send(m), sendAnswer: (m, more) => link.answer(m, more), log, consent, activity, agents: callAgents, navAnswers, clock, callPaths,
  });
  const contextTools = new ContextTools({
    chrome, registry, router, clock, log, changed: () => changed(),
    choicesChanged: (tabId) => sampler.updateAllOn(tabId),
  });
  registry.contextTools = contextTools;
  const sampler = new ContextSampler({ registry, frames, clock, flush: () => link.flush(), tools: contextTools });
  const pins = new PinStore({
    chrome,
    announce: (list) => link.sendIfReady({ type: T.pins, pins: list }),
    shareable: shareablePin(registry),
    changed: () => panel.notify('pins'),
  });
  const opener = new Opener({
    chrome, registry, clock, log,
    agents: { forCall: (id) => agents.forCall(id), nameFor: (id) => agents.nameFor(id) },
    askOpen: (q) => consent.askOpen(q),
    frames,
    allowSite: (origin) => sites.allow(origin),
    dropAsk: (id) => consent.settle(id, { allow: false, how: 'cancelled' }),
  });
  const requests = new Requests({
    registry, sampler, pins, send: (m) => link.send(m), clock, log, opener, activity, contextTools,
    sites: { access: () => sites.access() },
  });
  const tabs = new Tabs({
    chrome, registry, log,
    on: {
      closed: (tabId) => {
        for (const c of frames.dropTab(tabId)) sampler.endFor(c);
        router.tabClosed(tabId);
        navAnswers.tabClosed(tabId);
      },
      access: (tabId) => sampler.updateAllOn(tabId),
      changed,
      sites: () => {
        pins.reshare();
        panel.notify('sites');
      },
    },
  });

  const sites = new Sites({
    chrome, log,
    apply: (list) => {
      tabs.setAllowList(list);
      changed();
    },
  });

  const ui = new UiApi({ chrome, log });
  const agents = new Agents({ changed: () => ui.publish('agents') });
  const openTabs = new OpenTabs({ chrome, log, allows: (o) => sites.allows(o) });
  const panel = new Panel({
    chrome, registry, tabs, sites, sampler, pins, ui, clock, changed, openTabs,
    connected: () => link.ready,
    agents: () => agents.list(),
  });

  const inspector = new Inspector({ registry, router, consent, clock });

  // The known tool definitions are stored a moment after they change.
  let printsTimer = 0;
  prints.onChange = () => {
    if (printsTimer) return;
    printsTimer = clock.setTimeout(() => {
      printsTimer = 0;
      prints.dirty = false;
      chrome.storage.local.set({ [PRINTS_KEY]: prints.toJSON() }).catch((e) => log.warn(`could not store the known tool definitions: ${e.message}`));
    }, 500);
  };

  frames.listen();
  tabs.listen();
  sites.listen();
  ui.listen();
  consent.listen(ui);
  callPaths.listen(ui);
  activity.listen(ui);
  badge.listen();
  panel.listen();
  inspector.listen(ui);
  contextTools.listen(ui);
  pins.listen();
  // Browser start and install only need to wake the worker, which then opens the host link.
  chrome.runtime.onStartup.addListener(() => {});
  chrome.runtime.onInstalled.addListener(() => {});

  async function start() {
    await restrictStorage(chrome, log);
    const stored = await chrome.storage.local.get([INSTANCE_KEY, PINS_KEY, EXCLUSIONS_KEY, PRINTS_KEY, CALL_PATH_KEY, CONTEXT_TOOLS_KEY]);
    prints.load(stored[PRINTS_KEY]); // tools seen before it are compared now
    contextTools.load(stored[CONTEXT_TOOLS_KEY]);
    callPaths.load(stored[CALL_PATH_KEY]);
    tabs.setExclusions(stored[EXCLUSIONS_KEY]);
    // Site access, and the content scripts registered for it (also after
    // an update, and after the browser or the worker restarted).
    await sites.load().catch((e) => log.warn(`could not read site access or register the content scripts: ${e && e.message ? e.message : e}`));
    // Tabs of allowed sites open since before the install (or the site's
    // grant) get the relay where the browser has its own WebMCP; a worker
    // that only restarted finds it in every tab already.
    openTabs.join().catch((e) => log.warn(`could not bring the bridge to the open tabs: ${e.message}`));
    pins.load(stored[PINS_KEY]); // no request comes before the host link opens, below
    await Promise.all([consent.loadFromStorage(), activity.loadFromStorage()]);
    let instance = stored[INSTANCE_KEY];
    if (typeof instance !== 'string' || instance === '') {
      instance = crypto.randomUUID();
      await chrome.storage.local.set({ [INSTANCE_KEY]: instance });
    }
    const browser = await detectBrowser(navigator);
    link.identity = { ...browser, instance, extensionId: chrome.runtime.id, extensionVersion: extensionVersion(chrome) };
    const [list, win] = await Promise.all([
      chrome.tabs.query({}),
      chrome.windows.getLastFocused().catch(() => null),
    ]);
    tabs.adopt(list, win);
    link.connect();
  }

  const started = start().catch((e) => {
    log.warn(`start-up failed: ${e && e.stack ? e.stack : e}`);
    tabs.giveUpStart();
    link.connect();
  });
  return { registry, link, frames, router, callPaths, sampler, contextTools, pins, requests, tabs, sites, ui, agents, opener, panel, inspector, consent, activity, badge, indicator, openTabs, started };
}
