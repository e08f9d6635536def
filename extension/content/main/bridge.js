// The bridge's side of the private channel: it reports this document's tools
// and context providers to the relay, and runs the calls and samples that come
// back. Messages on the port (main <-> relay):
//
//   main -> relay  {type:"tools", tools:[{name, title?, description, inputSchema?, outputSchema?, annotations?}]}
//                  {type:"result", id, output}   {type:"error", id, error:{code, message}}
//                       (code: tool_error, not_found, or navigated when the call navigated the page)
//                  {type:"providers", providers:[{id, description?}]}   on every change
//                  {type:"contextChanged"}   the page says its context changed
//                  {type:"sampled", id, providers:[{id, description?, summary?, json?, note?}]}
//                       (json: the data's JSON text; note: why a provider was left out;
//                       a provider that returned undefined is absent)
//   relay -> main  {type:"call", id, name, arguments}   {type:"cancel", id}
//                  {type:"cancelAll"}   {type:"sync"}   {type:"sample", id}

import { AbortCtl, isObject, jsonStringify, postTo } from './builtins.js';
import { errorCode, errorText, toJSONValue } from './tools.js';

// The relay takes a document without a providers message to have none.
const NO_PROVIDERS = '[]';

/**
 * @param {object} o
 * @param {() => Map<string, {meta: object, run(input: object, signal: AbortSignal): Promise<unknown>}>} o.tools
 *   this document's tools, by name, as they are now
 * @param {() => void} o.beforeLook  runs before the tools are looked at
 *   (it notices a page's own modelContext defined over ours)
 * @param {() => Array<{id: string, description?: string}>} o.providerDefs
 * @param {(done: (providers: object[]) => void) => void} o.sample  samples the providers
 * @param {() => void} [o.onConnect]  runs when the port arrives, before the first report
 */
export function createBridge({ tools, beforeLook, providerDefs, sample, onConnect }) {
  let port = null;
  let lastSent = '';
  let lastProviders = NO_PROVIDERS;
  /** @type {Map<string, AbortController>} */
  const inflight = new Map();

  function post(msg) {
    if (port) postTo(port, msg);
  }

  // Sends the tools and the providers where they differ from what was sent.
  function sync() {
    beforeLook();
    if (!port) return;
    const metas = [];
    for (const e of tools().values()) metas.push(e.meta);
    const json = jsonStringify(metas);
    if (json !== lastSent) {
      // A report that cannot be posted (a value the structured clone
      // refuses) is tried again at the next look, never given up.
      try {
        post({ type: 'tools', tools: metas });
        lastSent = json;
      } catch {
        lastSent = '';
      }
    }
    const defs = providerDefs();
    const pjson = jsonStringify(defs);
    if (pjson !== lastProviders) {
      lastProviders = pjson;
      post({ type: 'providers', providers: defs });
    }
  }

  async function handleCall(m) {
    const { id, name } = m;
    if (typeof id !== 'string') return;
    beforeLook();
    const entry = tools().get(name);
    if (!entry) {
      post({ type: 'error', id, error: { code: 'not_found', message: `this page has no tool ${jsonStringify(String(name))} (any more)` } });
      return;
    }
    const ctl = new AbortCtl();
    inflight.set(id, ctl);
    let value;
    try {
      value = await entry.run(isObject(m.arguments) ? m.arguments : {}, ctl.signal);
    } catch (err) {
      if (inflight.get(id) !== ctl) return; // cancelled: the worker answered already
      inflight.delete(id);
      post({ type: 'error', id, error: { code: errorCode(err), message: errorText(err) } });
      return;
    }
    if (inflight.get(id) !== ctl) return;
    inflight.delete(id);
    let output;
    try {
      output = toJSONValue(value);
    } catch (err) {
      post({ type: 'error', id, error: { code: 'tool_error', message: `the tool's result is not JSON: ${errorText(err)}` } });
      return;
    }
    post({ type: 'result', id, output });
  }

  function onPortMessage(e) {
    const m = e.data;
    if (!isObject(m)) return;
    switch (m.type) {
      case 'call':
        handleCall(m);
        break;
      case 'cancel': {
        const ctl = inflight.get(m.id);
        if (ctl) {
          inflight.delete(m.id);
          ctl.abort();
        }
        break;
      }
      case 'cancelAll': {
        const all = [...inflight.values()];
        inflight.clear();
        for (const ctl of all) ctl.abort();
        break;
      }
      case 'sync':
        lastSent = '';
        lastProviders = NO_PROVIDERS;
        sync();
        break;
      case 'sample': {
        const id = m.id;
        sample((list) => post({ type: 'sampled', id, providers: list }));
        break;
      }
    }
  }

  return {
    /** Takes the relay's port (once) and reports at once. */
    connect(p) {
      if (port) return;
      port = p;
      port.onmessage = onPortMessage;
      lastSent = '';
      lastProviders = NO_PROVIDERS;
      if (onConnect) onConnect();
      sync();
    },
    sync,
    post,
  };
}
