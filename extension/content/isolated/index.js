// The isolated world's entry (bundled into content/isolated.js, which the
// manifest loads in every frame at document_start, after the page's world's
// content/main.js): starts the relay (relay.js) with this frame's window,
// document and chrome. The page cannot see this world.

import * as snapshot from '../../lib/snapshot.js';
import * as ambient from './ambient.js';
import * as indicator from './indicator.js';
import { start } from './relay.js';

start({
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
