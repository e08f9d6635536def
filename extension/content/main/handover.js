// The private channel: the isolated-world relay posts one message to its own
// window at start, carrying its end of a MessageChannel. This listener is the
// first on the window (no page script has run yet); it takes the port, hides
// the message from the page, and ignores any later one.

import { HANDOVER } from '../../lib/protocol.js';
import { addListener, apply, isObject, removeListener, stopImmediate } from '../frame/builtins.js';

/**
 * Calls onPort(port, data) with the port of the first handover that win
 * posted to itself, and its data (the relay's fields: DIALOG_EVENT).
 */
export function listenForHandover(win, onPort) {
  let taken = false;
  function onHandover(e) {
    if (taken || e.source !== win) return;
    const d = e.data;
    if (!isObject(d) || d[HANDOVER] !== 1 || !e.ports || !e.ports[0]) return;
    apply(stopImmediate, e, []);
    apply(removeListener, win, ['message', onHandover, true]);
    taken = true;
    onPort(e.ports[0], d);
  }
  apply(addListener, win, ['message', onHandover, true]);
}
