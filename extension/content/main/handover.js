// The private channel: the isolated-world relay posts one message to its own
// window at start, carrying its end of a MessageChannel. This listener is the
// first on the window (no page script has run yet); it takes the port, hides
// the message from the page, and ignores any later one.

import { HANDOVER } from '../../lib/protocol.js';
import { addListener, apply, hasOwn, isObject, portsOf, removeListener, sourceOf, dataOf, stopImmediate } from '../source/builtins.js';

/**
 * Calls onPort(port, data) with the port of the first handover that win
 * posted to itself, and its data (the relay's fields: DIALOG_EVENT). The
 * event is read through the getters taken at start (builtins.js), and the
 * data's own fields only, so that a page's getters see none of it.
 */
export function listenForHandover(win, onPort) {
  let taken = false;
  function onHandover(e) {
    if (taken) return;
    let d;
    let port;
    try {
      if (sourceOf(e) !== win) return;
      d = dataOf(e);
      if (!isObject(d) || !hasOwn(d, HANDOVER) || d[HANDOVER] !== 1) return;
      const ports = portsOf(e);
      port = ports && hasOwn(ports, 0) ? ports[0] : null;
    } catch {
      return; // not a MessageEvent: not the relay's
    }
    if (!port) return;
    apply(stopImmediate, e, []);
    apply(removeListener, win, ['message', onHandover, true]);
    taken = true;
    onPort(port, d);
  }
  apply(addListener, win, ['message', onHandover, true]);
}
