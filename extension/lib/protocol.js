// The extension's side of the bridge protocol (Go package protocol, doc.go is
// the reference): message types, error codes, and the builders and checks
// for what the extension sends and receives; and the names of the
// extension's own links, worker <-> relay and relay <-> page's world
// (PROTOCOL.md beside this folder is their reference).
//
// Every context imports this module (the bundles of content/ take what they
// use of it): its top level only defines.

import { isValidToolName } from './names.js';
import { checkSchema, rejectedSchema } from './schema.js';

/** The bridge protocol version this extension speaks. */
export const PROTOCOL_VERSION = 1;

/** The native-messaging host the extension connects to. */
export const HOST_NAME = 'dev.webmcp.bridge';

/** Message types. */
export const T = /* @__PURE__ */ Object.freeze({
  hello: 'hello',
  state: 'state',
  tabUpdated: 'tabUpdated',
  tabRemoved: 'tabRemoved',
  toolsAdded: 'toolsAdded',
  toolsRemoved: 'toolsRemoved',
  context: 'context',
  pins: 'pins',
  call: 'call',
  cancel: 'cancel',
  request: 'request',
  result: 'result',
  error: 'error',
  chunk: 'chunk',
  client: 'client',
  sessions: 'sessions',
  batch: 'batch',
});

/**
 * Message types of the extension's own links (PROTOCOL.md): the relay's
 * Port to the worker, and the MessageChannel between the relay and the
 * page's world. call, cancel, result, error and chunk are the bridge
 * protocol's messages, carried on.
 */
export const PageLinkType = /* @__PURE__ */ Object.freeze({
  // page's world -> relay -> worker
  tools: 'tools',
  providers: 'providers',
  result: 'result',
  error: 'error',
  // relay -> worker
  context: 'context',
  chunk: 'chunk',
  userInput: 'userInput',
  // an alert, confirm or prompt of the frame's opened (open: true, kind,
  // text) or closed (open: false)
  dialog: 'dialog',
  // worker -> relay -> page's world
  call: 'call',
  cancel: 'cancel',
  toolsTaken: 'toolsTaken',
  // worker -> relay
  contextOn: 'contextOn',
  sample: 'sample',
  indicator: 'indicator',
  whenLoaded: 'whenLoaded',
  // relay -> worker, answering whenLoaded
  loaded: 'loaded',
  // relay -> page's world (sample also)
  cancelAll: 'cancelAll',
  sync: 'sync',
  flush: 'flush',
  // page's world -> relay
  flushed: 'flushed',
  sampled: 'sampled',
  contextChanged: 'contextChanged',
  // page's world -> relay -> worker, and back: whether the bridge runs in
  // documents of an origin ({id, origin}; answered {id, yes}), before a
  // cross-origin frame and its parent link (content/main/polyfill/links.js)
  bridgeAt: 'bridgeAt',
  // both ways: several of the above that were ready together or, under
  // load, held a moment for each other (calls and cancels to the page's
  // world, results and errors from it)
  batch: 'batch',
});

/** The name of every frame's Port to the worker (runtime.connect). */
export const PORT_NAME = 'webmcp-frame';

/** The name of the Port an extension page opens to hear of changes (worker/uiapi.js). */
export const UI_PORT = 'webmcp-ui';

/**
 * The key of the relay's one message to its own window, which hands the
 * page's world its end of the MessageChannel (content/main/handover.js).
 */
export const HANDOVER = '__webmcpBridgeHandover';

/**
 * Globals of a frame's isolated world (never the page's): RELAY_FLAG is
 * set once its relay runs (content/isolated/index.js); LATE_FLAG marks a
 * document that gets the relay after its start (worker/opentabs.js), with
 * no page world script to hand a channel to.
 */
export const RELAY_FLAG = 'webmcpRelay';
export const LATE_FLAG = 'webmcpLate';

/**
 * The handover's field that names the DOM event (a random type, per
 * frame) by which the page's world tells the relay, synchronously, that
 * an alert, confirm or prompt opens or closes (content/main/dialogs.js).
 */
export const DIALOG_EVENT = 'dialogEvent';

