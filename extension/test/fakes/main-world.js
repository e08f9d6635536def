// The page of the main-world tests: runs generated/main-world.js (the generated
// bundle of content/main/) in a fresh VM context per test, with a minimal
// window and document made of Node's own EventTarget, MessageChannel,
// AbortController and DOMException, and, where a test asks, a fake clock for
// the page's setTimeout; the test holds the relay's end of the port, which
// takes in each tools message at once, as the relay and the worker do
// (unless ack is false).
import fs from 'node:fs';
import vm from 'node:vm';
import { drain } from './clock.js';

export const CODE = fs.readFileSync(new URL('../../generated/main-world.js', import.meta.url), 'utf8');
const open = [];
// The key of the test's own messages on the port (page.posted).
const SENTINEL = '__testSentinel';

/** Closes the ports of the pages loaded so far: for afterEach. */
export function closePorts() {
  for (const p of open.splice(0)) p.close();
}

/** Keeps a port to close after the test. */
export function keepOpen(...ports) {
  open.push(...ports);
}

// clock, when given, is the page's setTimeout, clearTimeout and Date.now (a
// FakeClock's api, fakes/clock.js).
// navigatorMC, when given, is the browser's own navigator.modelContext (as
// Firefox's WebMCP prototype has it: a getter on Navigator.prototype).
// events: the window gets CustomEvent and MessageEvent classes of its own
// (their detail, data, source and ports getters on their prototypes, as a
// browser has them), and the handover is a MessageEvent that names
// dialogEvent; alert: the window has an alert; pageScript: a page's script,
// run after the bridge's and before the handover.
export function load({ origin = 'http://localhost:8000', handover = true, clock, ack = true, navigatorMC, hidden = false, events = false, dialogEvent, alert = false, pageScript } = {}) {
  class Document extends EventTarget {
    querySelectorAll() {
      return [];
    }
    get visibilityState() {
      return hidden ? 'hidden' : 'visible';
    }
  }
  class Element {
    getAttribute() {
      return null;
    }
  }
  const win = new EventTarget();
  win.location = { origin };
  const doc = new Document();
  class Navigator {}
  if (navigatorMC) {
    Object.defineProperty(Navigator.prototype, 'modelContext', { get: () => navigatorMC, configurable: true, enumerable: true });
  }
  const nav = navigatorMC ? new Navigator() : {};
  const sandbox = {
    window: win, document: doc, navigator: nav, Document, Element, Navigator,
    EventTarget, Event, MessagePort, MessageChannel, AbortController, AbortSignal, DOMException, URL,
    setTimeout, clearTimeout, queueMicrotask, crypto, console,
  };
  if (events) Object.assign(sandbox, eventClasses());
  if (alert) win.alert = function alert() {};
  if (clock) {
    sandbox.setTimeout = clock.setTimeout;
    sandbox.clearTimeout = clock.clearTimeout;
    // The page's Date.now is the clock's too.
    sandbox.Date = class extends Date {
      static now() {
        return clock.now();
      }
    };
  }
  // A browser's timers refuse to be called on another object.
  for (const name of ['setTimeout', 'clearTimeout']) {
    const fn = sandbox[name];
    sandbox[name] = function (...args) {
      if (this !== undefined && this !== sandbox) throw new TypeError('Illegal invocation');
      return fn(...args);
    };
  }
  vm.createContext(sandbox);
  const globalsBefore = Object.getOwnPropertyNames(sandbox);
  vm.runInContext(CODE, sandbox, { filename: 'generated/main-world.js' });
  if (pageScript) vm.runInContext(pageScript, sandbox, { filename: 'page.js' });
  const page = { win, doc, nav, mc: doc.modelContext, messages: [], waiters: [], globalsBefore, global: sandbox };
  if (handover) {
    const ch = new MessageChannel();
    open.push(ch.port1);
    page.port = ch.port1;
    let sentinels = 0;
    let arrived = 0;
    page.port.onmessage = (e) => {
      const m = e.data;
      if (m && typeof m[SENTINEL] === 'number') {
        arrived = m[SENTINEL];
      } else {
        // As the relay and the worker do: each tools message is taken in.
        if (ack && m && m.type === 'tools') page.port.postMessage({ type: 'toolsTaken' });
        page.messages.push(m);
      }
      for (const w of page.waiters.splice(0)) w();
    };
    // Resolves once what the page's world has posted so far is in
    // page.messages: its promise jobs run first, then a sentinel goes down
    // the page's own end of the port, behind all it posted (a port is first
    // in, first out). For "nothing (more) came": one turn of the event loop
    // is not enough, a port's message may come a turn later.
    page.posted = async () => {
      await drain();
      const n = ++sentinels;
      ch.port2.postMessage({ [SENTINEL]: n });
      while (arrived < n) await new Promise((resolve) => page.waiters.push(resolve));
    };
    page.handover = events
      ? new sandbox.MessageEvent('message', { data: { __webmcpBridgeHandover: 1, ...(dialogEvent ? { dialogEvent } : {}) }, source: win, ports: [ch.port2] })
      : makeHandover(win, ch.port2);
    win.dispatchEvent(page.handover);
  }
  return page;
}

