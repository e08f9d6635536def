// A fake frame for the relay (content/isolated/relay.js): window, document and location
// just big enough for it, a MessageChannel whose ports deliver as promise
// jobs, and the relay's chrome (a fakeChrome). startRelay starts the real
// relay in it and returns the page's side: mainPort (what main.js holds),
// the worker Ports it opened, and the document's listeners.

import * as relay from '../../content/isolated/relay.js';
import * as snapshot from '../../lib/snapshot.js';
import { fakeChrome } from './chrome.js';
import { FakeClock } from './clock.js';

class FakeMessagePort {
  constructor() {
    this.peer = null;
    this.onmessage = null;
    this.received = [];
  }

  postMessage(m) {
    const data = JSON.parse(JSON.stringify(m));
    const peer = this.peer;
    queueMicrotask(() => {
      peer.received.push(data);
      if (peer.onmessage) peer.onmessage({ data });
    });
  }

  /** The messages received since last asked. */
  take() {
    const out = this.received;
    this.received = [];
    return out;
  }
}

export class FakeMessageChannel {
  constructor() {
    this.port1 = new FakeMessagePort();
    this.port2 = new FakeMessagePort();
    this.port1.peer = this.port2;
    this.port2.peer = this.port1;
  }
}

/** Listeners by type, with add and remove as the DOM has them (capture flag ignored). */
class FakeTarget {
  constructor() {
    this.listeners = new Map();
  }

  addEventListener(type, fn) {
    if (!this.listeners.has(type)) this.listeners.set(type, new Set());
    this.listeners.get(type).add(fn);
  }

  removeEventListener(type, fn) {
    this.listeners.get(type)?.delete(fn);
  }

  /** The types that have listeners now. */
  types() {
    return [...this.listeners].filter(([, s]) => s.size).map(([t]) => t).sort();
  }

  dispatch(type, event = {}) {
    for (const fn of [...(this.listeners.get(type) || [])]) fn({ type, ...event });
  }
}

/**
 * Starts the relay in a fake frame. opts: top (default true), protocol
 * (default "http:"), ambient (what ambientOf returns), prerendering,
 * indicator (a lib.indicator for the relay: {create(document)}).
 */
export function startRelay({ top = true, protocol = 'http:', ambient = { selection: 'picked' }, prerendering = false, indicator } = {}) {
  const chrome = fakeChrome();
  const clock = new FakeClock();
  const window = new FakeTarget();
  window.top = top ? window : {};
  window.handovers = [];
  window.postMessage = (data, origin, transfer) => window.handovers.push({ data, origin, transfer });
  const document = new FakeTarget();
  document.prerendering = prerendering;
  const lib = {
    snapshot,
    ambient: { ambientOf: () => (typeof ambient === 'function' ? ambient() : ambient) },
  };
  if (indicator) lib.indicator = indicator;
  relay.start({ window, document, location: { protocol }, chrome, MessageChannel: FakeMessageChannel, lib, clock: clock.api });
  const mainPort = window.handovers[0]?.transfer?.[0];
  return {
    chrome, clock, window, document, mainPort,
    /** The worker Port the relay opened last. */
    get worker() {
      return chrome.runtime.connects.at(-1);
    },
  };
}

export { relay };