/** Error codes of error messages. */
export const Code = /* @__PURE__ */ Object.freeze({
  toolError: 'tool_error',
  notFound: 'not_found',
  tabClosed: 'tab_closed',
  navigated: 'navigated',
  cancelled: 'cancelled',
  timeout: 'timeout',
  badRequest: 'bad_request',
  noBrowser: 'no_browser',
  browserGone: 'browser_gone',
  notAllowed: 'not_allowed',
  declined: 'declined',
  tooLarge: 'too_large',
  blocked: 'blocked',
  internal: 'internal',
});

const CODES = /* @__PURE__ */ new Set(/* @__PURE__ */ Object.values(Code));

/** Request methods: what a shim may ask of the extension besides tool calls. */
export const Method = /* @__PURE__ */ Object.freeze({
  sampleContext: 'sampleContext',
  pin: 'pin',
  unpin: 'unpin',
  openPage: 'openPage',
  focusTab: 'focusTab',
  closeTab: 'closeTab',
  contextTools: 'contextTools',
  setContextTool: 'setContextTool',
  siteAccess: 'siteAccess',
});

const METHODS = /* @__PURE__ */ new Set(/* @__PURE__ */ Object.values(Method));

/**
 * The annotations a tool may carry, each a boolean, as MCP and WebMCP name
 * them (in the order of protocol.Annotations): consequentialHint and debugging
 * are WebMCP's (the 2026 drafts; Chromium reads both).
 */
export const HINTS = /* @__PURE__ */ Object.freeze([
  'readOnlyHint',
  'destructiveHint',
  'idempotentHint',
  'openWorldHint',
  'untrustedContentHint',
  'consequentialHint',
  'debugging',
]);

/** The largest tool (as JSON) that the extension passes on. */
export const MAX_TOOL_BYTES = 1048576; // 1 MiB

/** Builds the extension's hello. */
export function helloMessage({ name, version, instance, extensionId, extensionVersion }) {
  const browser = {};
  if (name) browser.name = name;
  if (version) browser.version = version;
  if (instance) browser.instance = instance;
  if (extensionId) browser.extensionId = extensionId;
  if (extensionVersion) browser.extensionVersion = extensionVersion;
  browser.batch = true; // this extension takes batch messages
  return { type: T.hello, protocol: PROTOCOL_VERSION, browser };
}

/**
 * Adds the timing mark of hop to a traced call or answer m (one with a
 * trace list; protocol.Mark): {hop, at}, at in milliseconds since the Unix
 * epoch, with the fraction the clock gives. Other messages are left alone.
 */
export function mark(m, hop) {
  if (m && Array.isArray(m.trace)) m.trace.push({ hop, at: performance.timeOrigin + performance.now() });
}

/** Builds a result message. An undefined output travels as null; trace, a traced call's marks. */
export function resultMessage(id, output, trace) {
  const m = { type: T.result, id, output: output === undefined ? null : output };
  if (Array.isArray(trace)) m.trace = trace;
  return m;
}

/** Builds a pins message: the whole list of pins, [] when there are none. */
export function pinsMessage(pins) {
  return { type: T.pins, pins: Array.isArray(pins) ? pins : [] };
}

/** Builds an error message. */
export function errorMessage(id, code, message) {
  return { type: T.error, id, error: { code: CODES.has(code) ? code : Code.internal, message: String(message ?? '') } };
}

const GREASE = /not.?a.?brand/i;
const BRAND_NAMES = { 'Google Chrome': 'Chrome', 'Microsoft Edge': 'Edge' };

/**
 * Names the browser for hello from navigator.userAgentData's brand lists
 * (fullVersionList when the high-entropy values were granted, else brands)
 * and the user-agent string as a fallback (Firefox has no userAgentData).
 * @returns {{name: string, version: string}}
 */
