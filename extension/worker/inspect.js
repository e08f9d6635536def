// The inspector's requests (the panel's Tools section), through uiapi.js:
//
//   inspect/tools {tabId}   the tab's tools as the page registered them and
//                           as an agent gets them, whether an agent's call
//                           asks first, and the warnings (lib/inspectview.js)
//   tool/try {tabId, frameId, name, arguments}
//                           run the tool once in the page, as the user:
//                           through the router's own path to the frame
//                           (CallRouter.runForUser), without the consent
//                           window (the user is who acts), logged in the
//                           activity log as run by the user. Answers
//                           {result: {text, isError, structured?}, output}
//                           or {error: {code, message}}, with ms, the time
//                           taken as the worker saw it (for display), and
//                           the warnings of the result (output-mismatch).
//
// The user's calls get ids of their own ("user.N"), never a shim's, and
// their answers go to the panel only, never to the host.

import { resultView } from '../lib/agentview.js';
import { T } from '../lib/protocol.js';
import { inspectTab } from '../lib/inspectview.js';
import { frameKey } from '../lib/registry.js';
import { outputMismatch } from '../lib/toolwarnings.js';

/** Who the activity log says ran a call made in the inspector. */
export const BY_USER = 'you (inspector)';

/** How long a tried call may run before it is cancelled (ms): a guard, the page may hold it. */
export const TRY_TIMEOUT = 5 * 60 * 1000;

const isPlainObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;

/** Inspector answers the panel's inspector requests. */
export class Inspector {
  /**
   * @param {object} o
   * @param {import('../lib/registry.js').Registry} o.registry
   * @param {import('./routing.js').CallRouter} o.router
   * @param {import('./consent.js').Consent} [o.consent] whether an agent's call asks first
   * @param {{now: () => number, setTimeout: Function, clearTimeout: Function}} o.clock
   */
  constructor({ registry, router, consent, clock }) {
    Object.assign(this, { registry, router, consent, clock });
    this.seq = 0;
  }

  /** Registers the requests on the UI door. */
  listen(ui) {
    ui.on('inspect/tools', (m) => this.tools(m));
    ui.on('tool/try', (m) => this.try(m));
  }

  tools({ tabId }) {
    if (!Number.isSafeInteger(tabId)) throw new Error('inspect/tools: say which tab (tabId)');
    const asks = (site, tool, tabOrigin) => !!this.consent && this.consent.needs(site, tool, tabOrigin);
    return inspectTab(this.registry, tabId, { asks });
  }

  async try({ tabId, frameId, name, arguments: args }) {
    if (!Number.isSafeInteger(tabId) || !Number.isSafeInteger(frameId)) throw new Error('tool/try: say which tab and frame (tabId, frameId)');
    if (typeof name !== 'string' || name === '') throw new Error('tool/try: say which tool (name)');
    if (!isPlainObject(args)) throw new Error('tool/try: the arguments must be a JSON object');
    const id = `user.${++this.seq}`;
    const started = this.clock.now();
    const timer = this.clock.setTimeout(() => this.router.cancel(id), TRY_TIMEOUT);
    let answer;
    try {
      answer = await this.router.runForUser({ id, tabId, frameId, name, arguments: args }, BY_USER);
    } finally {
      this.clock.clearTimeout(timer);
    }
    const ms = Math.max(0, this.clock.now() - started);
    if (answer.type !== T.result) {
      const e = answer.error || {};
      return { id, ms, error: { code: e.code || 'internal', message: e.message || 'the call failed' }, warnings: [] };
    }
    const result = resultView(answer.output);
    const f = this.registry.frames.get(frameKey(tabId, frameId));
    const tool = f && f.tools.get(name);
    const w = tool && !result.isError ? outputMismatch(tool, result.structured) : null;
    return { id, ms, result, output: answer.output === undefined ? null : answer.output, warnings: w ? [w] : [] };
  }
}
