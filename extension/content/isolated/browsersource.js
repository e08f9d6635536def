// The isolated world's own source of tools (native mode): where the
// browser has its own document.modelContext, this world lists its tools and
// runs the calls (browserwebmcp.js), with the same reporting and answering as the
// page's world (content/source/bridge.js), linked to the relay by function
// calls (a microtask each way) instead of a MessageChannel.

import { createBridge } from '../source/bridge.js';
import { isNativeModelContext, useNative } from './browserwebmcp.js';
import { createWitness } from './witness.js';

/**
 * The native source of a frame, or null where the browser has no WebMCP of
 * its own (the page's world then has the polyfill).
 * @param {object} o
 * @param {object} o.window
 * @param {object} o.document
 * @param {(m: object) => void} o.onMessage  the source's messages to the relay
 * @returns {null | {tellOn(type: string): void, send(m: object): void, current(): object[], witness: ReturnType<typeof createWitness>}}
 */
export function createNativeSource({ window, document, onMessage }) {
  let mc;
  try {
    mc = document.modelContext;
  } catch {
    return null;
  }
  if (!isNativeModelContext(mc)) return null;
  // The page world's witness hears of this world's calls on the
  // handover's DOM event type with ":in" (synchronously: it runs inside
  // dispatchEvent); until the relay names the type, nothing is told.
  let toPage = '';
  const witness = createWitness((m) => {
    if (toPage) window.dispatchEvent(new CustomEvent(toPage, { detail: JSON.stringify(m) }));
  });
  // The tool names that the document's <form toolname> elements declare.
  const declaredNames = () => {
    const names = new Set();
    try {
      for (const f of document.querySelectorAll('form[toolname]')) names.add(f.getAttribute('toolname'));
    } catch {
      // no DOM yet
    }
    return names;
  };
  let bridge = null;
  const native = useNative({ mc, win: window, doc: document, declaredNames, witness, changed: () => bridge && bridge.sync() });
  bridge = createBridge({
    tools: () => native.tools(),
    beforeLook: () => {},
    providerDefs: () => [],
    sample: (done) => done([]),
    prepare: native.refresh,
    visible: () => document.visibilityState === undefined || document.visibilityState === 'visible',
  });
  // A microtask each way: neither side runs inside the other's call.
  const receive = bridge.attach((m) => queueMicrotask(() => onMessage(m)));
  return {
    /** Names the DOM event type of the page world's witness (the handover's). */
    tellOn(type) {
      toPage = `${type}:in`;
    },
    send: (m) => queueMicrotask(() => receive(m)),
    current: () => bridge.current(),
    witness,
  };
}