export function browserInfo({ fullVersionList, brands, userAgent } = {}) {
  const list = (Array.isArray(fullVersionList) && fullVersionList.length ? fullVersionList : brands) || [];
  const real = list.filter((b) => b && typeof b.brand === 'string' && !GREASE.test(b.brand));
  const pick = real.find((b) => b.brand !== 'Chromium') || real.find((b) => b.brand === 'Chromium');
  if (pick) {
    let version = String(pick.version ?? '');
    // Brands alone carry only the major version; take the rest from the UA.
    const ua = typeof userAgent === 'string' ? /(?:Chrome|Chromium)\/([\d.]+)/.exec(userAgent) : null;
    if (!version.includes('.') && ua && ua[1].split('.')[0] === version) version = ua[1];
    return { name: BRAND_NAMES[pick.brand] || pick.brand, version };
  }
  if (typeof userAgent === 'string') {
    const firefox = /Firefox\/([\d.]+)/.exec(userAgent);
    if (firefox) return { name: 'Firefox', version: firefox[1] };
    const edge = /Edg\/([\d.]+)/.exec(userAgent);
    if (edge) return { name: 'Edge', version: edge[1] };
    const chrome = /(?:Chrome|Chromium)\/([\d.]+)/.exec(userAgent);
    if (chrome) return { name: 'Chromium', version: chrome[1] };
  }
  return { name: 'Chromium', version: '' };
}

