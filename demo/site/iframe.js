// An embedded frame with one tool, so that tests can check which frame a
// tool comes from (same-origin and cross-origin frames alike). Embedded in
// another page, it also registers a context provider, demo.Frame#host, so
// that the context of a tab merges its frames; on its own it registers none.
'use strict';

(function () {
  const status = document.getElementById('status');
  const mc = document.modelContext || navigator.modelContext;
  if (!mc) {
    status.textContent = 'WebMCP is not available here.';
    return;
  }
  const text = 'from frame ' + location.host;
  mc.registerTool({
    name: 'frame_tool',
    title: 'Frame tool',
    description: 'Says which frame (host and port) answered. Takes no input.',
    inputSchema: { type: 'object', properties: {} },
    annotations: { readOnlyHint: true },
    execute: () => text,
  }).then(
    () => { status.textContent = 'frame_tool registered.'; },
    (e) => { status.textContent = 'frame_tool failed to register: ' + e.message; },
  );
  if (window.top !== window && typeof mc.registerContextProvider === 'function') {
    mc.registerContextProvider({
      id: 'demo.Frame#host',
      description: 'The embedded frame of the demo app: "host" is the host and port it was loaded from.',
      getContext: () => ({ summary: text, data: { host: location.host } }),
    }).catch((e) => { status.textContent += ' Its context provider failed to register: ' + e.message; });
  }
})();
