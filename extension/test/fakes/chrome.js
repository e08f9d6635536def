import { readFileSync } from 'node:fs';

// A small fake of the chrome.* API the extension uses, for tests in Node:
// events, Ports (runtime.connectNative, runtime.onConnect, runtime.connect),
// tabs, windows (with create, update, remove for popups), action (the
// badge), storage.local and storage.session (each recording its access
// level), permissions (the host permissions granted: the manifest's
// required ones at first; request grants unless told otherwise, remove
// refuses the required ones as the browser does) and scripting (the
// registered content scripts). A FakePort records what the code under
// test posts on it (posted) and lets the test play the other end
// (deliver, close).

/** An event: addListener, and emit for the test. */
export class FakeEvent {
  constructor() {
    this.listeners = [];
  }

  addListener(fn) {
    this.listeners.push(fn);
  }

  removeListener(fn) {
    this.listeners = this.listeners.filter((f) => f !== fn);
  }

  hasListener(fn) {
    return this.listeners.includes(fn);
  }

  emit(...args) {
    for (const fn of [...this.listeners]) fn(...args);
  }
}

/** One end of a Port, as the code under test holds it. */
export class FakePort {
  constructor(runtime, name, sender) {
    this.runtime = runtime;
    this.name = name;
    this.sender = sender;
    this.onMessage = new FakeEvent();
    this.onDisconnect = new FakeEvent();
    this.posted = [];
    this.closed = false;
    this.closedByCode = false;
  }

  postMessage(m) {
    if (this.closed) throw new Error('Attempting to use a disconnected port object');
    this.posted.push(JSON.parse(JSON.stringify(m)));
  }

  /** The code under test closes the Port (its own onDisconnect does not fire). */
  disconnect() {
    this.closed = true;
    this.closedByCode = true;
  }

  /** The other end sends m. */
  deliver(m) {
    if (!this.closed) this.onMessage.emit(JSON.parse(JSON.stringify(m)));
  }

  /** The other end goes away; lastError is set while the listeners run. */
  close(lastError) {
    if (this.closed) return;
    this.closed = true;
    this.runtime.lastError = lastError ? { message: lastError } : undefined;
    this.onDisconnect.emit(this);
    this.runtime.lastError = undefined;
  }

  /** The messages posted since last asked. */
  take() {
    const out = this.posted;
    this.posted = [];
    return out;
  }

  /** The messages posted of one type. */
  ofType(type) {
    return this.posted.filter((m) => m.type === type);
  }
}

/** The manifest's required host permissions: the loopback hosts. */
export const REQUIRED_ORIGINS = Object.freeze(JSON.parse(readFileSync(new URL('../../manifest.json', import.meta.url), 'utf8')).host_permissions);

