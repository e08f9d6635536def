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
export const objectKeys = Object.keys;
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

// The getters the bridge reads events through, taken at start: a page's
// script may later replace MessageEvent.prototype.data or
// CustomEvent.prototype.detail with a getter that sees every event read
// through it, its type (the bridge's secret event name) and data among
// them, and answers what it likes. Where the world has no such class (a
// test's minimal window), the field is read as it is.
function protoGetter(C, name) {
  const d = typeof C === 'function' ? getOwnPropertyDescriptor(C.prototype, name) : undefined;
  return d && typeof d.get === 'function' ? d.get : null;
}
const MsgEvent = typeof MessageEvent === 'function' ? MessageEvent : null;
const msgData = protoGetter(MsgEvent, 'data');
const msgSource = protoGetter(MsgEvent, 'source');
const msgPorts = protoGetter(MsgEvent, 'ports');
const eventDetail = protoGetter(typeof CustomEvent === 'function' ? CustomEvent : null, 'detail');
const portOnMessage = (() => {
  const d = typeof MessagePort === 'function' ? getOwnPropertyDescriptor(MessagePort.prototype, 'onmessage') : undefined;
  return d && typeof d.set === 'function' ? d.set : null;
})();

function readThrough(get, e, name) {
  return get ? apply(get, e, []) : e[name];
}

/** A MessageEvent's data, through the getter taken at start (throws for another kind of event, as the getter does). */
export const dataOf = (e) => readThrough(msgData, e, 'data');
/** A MessageEvent's source, likewise. */
export const sourceOf = (e) => readThrough(msgSource, e, 'source');
/** A MessageEvent's ports, likewise. */
export const portsOf = (e) => readThrough(msgPorts, e, 'ports');
/** A CustomEvent's detail, likewise. */
export const detailOf = (e) => readThrough(eventDetail, e, 'detail');

// What a frame knows of its parent and of its permissions policy, through
// the getters taken at start (links.js): location.ancestorOrigins (a
// Location's own, unforgeable; Chromium's, not Firefox's), document.referrer,
// and document.featurePolicy with its methods.
const referrerGet = protoGetter(typeof Document === 'function' ? Document : null, 'referrer');
const featurePolicyGet = protoGetter(typeof Document === 'function' ? Document : null, 'featurePolicy');
const FP = typeof FeaturePolicy === 'function' ? FeaturePolicy.prototype : null;
const fpFeatures = FP && typeof FP.features === 'function' ? FP.features : null;
const fpAllows = FP && typeof FP.allowsFeature === 'function' ? FP.allowsFeature : null;
const includes = Array.prototype.includes;

/**
 * The origin of win's parent document as win knows it without asking it:
 * location.ancestorOrigins[0] where the browser gives it, else the origin
 * of document.referrer (a frame's first navigation has its parent's URL as
 * referrer, unless a referrer policy left it out); '' when unknown.
 */
export function parentOriginOf(win) {
  try {
    const list = win.location.ancestorOrigins;
    const first = list ? list[0] : undefined;
    if (typeof first === 'string' && first !== '') return first;
  } catch {
    // none
  }
  try {
    const ref = referrerGet ? apply(referrerGet, win.document, []) : win.document.referrer;
    if (typeof ref === 'string' && ref !== '') return new URLCtor(ref).origin;
  } catch {
    // none
  }
  return '';
}

/**
 * Whether the browser's permissions policy lets this document use the
 * feature name: true or false where the browser knows the feature
 * (Chromium with WebMCP knows "tools"), undefined where it does not.
 */
export function policyAllows(doc, name) {
  try {
    const fp = featurePolicyGet ? apply(featurePolicyGet, doc, []) : doc.featurePolicy;
    if (!fp || !fpFeatures || !fpAllows) return undefined;
    if (!apply(includes, apply(fpFeatures, fp, []), [name])) return undefined;
    return apply(fpAllows, fp, [name]) === true;
  } catch {
    return undefined;
  }
}

/** port.onmessage = fn with the setter taken at start (a page's could keep the port, or the function). */
export function setOnMessage(port, fn) {
  if (portOnMessage) apply(portOnMessage, port, [fn]);
  else port.onmessage = fn;
}

/**
 * JSON text of v, a message of the bridge's (plain objects, arrays,
 * strings, numbers, booleans, null), as JSON.stringify gives it but with
 * no toJSON looked up on the way (a page's getter on Object.prototype or
 * Array.prototype would see every object) and no iterator of the page's.
 */
export function jsonText(v, depth = 0) {
  if (depth > 1000) throw new TypeError('a message nested over 1000 levels');
  if (typeof v === 'bigint') throw new TypeError('a BigInt in a message');
  if (v === null || typeof v !== 'object') return jsonStringify(v);
  if (isArray(v)) {
    let s = '[';
    for (let i = 0; i < v.length; i++) {
      const x = jsonText(v[i], depth + 1);
      s += (i ? ',' : '') + (x === undefined ? 'null' : x);
    }
    return `${s}]`;
  }
  const keys = objectKeys(v);
  let s = '{';
  let first = true;
  for (let i = 0; i < keys.length; i++) {
    const x = jsonText(v[keys[i]], depth + 1);
    if (x === undefined) continue;
    s += (first ? '' : ',') + jsonStringify(keys[i]) + ':' + x;
    first = false;
  }
  return `${s}}`;
}

// JSON.parse's reviver: every object made without a prototype.
function bareReviver(k, v) {
  if (v === null || typeof v !== 'object' || isArray(v)) return v;
  const out = create(null);
  const keys = objectKeys(v);
  for (let i = 0; i < keys.length; i++) out[keys[i]] = v[keys[i]];
  return out;
}

/** JSON.parse(text), its objects without a prototype: reading a field it lacks meets no getter of the page's. */
export function parseBare(text) {
  return jsonParse(text, bareReviver);
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