const nodeMessage = (name, e) => Reflect.apply(Object.getOwnPropertyDescriptor(MessageEvent.prototype, name).get, e, []);

// A browser's CustomEvent and MessageEvent, fresh for one window: the
// constructors read their init dictionaries member by member (inherited
// ones too), and the fields are read through getters on the prototypes.
function eventClasses() {
  class CustomEvent extends Event {
    #detail;
    constructor(type, init) {
      const i = init ?? {};
      super(type, { bubbles: !!i.bubbles, cancelable: !!i.cancelable, composed: !!i.composed });
      this.#detail = i.detail ?? null;
    }
    get detail() {
      return this.#detail;
    }
  }
  class MessageEvent extends Event {
    #data;
    #source;
    #ports;
    constructor(type, init) {
      const i = init ?? {};
      super(type, { bubbles: !!i.bubbles, cancelable: !!i.cancelable, composed: !!i.composed });
      this.#data = i.data ?? null;
      this.#source = i.source ?? null;
      this.#ports = i.ports ?? [];
    }
    // A port's messages are Node's MessageEvents: one class in a browser.
    get data() {
      return #data in this ? this.#data : nodeMessage('data', this);
    }
    get source() {
      return #source in this ? this.#source : nodeMessage('source', this);
    }
    get ports() {
      return #ports in this ? this.#ports : nodeMessage('ports', this);
    }
  }
  return { CustomEvent, MessageEvent };
}

export function makeHandover(win, port, source = win) {
  const ev = new Event('message');
  Object.defineProperties(ev, {
    source: { value: source },
    data: { value: { __webmcpBridgeHandover: 1 } },
    ports: { value: [port] },
  });
  return ev;
}

// Waits for the next bridge message that pred accepts (taking it off the list).
export async function next(page, pred, ms = 2000) {
  const end = Date.now() + ms;
  for (;;) {
    const i = page.messages.findIndex(pred);
    if (i >= 0) return page.messages.splice(i, 1)[0];
    const left = end - Date.now();
    if (left <= 0) throw new Error('no such bridge message; got ' + JSON.stringify(page.messages));
    await new Promise((resolve) => {
      const t = setTimeout(resolve, left);
      page.waiters.push(() => {
        clearTimeout(t);
        resolve();
      });
    });
  }
}

export const toolsMsg = (names) => (m) => m.type === 'tools' && JSON.stringify(m.tools.map((t) => t.name)) === JSON.stringify(names);
export const answer = (id) => (m) => (m.type === 'result' || m.type === 'error') && m.id === id;

// Values made inside the VM context have its own Object and Array prototypes.
export const plain = (v) => JSON.parse(JSON.stringify(v));

// The names of the tools that getTools() lists.
export const listedNames = async (mc) => plain((await mc.getTools()).map((t) => t.name));

export function tool(name, extra = {}) {
  return { name, description: `the ${name} tool`, execute: () => name, ...extra };
}

export const providersMsg = (ids) => (m) => m.type === 'providers' && JSON.stringify(m.providers.map((p) => p.id)) === JSON.stringify(ids);
export const sampled = (id) => (m) => m.type === 'sampled' && m.id === id;

export function provider(id, getContext, extra = {}) {
  return { id, description: `the ${id} provider`, getContext, ...extra };
}
