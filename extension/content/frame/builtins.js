// Built-ins of the page's world, taken when the script starts (the bundle runs
// before any page script), so that a page that later replaces
// JSON.stringify, Promise.prototype.then or EventTarget.prototype.addEventListener
// does not change how the bridge behaves; and the small helpers built on them.
//
// Only what Node has too is taken here, so that Node's tests can import every
// module; window, document, navigator, Document and Element are taken by the
// entry (index.js) and handed to the modules that need them.

export const { create, defineProperty, getOwnPropertyDescriptor, getPrototypeOf, hasOwn } = Object;
export const ObjectProto = Object.prototype;
export const { apply, ownKeys } = Reflect;
export const jsonStringify = JSON.stringify;
export const jsonParse = JSON.parse;
export const { isArray } = Array;
const ET = EventTarget.prototype;
export const addListener = ET.addEventListener;
export const removeListener = ET.removeEventListener;
export const dispatch = ET.dispatchEvent;
export const stopImmediate = Event.prototype.stopImmediatePropagation;
const portPost = MessagePort.prototype.postMessage;
export const Channel = MessageChannel;
const promiseThen = Promise.prototype.then;
export const PromiseCtor = Promise;
export const AbortCtl = AbortController;
export const AbortSig = AbortSignal;
export const DOMExc = DOMException;
export const Evt = Event;
export const URLCtor = URL;
export const timeout = setTimeout;
export const clearTimer = clearTimeout;
export const microtask = queueMicrotask;
export const dateNow = Date.now;
const perf = typeof performance === 'object' && performance ? performance : null;
const perfNow = perf ? perf.now.bind(perf) : dateNow;
const origin0 = perf ? perf.timeOrigin : 0;

/** Milliseconds since the Unix epoch, with the fraction the clock gives. */
export function epochMs() {
  return origin0 + perfNow();
}
const randomValues = crypto.getRandomValues.bind(crypto);

export const resolved = (v) => PromiseCtor.resolve(v);

const signalAborted = Object.getOwnPropertyDescriptor(AbortSignal.prototype, 'aborted').get;

/** Whether v is an AbortSignal, of this realm or another (a frame's): the browser takes either. */
export function isAbortSignal(v) {
  if (v instanceof AbortSignal) return true;
  if (v === null || typeof v !== 'object') return false;
  try {
    apply(signalAborted, v, []);
    return true;
  } catch {
    return false;
  }
}

/** p.then(ok, fail) with the original then. */
export function then(p, ok, fail) {
  return apply(promiseThen, p, [ok, fail]);
}

/** port.postMessage(msg) with the original postMessage. */
export function postTo(port, msg) {
  apply(portPost, port, [msg]);
}

export function isObject(v) {
  return v !== null && (typeof v === 'object' || typeof v === 'function');
}

export function randomId() {
  const a = new Uint32Array(4);
  randomValues(a);
  return Array.from(a, (n) => n.toString(36)).join('');
}

// A task (not a microtask), like the draft's "queue a global task"; a
// MessageChannel rather than setTimeout, which background tabs throttle.
const tasks = [];
let taskPort = null;
export function queueTask(fn) {
  tasks.push(fn);
  if (!taskPort) {
    const ch = new Channel();
    taskPort = ch.port2;
    ch.port1.onmessage = () => {
      const run = tasks.shift();
      if (!tasks.length) {
        ch.port1.close();
        if (taskPort === ch.port2) taskPort = null;
      }
      if (run) run();
    };
  }
  postTo(taskPort, null);
}
