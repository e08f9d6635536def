// A polyfill of the WebMCP draft's document.modelContext, for browsers
// without their own: the ModelContext class (registerTool, getTools,
// executeTool, the older provideContext, clearContext and unregisterTool,
// the toolchange, toolactivated and toolcancel events and their on*
// handlers) and one instance of it. It knows nothing of the bridge but what
// it is given: it says when its tools change, and lists them with a way to
// run each. This module holds a document's state (its instance, forms,
// policy and links) and wires the polyfill's parts together: the class
// (modelcontext.js), its calls (calls.js, execute.js), the list the bridge
// reads (listing.js), its declarative tools (forms.js), and its frame tree
// (framedom.js, policy.js, remote.js, handle.js, links.js, sameorigin.js).

import { defineProperty, queueTask as defaultQueueTask, resolved } from '../../source/builtins.js';
import { callForm, createCalls } from './calls.js';
import { defineToolEvents } from './events.js';
import { readToolInput } from './execute.js';
import { createFormTools } from './forms.js';
import { frameDomOf } from './framedom.js';
import { shareWithFrames } from './handle.js';
import { bridgeList } from './listing.js';
import { defineModelContext } from './modelcontext.js';
import { startPolicy } from './policy.js';
import { frameWithTool, runInFrame, startLinks, tellFrames } from './remote.js';
import { defineSubmitAdditions } from './submit.js';

/**
 * @param {object} o
 * @param {object} o.win  the window: getTools() lists it and its origin
 * @param {() => void} o.changed  the tools changed
 * @param {(proto: object, ok: (that: unknown) => boolean) => void} [o.addContextApi]
 *   puts the context-provider API on ModelContext.prototype
 * @param {(fn: () => void) => void} [o.queueTask]  queues a task (toolchange fires in one)
 * @param {{dom: object, start(forms: object): void, submitProto?: object}} [o.declarative]
 *   declarative tools (<form toolname>): the DOM as forms.js uses it
 *   (formdom.js), and SubmitEvent.prototype to add agentInvoked and
 *   respondWith to; without it, there are none
 * @param {() => boolean} [o.takesText]  whether executeTool also takes its input as JSON
 *   text of an object, as Chromium took it before 156 (index.js: once a page runtime
 *   that took the polyfill for the browser's own put its object on the document)
 * @returns {{mc: object, classes: {ModelContext: Function, ToolActivatedEvent: Function, ToolCancelEvent: Function},
 *   list(): Map<string, {meta: object, run(input: object, signal?: AbortSignal): Promise<unknown>}>}}
 */
export function definePolyfill({ win, changed, addContextApi, queueTask: queueATask = defaultQueueTask, declarative, takesText, bridgeAt }) {
  /** @type {WeakMap<object, {tools: Map<string, object>, handlers: Map<string, Function>}>} */
  const internals = new WeakMap();
  const { ToolActivatedEvent, ToolCancelEvent } = defineToolEvents();
  const { fireTool, queueChange, invoke } = createCalls({
    win, queueTask: queueATask, events: { ToolActivatedEvent, ToolCancelEvent }, instance: () => instance,
  });

  // This document's tools changed: tell the bridge, and the same-origin
  // frames, whose lists hold them too.
  function changedHere() {
    changed();
    if (links) links.resend();
    tellFrames(win);
  }

  function remove(mc, inner, rec) {
    if (inner.tools.get(rec.name) !== rec) return false;
    inner.tools.delete(rec.name);
    changedHere();
    queueChange(mc);
    return true;
  }

  // Declarative tools: the document's <form toolname> elements.
  let instance = null;
  let forms = null;
  if (declarative) {
    forms = createFormTools({
      dom: declarative.dom,
      submits: defineSubmitAdditions(declarative.submitProto),
      changed: () => {
        if (!policy.known && policy.ask && forms && forms.list().size) policy.ask();
        changedHere();
        if (instance) queueChange(instance);
      },
      activated: (name) => fireTool(instance, ToolActivatedEvent, 'toolactivated', name),
      cancelled: (name) => fireTool(instance, ToolCancelEvent, 'toolcancel', name),
      queueTask: queueATask,
    });
  }
  const runForm = (name, input, signal, nullOnNavigation) => callForm(forms, name, input, signal, nullOnNavigation);

  // This document's own tools (registered, then its forms') as records
  // that view() lists.
  function ownTools() {
    if (!policy.allowed) return [];
    const inner = internals.get(instance);
    const out = Array.from(inner.tools.values());
    if (forms) {
      for (const t of forms.list().values()) {
        if (!inner.tools.has(t.name)) out.push({ name: t.name, description: t.description, inputSchema: t.inputSchema });
      }
    }
    return out;
  }

  const { ModelContext, createInstance } = defineModelContext({
    win,
    internals,
    forms,
    policy: () => policy,
    changedHere,
    queueChange,
    remove,
    invoke,
    runForm,
    ownTools,
    findRemote: (name, toolWin, origin) => frameWithTool(win, name, toolWin, origin),
    runRemote: runInFrame,
    readInput: (input) => readToolInput(input, takesText),
  });

  // The permissions policy "tools" of this document (policy.js): allowed
  // until startPolicy() below says otherwise.
  let policy = { known: true, allowed: true, ready: resolved(true) };
  let links = null;

  // The page's built-ins for frame elements, taken now.
  const frameDom = frameDomOf(win);

  // The context-provider API, shared with the browser's own ModelContext.
  if (addContextApi) addContextApi(ModelContext.prototype, (that) => internals.has(that));

  const classes = { ModelContext, ToolActivatedEvent, ToolCancelEvent };
  for (const [name, C] of Object.entries(classes)) {
    defineProperty(C.prototype, Symbol.toStringTag, { value: name, configurable: true });
  }

  instance = createInstance();
  if (forms) declarative.start(forms);
  links = startLinks({
    win,
    frameDom,
    policy: () => policy,
    remoteChanged: () => {
      queueChange(instance);
      tellFrames(win);
    },
    bridgeAt,
  });
  policy = startPolicy({ win, frameDom, links, forms, changedHere });
  shareWithFrames({ win, internals, instance, forms, links, policy, ownTools, invoke, runForm, queueChange });
  return {
    mc: instance,
    classes,
    // This document's tools: name -> {meta, run(input, signal)}.
    list: bridgeList({ internals, instance: () => instance, forms, policy: () => policy, invoke, runForm }),
  };
}
