// The bridge's main-world script: it runs in the page's own JavaScript world
// ("world": "MAIN"), in every frame, at document_start, before any page
// script. The page's world cannot import modules, so these modules are
// bundled into one classic script, generated/main-world.js (go generate
// ./internal/contentscripts), whose names the page never sees.
//
// What it does:
//  - Where the browser has its own document.modelContext (Chromium with
//    --enable-features=WebMCP), it leaves it in place: the isolated world
//    lists its tools itself (content/isolated/browserwebmcp.js), and this world
//    adds the context API and witnesses the page's registerTool
//    (witness.js: its hints, outputSchema and errors), and runs the
//    bridge's calls of the tools it saw registered when the isolated world
//    asks (direct calls, without the browser's executeTool).
//  - Elsewhere it installs a polyfill of the WebMCP draft as
//    document.modelContext, a getter on Document.prototype (polyfill/).
//  - It defines nothing on navigator: page runtimes (@mcp-b/global and
//    others) install their own navigator.modelContext, some only when none
//    is there yet. A page that puts its own object on navigator.modelContext
//    or document.modelContext keeps it; the bridge reads that object's tools
//    (adopt.js). Firefox's own WebMCP prototype (dom.modelcontext.enabled)
//    is a navigator.modelContext of the browser's: the bridge reads its
//    tools the same way, beside the polyfill's document.modelContext.
//  - Either way, the object gets the bridge's UI-context API (providers.js),
//    and this document's providers are sampled when the relay asks
//    (sample.js).
//  - It reports this document's tools (only its own: not those of same-origin
//    frames, which report theirs) and context providers to the isolated-world
//    relay over a MessagePort that the relay hands over once, at start
//    (handover.js), and runs the calls and samples that come back over it
//    (bridge.js).
//
// This file is the install: it takes the page's globals, picks the browser's
// own modelContext or the polyfill, and wires the units together.

import { addListener, apply, defineProperty, detailOf, dispatch, getOwnPropertyDescriptor, hasOwn, jsonText, microtask, parseBare, timeout } from '../source/builtins.js';
import { createAdopter } from './adopt.js';
import { createBridge } from '../source/bridge.js';
import { createChanges } from './changes.js';
import { watchDialogs } from './dialogs.js';
import { listenForHandover } from './handover.js';
import { formDom } from './polyfill/formdom.js';
import { definePolyfill } from './polyfill/polyfill.js';
import { mapToolPseudoClasses } from './polyfill/pseudo.js';
import { createProviders } from './providers.js';
import { witnessNative } from './witness.js';
import { DIALOG_EVENT } from '../../lib/protocol.js';

// The page's globals, taken before any page script can replace them.
const pageWin = window;
const pageDoc = document;
const pageNav = navigator;
const NativeMC = pageWin.ModelContext;
const NavigatorProto = typeof Navigator === 'function' ? Navigator.prototype : null;
const DocumentProto = Document.prototype;
const visibilityState = getOwnPropertyDescriptor(DocumentProto, 'visibilityState')?.get;
const CustomEventCtor = typeof CustomEvent === 'function' ? CustomEvent : null;
// The browser's tool events (native mode), for the calls this world runs.
const nativeEvents = { ToolActivatedEvent: pageWin.ToolActivatedEvent, ToolCancelEvent: pageWin.ToolCancelEvent };
const hasClientInterface = typeof pageWin.ModelContextClient === 'function';

const changes = createChanges(microtask);
const providers = createProviders({ changed: changes.providersChanged, contextChanged: changes.contextChanged });
const adopter = createAdopter({ changed: changes.changed, addContextApi: providers.addMethods });

// The browser's own document.modelContext, or null.
function findNative() {
  const nativeDesc = getOwnPropertyDescriptor(DocumentProto, 'modelContext');
  if (!nativeDesc || typeof NativeMC !== 'function') return null;
  try {
    const v = pageDoc.modelContext;
    if (v instanceof NativeMC) return v;
  } catch {
    // none after all
  }
  return null;
}

// The browser's own navigator.modelContext (Firefox's prototype: a getter on
// Navigator.prototype, with registerTool and unregisterTool, and getTools
// and invokeTool where dom.modelcontext.testing.enabled is set), or null.
function findNavigatorNative() {
  if (!NavigatorProto) return null;
  const d = getOwnPropertyDescriptor(NavigatorProto, 'modelContext');
  if (!d || typeof d.get !== 'function') return null;
  try {
    const v = apply(d.get, pageNav, []);
    return v !== null && typeof v === 'object' ? v : null;
  } catch {
    return null;
  }
}


// The browser's own modelContext: the isolated world lists its tools
// (content/isolated/browserwebmcp.js); this world adds the context API to it,
// witnesses what only it sees and runs the direct calls (witness.js).
// Returns this world's own tools of it: none (they are reported from the
// isolated world).
let witness = null;
function installNative(nativeMC) {
  // A browser with a ModelContextClient interface hands execute more than
  // a plain object with the signal (the draft's requestUserInteraction):
  // there every call goes through its executeTool.
  witness = witnessNative({ nativeMC, proto: NativeMC.prototype, tell: (msg) => tellRelay(msg), events: nativeEvents, direct: !hasClientInterface });
  providers.addMethods(NativeMC.prototype, (that) => that === nativeMC);
  adopter.markOurs(nativeMC);
  adopter.watch(pageNav);
  // The native attribute is read-only; a page can still define its own
  // document.modelContext on the document itself.
  adopter.watch(pageDoc);
  const none = new Map();
  return { tools: () => none };
}