/** Whether the granted match pattern g covers mp, as far as the fake knows patterns: the same, or the same without a port. */
function covers(g, mp) {
  return g === mp || g === mp.replace(/^([^:]+:\/\/[^/]*?)(:\d+|:\*)\//, '$1/');
}

/**
 * Makes a fake chrome. opts: id (the extension id), tabs (the open tabs),
 * focusedWindow (a window id), storage (what storage.local holds), origins
 * (the host permissions granted, beyond the required ones).
 */
export function fakeChrome({ id = 'ofcjadafodbdmmpbkmmngnegabkmkjai', tabs = [], focusedWindow = 1, storage = {}, origins = [] } = {}) {
  const granted = new Set([...REQUIRED_ORIGINS, ...origins]);
  const scripts = new Map();
  const openTabs = new Map(tabs.map((t) => [t.id, { ...t }]));
  const store = new Map(Object.entries(JSON.parse(JSON.stringify(storage))));
  const sessionStore = new Map();
  let nextWindow = 100;
  /** The windows that had the focus, the latest last (a window that closed leaves it). */
  const focusOrder = focusedWindow === null ? [] : [focusedWindow];
  const windowType = (wid) => (chrome.windows.created.has(wid) ? chrome.windows.created.get(wid).type : 'normal');
  const chrome = {
    runtime: {
      id,
      lastError: undefined,
      onConnect: new FakeEvent(),
      onMessage: new FakeEvent(),
      onStartup: new FakeEvent(),
      getURL: (path) => `chrome-extension://${id}/${path}`,
      onInstalled: new FakeEvent(),
      /** The native Ports opened, in order; set nativeError to make connectNative throw. */
      natives: [],
      nativeError: null,
      connectNative(name) {
        if (chrome.runtime.nativeError) throw new Error(chrome.runtime.nativeError);
        const port = new FakePort(chrome.runtime, name);
        chrome.runtime.natives.push(port);
        return port;
      },
      /** The Ports a content script opened with connect, in order. */
      connects: [],
      connect({ name } = {}) {
        const port = new FakePort(chrome.runtime, name);
        chrome.runtime.connects.push(port);
        return port;
      },
    },
    tabs: {
      async get(tabId) {
        const t = openTabs.get(tabId);
        if (!t) throw new Error(`No tab with id: ${tabId}.`);
        return { ...t };
      },
      async query() {
        return [...openTabs.values()].map((t) => ({ ...t }));
      },
      onCreated: new FakeEvent(),
      onUpdated: new FakeEvent(),
      onActivated: new FakeEvent(),
      onRemoved: new FakeEvent(),
      onReplaced: new FakeEvent(),
      onAttached: new FakeEvent(),
    },
    windows: {
      /** Every getLastFocused call's options, in order. */
      lastFocusedAsks: [],
      async getLastFocused(opts = {}) {
        chrome.windows.lastFocusedAsks.push(opts);
        const types = Array.isArray(opts.windowTypes) ? opts.windowTypes : ['normal', 'popup'];
        const wid = focusOrder.findLast((w) => types.includes(windowType(w)));
        if (wid === undefined) throw new Error('no window');
        return { id: wid, type: windowType(wid) };
      },
      onFocusChanged: new FakeEvent(),
      onRemoved: new FakeEvent(),
      /** The windows the code under test created and has not removed, by id: {id, type, url, focused}. */
      created: new Map(),
      /** Every create call's options, in order; set createError to make create reject. */
      creates: [],
      createError: null,
      async create(opts) {
        chrome.windows.creates.push({ ...opts });
        if (chrome.windows.createError) throw new Error(chrome.windows.createError);
        const w = { id: nextWindow++, type: opts.type, url: opts.url, focused: !!opts.focused };
        chrome.windows.created.set(w.id, w);
        return { ...w };
      },
      async update(windowId, info) {
        const w = chrome.windows.created.get(windowId);
        if (!w) throw new Error(`No window with id: ${windowId}.`);
        Object.assign(w, info);
        return { ...w };
      },
      /** The code under test closes a window: onRemoved fires, as in Chrome. */
      async remove(windowId) {
        if (!chrome.windows.created.delete(windowId)) throw new Error(`No window with id: ${windowId}.`);
        focusOrder.splice(0, focusOrder.length, ...focusOrder.filter((w) => w !== windowId));
        queueMicrotask(() => chrome.windows.onRemoved.emit(windowId));
      },
    },
    action: {
      /** tab id -> {text, color, textColor, title}, as last set. */
      badges: new Map(),
      /** How many times setBadgeText was called. */
      textSets: 0,
      async setBadgeText({ tabId, text }) {
        chrome.action.textSets++;
        chrome.action.badge(tabId).text = text;
      },
      async setBadgeBackgroundColor({ tabId, color }) {
        chrome.action.badge(tabId).color = color;
      },
      async setBadgeTextColor({ tabId, color }) {
        chrome.action.badge(tabId).textColor = color;
      },
      async setTitle({ tabId, title }) {
        chrome.action.badge(tabId).title = title;
      },
      async getBadgeText({ tabId }) {
        return chrome.action.badge(tabId).text;
      },
      badge(tabId) {
        if (!chrome.action.badges.has(tabId)) chrome.action.badges.set(tabId, { text: '' });
        return chrome.action.badges.get(tabId);
      },
    },
    permissions: {
      onAdded: new FakeEvent(),
      onRemoved: new FakeEvent(),
      /** The origins asked for with request, in order; set refuse to make the user say no. */
      requests: [],
      refuse: false,
      async getAll() {
        return { origins: [...granted], permissions: ['nativeMessaging', 'storage', 'sidePanel', 'scripting', 'activeTab'] };
      },
      async contains({ origins: want = [] }) {
        return want.every((mp) => [...granted].some((g) => covers(g, mp)));
      },
      async request({ origins: want = [] }) {
        chrome.permissions.requests.push(...want);
        if (chrome.permissions.refuse) return false;
        chrome.grant(want);
        return true;
      },
      async remove({ origins: drop = [] }) {
        if (drop.some((mp) => REQUIRED_ORIGINS.includes(mp))) throw new Error('You cannot remove required permissions.');
        const gone = drop.filter((mp) => granted.delete(mp));
        if (gone.length) queueMicrotask(() => chrome.permissions.onRemoved.emit({ origins: gone, permissions: [] }));
        return gone.length > 0;
      },
    },
    webRequest: {
      /** The test plays the browser's report of a redirect of a request to a granted site. */
      onBeforeRedirect: new FakeEvent(),
    },
    scripting: {
      /** The registered content scripts by id; set refuseKeys to a property name the browser does not take. */
      registered: scripts,
      refuseKey: null,
      async registerContentScripts(list) {
        for (const sc of list) {
          if (scripts.has(sc.id)) throw new Error(`Duplicate script ID '${sc.id}'`);
          if (chrome.scripting.refuseKey && chrome.scripting.refuseKey in sc) throw new Error(`Unexpected property "${chrome.scripting.refuseKey}"`);
        }
        for (const sc of list) scripts.set(sc.id, JSON.parse(JSON.stringify(sc)));
      },
      async getRegisteredContentScripts({ ids } = {}) {
        return [...scripts.values()].filter((sc) => !ids || ids.includes(sc.id)).map((sc) => JSON.parse(JSON.stringify(sc)));
      },
      async unregisterContentScripts({ ids } = {}) {
        for (const k of ids || [...scripts.keys()]) scripts.delete(k);
      },
    },
    storage: {
      local: {
        /** Set failWrites to make set reject. */
        failWrites: null,
        /** The access level set with setAccessLevel (undefined: never set). */
        accessLevel: undefined,
        async setAccessLevel({ accessLevel }) {
          chrome.storage.local.accessLevel = accessLevel;
        },
        async get(keys) {
          const out = {};
          for (const k of Array.isArray(keys) ? keys : [keys]) if (store.has(k)) out[k] = JSON.parse(JSON.stringify(store.get(k)));
          return out;
        },
        async set(items) {
          if (chrome.storage.local.failWrites) throw new Error(chrome.storage.local.failWrites);
          const changes = {};
          for (const [k, v] of Object.entries(items)) {
            changes[k] = { oldValue: store.get(k), newValue: JSON.parse(JSON.stringify(v)) };
            store.set(k, JSON.parse(JSON.stringify(v)));
          }
          queueMicrotask(() => chrome.storage.onChanged.emit(changes, 'local'));
        },
        async remove(keys) {
          const changes = {};
          for (const k of Array.isArray(keys) ? keys : [keys]) {
            if (!store.has(k)) continue;
            changes[k] = { oldValue: store.get(k) };
            store.delete(k);
          }
          queueMicrotask(() => chrome.storage.onChanged.emit(changes, 'local'));
        },
        /** What is stored under key (for the test). */
        peek(key) {
          return store.get(key);
        },
      },
      session: {
        /** The access level set with setAccessLevel (undefined: never set). */
        accessLevel: undefined,
        async setAccessLevel({ accessLevel }) {
          chrome.storage.session.accessLevel = accessLevel;
        },
        async get(keys) {
          const out = {};
          for (const k of Array.isArray(keys) ? keys : [keys]) if (sessionStore.has(k)) out[k] = JSON.parse(JSON.stringify(sessionStore.get(k)));
          return out;
        },
        async set(items) {
          const changes = {};
          for (const [k, v] of Object.entries(items)) {
            changes[k] = { oldValue: sessionStore.get(k), newValue: JSON.parse(JSON.stringify(v)) };
            sessionStore.set(k, JSON.parse(JSON.stringify(v)));
          }
          queueMicrotask(() => chrome.storage.onChanged.emit(changes, 'session'));
        },
        /** What is stored under key (for the test). */
        peek(key) {
          return sessionStore.get(key);
        },
      },
      onChanged: new FakeEvent(),
    },

    // ---- the test's side ----

    /** The native Port opened last. */
    get native() {
      return chrome.runtime.natives.at(-1);
    },

    /** The browser grants host permissions (its prompt, or its settings): onAdded fires. */
    grant(want) {
      const added = want.filter((mp) => !granted.has(mp));
      for (const mp of added) granted.add(mp);
      if (added.length) queueMicrotask(() => chrome.permissions.onAdded.emit({ origins: added, permissions: [] }));
    },

    /** The user takes host permissions back in the browser's settings (required ones too): onRemoved fires. */
    revoke(drop) {
      const gone = drop.filter((mp) => granted.delete(mp));
      if (gone.length) queueMicrotask(() => chrome.permissions.onRemoved.emit({ origins: gone, permissions: [] }));
    },

    /** Opens a tab: it exists for tabs.get, and onCreated fires. */
    openTab(tab) {
      openTabs.set(tab.id, { ...tab });
      chrome.tabs.onCreated.emit({ ...tab });
    },

    /** The user closes a window (a popup the code under test created): onRemoved fires. */
    closeWindow(windowId) {
      chrome.windows.created.delete(windowId);
      focusOrder.splice(0, focusOrder.length, ...focusOrder.filter((w) => w !== windowId));
      chrome.windows.onRemoved.emit(windowId);
    },

    /** A window takes the focus (a popup the code under test created, or a normal window): onFocusChanged fires. */
    focusWindow(windowId) {
      focusOrder.push(windowId);
      chrome.windows.onFocusChanged.emit(windowId);
    },

    /** Closes a tab: tabs.get fails, and onRemoved fires. */
    closeTab(tabId) {
      const t = openTabs.get(tabId);
      openTabs.delete(tabId);
      chrome.tabs.onRemoved.emit(tabId, { windowId: t ? t.windowId : -1, isWindowClosing: false });
    },

    /** Navigates a tab: onUpdated fires with the new URL. */
    navigateTab(tabId, url, title = '') {
      const t = { ...openTabs.get(tabId), url, title };
      openTabs.set(tabId, t);
      chrome.tabs.onUpdated.emit(tabId, { url }, { ...t });
    },

    /**
     * A frame's relay connects: returns the worker's end of its Port (what
     * the worker posts is in posted; deliver sends to the worker). Its
     * sender's tab is the open tab, else one at url with title.
     */
    connectFrame({ tabId, frameId = 0, url, origin, name = 'webmcp-frame', senderId = id, title = '' }) {
      const tab = openTabs.get(tabId) || { id: tabId, windowId: 1, active: false, url, title };
      const sender = { id: senderId, tab: { ...tab }, frameId, url };
      if (origin) sender.origin = origin;
      const port = new FakePort(chrome.runtime, name, sender);
      chrome.runtime.onConnect.emit(port);
      return port;
    },
  };
  return chrome;
}
