// The bridge's isolated-world relay: a content script in every frame, at
// document_start, loaded after lib/snapshot.js, lib/ambient.js,
// lib/indicator.js and lib/relay.js (which put their functions on this world's
// globalThis.webmcpLib; the page cannot see this world). It starts the relay
// (lib/relay.js) with this frame's window, document and chrome.
(function webmcpBridgeRelay() {
  'use strict';

  const lib = globalThis.webmcpLib;
  lib.relay.start({
    window,
    document,
    location,
    chrome,
    MessageChannel,
    lib,
    clock: {
      now: () => Date.now(),
      setTimeout: (fn, ms) => setTimeout(fn, ms),
      clearTimeout: (t) => clearTimeout(t),
    },
  });
})();