function isPlainObject(v) {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/**
 * Checks and copies one tool as a content script reported it (the page wrote
 * it, so nothing is trusted). It returns {tool} with the fields the protocol
 * carries, or {problem} saying why the tool is left out.
 * consequential is true when the page set annotations.consequentialHint
 * (ask-before-acting reads it; wireTool leaves it out: the hint itself
 * travels in annotations). outputSchema is bounded like inputSchema.
 * @returns {{tool?: {name: string, title?: string, description: string, inputSchema?: object, outputSchema?: object, annotations?: object, consequential?: true}, problem?: string}}
 */
export function normalizeTool(raw) {
  if (!isPlainObject(raw)) return { problem: 'not an object' };
  const { name } = raw;
  if (!isValidToolName(name)) return { problem: `invalid tool name ${JSON.stringify(String(name)).slice(0, 140)}` };
  const tool = { name };
  if (typeof raw.title === 'string' && raw.title !== '') tool.title = raw.title;
  tool.description = typeof raw.description === 'string' ? raw.description : '';
  if (raw.inputSchema !== undefined && raw.inputSchema !== null) {
    if (!isPlainObject(raw.inputSchema)) return { problem: `tool ${name}: inputSchema is not a JSON object` };
    // The same bounds as the page world and the shim (lib/schema.js): a
    // schema past them travels as its stand-in, and the tool stays.
    const c = checkSchema(raw.inputSchema);
    tool.inputSchema = c.problem ? rejectedSchema(c.problem) : c.schema;
  }
  if (raw.outputSchema !== undefined && raw.outputSchema !== null) {
    if (!isPlainObject(raw.outputSchema)) return { problem: `tool ${name}: outputSchema is not a JSON object` };
    const c = checkSchema(raw.outputSchema);
    tool.outputSchema = c.problem ? rejectedSchema(c.problem) : c.schema;
  }
  if (isPlainObject(raw.annotations)) {
    const a = {};
    for (const h of HINTS) if (typeof raw.annotations[h] === 'boolean') a[h] = raw.annotations[h];
    if (Object.keys(a).length) tool.annotations = a;
    // Ask-before-acting reads this; the hint itself travels in annotations.
    if (raw.annotations.consequentialHint === true) tool.consequential = true;
  }
  let size;
  try {
    size = JSON.stringify(tool).length;
  } catch (e) {
    return { problem: `tool ${name}: not JSON (${e.message})` };
  }
  if (size > MAX_TOOL_BYTES) return { problem: `tool ${name}: ${size} bytes of JSON, more than ${MAX_TOOL_BYTES}` };
  return { tool };
}

/**
 * Checks and copies a frame's tool list. Tools with problems and repeated
 * names (the first wins) are left out and listed in problems.
 */
export function normalizeTools(list) {
  const tools = [];
  const problems = [];
  const seen = new Set();
  if (!Array.isArray(list)) return { tools, problems: ['the tool list is not an array'] };
  for (const raw of list) {
    const { tool, problem } = normalizeTool(raw);
    if (problem) {
      problems.push(problem);
    } else if (seen.has(tool.name)) {
      problems.push(`tool ${tool.name} is listed twice`);
    } else {
      seen.add(tool.name);
      tools.push(tool);
    }
  }
  return { tools, problems };
}

/** Builds a protocol Tool from a frame's normalised tool. */
export function wireTool(tabId, frameId, origin, tool) {
  const t = { tabId, frameId, origin, name: tool.name };
  if (tool.title) t.title = tool.title;
  t.description = tool.description;
  if (tool.inputSchema) t.inputSchema = tool.inputSchema;
  if (tool.outputSchema) t.outputSchema = tool.outputSchema;
  if (tool.annotations) t.annotations = tool.annotations;
  return t;
}

/**
 * Checks a message from the host that the extension acts on (call, cancel,
 * request, chunk). It returns {msg} (a call with its defaults filled in:
 * frameId 0 and arguments {} when absent, as an older host wrote them; a
 * request with params {} when absent; a call's timeout only when it is a
 * positive integer), {ignore: reason} for messages that
 * need no action, or {reply}
 * for a call or request that must be answered with an error right away.
 */
/** Whether a is the id of a shim's agent ("a1"): a short non-empty string. */
function isAgentId(a) {
  return typeof a === 'string' && a !== '' && a.length <= 64;
}

export function checkHostMessage(m) {
  if (!isPlainObject(m) || typeof m.type !== 'string' || m.type === '') return { ignore: 'a message without "type"' };
  switch (m.type) {
    case T.call: {
      if (typeof m.id !== 'string' || m.id === '') return { ignore: 'a call without "id"' };
      const tabId = m.tabId ?? 0;
      const frameId = m.frameId ?? 0;
      const args = m.arguments ?? {};
      if (!Number.isSafeInteger(tabId) || !Number.isSafeInteger(frameId) || frameId < 0) {
        return { reply: errorMessage(m.id, Code.badRequest, 'call: "tabId" and "frameId" must be integers') };
      }
      if (typeof m.name !== 'string' || m.name === '') {
        return { reply: errorMessage(m.id, Code.badRequest, 'call: "name" must name a tool') };
      }
      if (!isPlainObject(args)) {
        return { reply: errorMessage(m.id, Code.badRequest, 'call: "arguments" must be a JSON object') };
      }
      const msg = { type: T.call, id: m.id, tabId, frameId, name: m.name, arguments: args };
      // How long the caller waits (ms): a call waiting for the user's consent is declined before then.
      if (Number.isSafeInteger(m.timeout) && m.timeout > 0) msg.timeout = m.timeout;
      // A traced call: each hop adds its timing mark (see mark).
      if (Array.isArray(m.trace)) msg.trace = m.trace;
      if (isAgentId(m.agent)) msg.agent = m.agent;
      return { msg };
    }
    case T.request: {
      if (typeof m.id !== 'string' || m.id === '') return { ignore: 'a request without "id"' };
      if (typeof m.method !== 'string' || !METHODS.has(m.method)) {
        return { reply: errorMessage(m.id, Code.badRequest, `request: unknown method ${JSON.stringify(String(m.method ?? ''))}; this extension knows ${[...METHODS].join(', ')}`) };
      }
      const params = m.params ?? {};
      if (!isPlainObject(params)) return { reply: errorMessage(m.id, Code.badRequest, `${m.method}: "params" must be a JSON object`) };
      const msg = { type: T.request, id: m.id, method: m.method, params };
      if (isAgentId(m.agent)) msg.agent = m.agent;
      return { msg };
    }
    case T.cancel:
      if (typeof m.id !== 'string' || m.id === '') return { ignore: 'a cancel without "id"' };
      return { msg: { type: T.cancel, id: m.id } };
    case T.chunk:
      return { msg: m };
    case T.batch:
      if (!Array.isArray(m.messages)) return { ignore: 'a batch without a "messages" list' };
      return { msg: m };
    case T.sessions:
      if (!Array.isArray(m.sessions)) return { ignore: 'sessions without a "sessions" list' };
      return { msg: m };
    case T.hello:
      if (m.protocol !== undefined && m.protocol !== PROTOCOL_VERSION) {
        return { ignore: `the host speaks protocol ${m.protocol}, this extension ${PROTOCOL_VERSION}` };
      }
      return { msg: m };
    default:
      return { ignore: `unknown message type ${JSON.stringify(m.type)}` };
  }
}
