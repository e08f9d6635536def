// The isolated world's entry (bundled into generated/isolated-world.js, which the
// manifest loads in every frame at document_start, after the page's world's
// generated/main-world.js): starts the relay (relay.js) with this frame's window,
// document and chrome. The page cannot see this world.

import { LATE_FLAG, RELAY_FLAG } from '../../lib/protocol.js';
import * as snapshot from '../../lib/snapshot.js';
import * as ambient from './ambient.js';
import * as indicator from './indicator.js';
import { start } from './relay.js';

// Once per document: the worker may inject this script into a document
// that was open before its site was allowed (worker/opentabs.js), and
// that document may have got it meanwhile.
if (globalThis[RELAY_FLAG] !== true) {
  globalThis[RELAY_FLAG] = true;
  start({
    late: globalThis[LATE_FLAG] === true,
    window,
    document,
    location,
    chrome,
    MessageChannel,
    lib: { snapshot, ambient, indicator },
    clock: {
      now: () => Date.now(),
      setTimeout: (fn, ms) => setTimeout(fn, ms),
      clearTimeout: (t) => clearTimeout(t),
    },
  });
}
