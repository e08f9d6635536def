// Starts the real service worker (worker/worker.js) against a fake chrome
// and a fake clock, and gives a test the handles it needs: the host's end
// of the native Port, frames connecting, and the worker's warnings.

import { startWorker } from '../../worker/worker.js';
import { fakeChrome } from './chrome.js';
import { FakeClock, drain } from './clock.js';

export const LOCAL = 'http://localhost:8765';

/** A tab of the default allow list (localhost). */
export function localTab(id, extra = {}) {
  return { id, windowId: 1, active: false, url: `${LOCAL}/page${id}`, title: `page ${id}`, ...extra };
}

/**
 * Boots the worker. opts go to fakeChrome (tabs, storage, focusedWindow);
 * settle: also let the first state go out (default true); patch(chrome):
 * changes the fake before the worker starts.
 */
export async function bootWorker({ settle = true, patch, ...opts } = {}) {
  const chrome = fakeChrome({ storage: { instance: 'inst-1' }, ...opts });
  if (patch) patch(chrome);
  const clock = new FakeClock();
  const warnings = [];
  const log = { info() {}, warn: (...a) => warnings.push(a.join(' ')) };
  const navigator = { userAgent: 'Mozilla/5.0 Chrome/156.0.1.2 Safari/537.36' };
  const crypto = { randomUUID: () => 'uuid-1' };
  const worker = startWorker({ chrome, navigator, crypto, clock: clock.api, log });
  await worker.started;
  if (settle) await clock.advance(1000);
  return { chrome, clock, worker, warnings, host: chrome.native };
}

/** Connects a frame that reports tools; returns its Port. */
export async function frameWithTools(chrome, tabId, names, { frameId = 0, url = `${LOCAL}/page${tabId}` } = {}) {
  const port = chrome.connectFrame({ tabId, frameId, url });
  port.deliver({ type: 'tools', tools: names.map((name) => ({ name, description: `${name} tool`, inputSchema: { type: 'object' } })) });
  await drain();
  return port;
}

export { drain };