// The DOM that the polyfill's declarative tools use, or undefined where the
// window has no forms (a test's minimal window).
function declarativeDom() {
  try {
    if (typeof pageWin.HTMLFormElement !== 'function' || typeof pageWin.MutationObserver !== 'function') return undefined;
    const d = formDom(pageWin);
    return { ...d, submitProto: typeof pageWin.SubmitEvent === 'function' ? pageWin.SubmitEvent.prototype : undefined };
  } catch {
    return undefined;
  }
}

// Installs the polyfill; returns this document's own tools.
function installPolyfill() {
  const declarative = declarativeDom();
  const poly = definePolyfill({
    win: pageWin, changed: changes.changed, addContextApi: providers.addMethods, declarative,
    // A page runtime that found document.modelContext took it for the
    // browser's own and put its own object on the document (@mcp-b/global
    // 5.x); it calls executeTool with JSON text, as Chromium before 156
    // took it. Without the extension its own polyfill takes that text: so
    // does this one, then, and only then (Chromium 156 refuses it).
    takesText: () => hasOwn(pageDoc, 'modelContext'),
    // Whether the bridge runs in documents of an origin: the worker says
    // (links.js shows the bridge to no other frame or parent).
    bridgeAt: (origin) => bridge.bridgeAt(origin),
  });
  // The selector API takes :tool-form-active and :tool-submit-active as the
  // polyfill's attributes (pseudo.js says how far that goes).
  if (declarative) {
    try {
      mapToolPseudoClasses(pageWin);
    } catch {
      // a window without the selector API
    }
  }
  adopter.markOurs(poly.mc);
  for (const [name, C] of Object.entries(poly.classes)) {
    if (!hasOwn(pageWin, name)) defineProperty(pageWin, name, { value: C, writable: true, configurable: true, enumerable: false });
  }
  // document.modelContext as the browser has it: a getter on
  // Document.prototype (assigning to it does nothing, or throws in strict
  // code); a page that defines its own on the document keeps it.
  const getter = {
    get modelContext() {
      return this === pageDoc ? poly.mc : null;
    },
  };
  defineProperty(DocumentProto, 'modelContext', { ...getOwnPropertyDescriptor(getter, 'modelContext'), enumerable: true });
  adopter.watch(pageDoc);
  adopter.watch(pageNav);
  return { tools: poly.list };
}

const browserMC = findNative();
const own = browserMC ? installNative(browserMC) : installPolyfill();
// Firefox's own navigator.modelContext: its tools are read (adopt.js), ahead
// of any the page registers. A page runtime's own object is not read for
// tools (adopt.js says why).
const navigatorMC = findNavigatorNative();
if (navigatorMC) adopter.adoptNow(navigatorMC);

// This document's tools in order of precedence: the document's own context
// (native or polyfill), then Firefox's own navigator.modelContext.
const bridge = createBridge({
  tools: () => adopter.addTools(own.tools()),
  beforeLook: adopter.checkReplaced,
  providerDefs: providers.defs,
  sample: providers.sample,
  prepare: own.refresh,
  visible: () => !visibilityState || apply(visibilityState, pageDoc, []) === 'visible',
});
changes.listen({
  changed: bridge.sync,
  providersChanged: bridge.syncProviders,
  contextChanged: () => bridge.post({ type: 'contextChanged' }),
});
// The DOM event type by which the relay hears, synchronously, of dialogs
// and of what the witness saw (the handover names it).
let dialogEvent = '';
// The init dictionary has no prototype and the text is made without
// toJSON (jsonText): a page's getters on Object.prototype (bubbles,
// toJSON, …) see none of it.
function tellRelay(detail) {
  if (!dialogEvent || !CustomEventCtor) return;
  apply(dispatch, pageWin, [new CustomEventCtor(dialogEvent, { __proto__: null, detail: jsonText(detail) })]);
}
listenForHandover(pageWin, (port, data) => {
  const name = data[DIALOG_EVENT];
  if (typeof name === 'string') dialogEvent = name;
  if (witness && dialogEvent) {
    // The isolated world's word to the witness, synchronously too.
    apply(addListener, pageWin, [dialogEvent + ':in', (e) => {
      try {
        witness.hearCalls(parseBare(detailOf(e)));
      } catch {
        // not ours
      }
    }]);
    witness.retell();
  }
  bridge.connect(port);
});

// alert, confirm and prompt block the page's thread: the relay hears of
// one synchronously, with the tools not reported yet (the channel is not
// read while the dialog is up), so that the worker can answer for the frame.
if (CustomEventCtor) {
  watchDialogs({
    win: pageWin,
    notify(open, kind, text) {
      if (!dialogEvent) return;
      const detail = open ? { open, kind, text } : { open };
      if (open) detail.tools = bridge.current();
      tellRelay(detail);
    },
  });
}

// A page polyfill that replaced an accessor is noticed when the tools are
// looked at; look a few times early in the page's life too.
const recheck = () => {
  adopter.checkReplaced();
  changes.changed();
};
apply(addListener, pageDoc, ['DOMContentLoaded', recheck, { once: true }]);
apply(addListener, pageWin, ['load', () => {
  recheck();
  timeout(recheck, 500);
  timeout(recheck, 2000);
}, { once: true }]);
