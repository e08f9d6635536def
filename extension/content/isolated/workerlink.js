// The relay's Port to the service worker (runtime.connect, named
// PORT_NAME): opened when the frame has something to offer, opened again
// when the worker restarts (at once after a long-lived Port, with a growing
// back-off while it keeps failing), given up when the extension went away
// (this script is then an orphan). Every new Port gets the frame's latest
// whole-list messages first.

import { PORT_NAME } from '../../lib/protocol.js';

/** The longest wait before opening the Port again, in ms. */
export const MAX_BACKOFF = 30000;
// A Port that lived this long was fine: the next one opens at once.
const LIVED = 5000;

/**
 * Makes the link of one frame. o: chrome, document, clock {now,
 * setTimeout}; hasContent() whether the frame has anything to offer;
 * latest() the messages every new Port starts with; onMessage(m) a message
 * from the worker; onLost() the Port closed; onDead() the extension went
 * away for good. Returns {send(m), connect(), connected()}.
 */
export function workerLink({ chrome, document, clock, hasContent, latest, onMessage, onLost, onDead }) {
  let worker = null;
  let connectedAt = 0;
  let backoff = 0;
  let timer = 0;
  let dead = false;

  function send(m) {
    if (!worker) return;
    try {
      worker.postMessage(m);
    } catch {
      onDisconnect();
    }
  }

  function connect() {
    if (worker || dead || timer) return;
    if (document.prerendering) {
      document.addEventListener('prerenderingchange', connect, { once: true });
      return;
    }
    let p;
    try {
      p = chrome.runtime.connect({ name: PORT_NAME });
    } catch {
      dead = true; // the extension was reloaded or removed: this script is an orphan
      onDead();
      return;
    }
    worker = p;
    connectedAt = clock.now();
    p.onMessage.addListener(onMessage);
    p.onDisconnect.addListener(() => {
      if (worker === p) onDisconnect();
    });
    for (const m of latest()) send(m);
  }

  function onDisconnect() {
    void chrome.runtime.lastError;
    worker = null;
    onLost();
    if (!chrome.runtime || !chrome.runtime.id) {
      dead = true;
      onDead();
      return;
    }
    if (!hasContent()) return;
    // The worker restarts (it was stopped, or it crashed): connect again at
    // once after a long-lived connection, and back off when it keeps failing.
    const lived = clock.now() - connectedAt;
    backoff = lived > LIVED ? 0 : Math.min(Math.max(backoff * 2, 100), MAX_BACKOFF);
    if (backoff === 0) {
      connect(); // no timer: timers of background tabs are throttled
      return;
    }
    timer = clock.setTimeout(() => {
      timer = 0;
      connect();
    }, backoff);
  }

  return { send, connect, connected: () => worker !== null };
}
