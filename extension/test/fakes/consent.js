// Helpers of the ask-before-acting and activity tests: a worker whose tab 3
// (localhost) offers tools with and without hints, and the requests of the
// extension's own pages (uiapi.js) as a page sends them.

import assert from 'node:assert/strict';
import { bootWorker, drain, LOCAL, localTab } from './worker.js';

export const ID = 'ofcjadafodbdmmpbkmmngnegabkmkjai';
export const PAGE = { id: ID, url: `chrome-extension://${ID}/ui/consent.html` };

/** Asks the worker what an extension page asks; resolves to {ok, value|error}. */
export function ask(chrome, msg, sender = PAGE) {
  return new Promise((resolve) => {
    const async = chrome.runtime.onMessage.listeners.some((fn) => fn(msg, sender, resolve) === true);
    if (!async) resolve(undefined);
  });
}

export const TOOLS = [
  { name: 'act', description: 'acts', inputSchema: { type: 'object' } },
  { name: 'peek', description: 'reads', annotations: { readOnlyHint: true } },
  { name: 'commit', description: 'consequential', annotations: { consequentialHint: true } },
  { name: 'wipe', description: 'destructive', annotations: { destructiveHint: true } },
];

/** A worker with tab 3 on localhost offering TOOLS; ask: the site's setting ('never' is the default). */
export async function withTools({ askMode, tabs = [localTab(3)], ...opts } = {}) {
  const w = await bootWorker({ tabs, ...opts });
  const frame = w.chrome.connectFrame({ tabId: 3, frameId: 0, url: `${LOCAL}/page3` });
  frame.deliver({ type: 'tools', tools: TOOLS });
  await drain();
  if (askMode) {
    const r = await ask(w.chrome, { type: 'siteSettings.set', origin: LOCAL, ask: askMode });
    assert.equal(r.ok, true, r.error);
  }
  await w.clock.advance(10);
  w.host.take();
  frame.take();
  return { ...w, frame };
}

