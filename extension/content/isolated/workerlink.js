// The relay's Port to the service worker (runtime.connect, named
// PORT_NAME): opened when the frame has something to offer, opened again
// when the worker restarts (at once after a long-lived Port, with a growing
// back-off while it keeps failing), given up when the extension went away
// (this script is then an orphan). Every new Port gets the frame's latest
// whole-list messages first.
//
// The Port is a link (lib/link.js): a message sent with its JSON (text) goes
// as chunks when that is over MAX_WHOLE bytes, and the messages sent between
// hold() and release() go as one batch (but for those over BATCH_ONE_MAX
// units, which go alone); a batch from the worker reaches onMessage one
// message at a time, between batchHooks.hold() and release().

import { MAX_WHOLE } from '../../lib/chunks.js';
import { BATCH_MAX, BATCH_ONE_MAX, createLink } from '../../lib/link.js';
import { PORT_NAME } from '../../lib/protocol.js';

/** The longest wait before opening the Port again, in ms. */
export const MAX_BACKOFF = 30000;
// A Port that lived this long was fine: the next one opens at once.
const LIVED = 5000;

/**
 * Makes the link of one frame. o: chrome, document, clock {now,
 * setTimeout}; hasContent() whether the frame has anything to offer;
 * latest() the messages every new Port starts with; onMessage(m, inBatch) a
 * message from the worker; batchHooks {hold, release} told when the
 * messages of a batch from the worker begin and end; onLost() the Port
 * closed; onDead() the extension went away for good. Returns {send(m,
 * {text}), hold(), release(), connect(), connected()}.
 */
export function workerLink({ chrome, document, clock, hasContent, latest, onMessage, batchHooks, onLost, onDead }) {
  let worker = null;
  let connectedAt = 0;
  let backoff = 0;
  let timer = 0;
  let dead = false;

  // Only what comes with its JSON is measured (results: the relay writes
  // their output's JSON to check it against MAX_RESULT).
  const link = createLink((m) => {
    if (!worker) return false;
    try {
      worker.postMessage(m);
      return true;
    } catch {
      onDisconnect();
      return false;
    }
  }, { maxWhole: MAX_WHOLE, chunkPrefix: 'r', oneMax: BATCH_ONE_MAX, batchMax: BATCH_MAX, measure: () => false, batchHooks });
  link.onMessage(onMessage);
  const send = (m, opts) => {
    link.send(m, opts);
  };

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
    link.reset();
    p.onMessage.addListener((m) => link.receive(m));
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

  return { send, hold: link.hold, release: link.release, connect, connected: () => worker !== null };
}
