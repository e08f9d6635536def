// An embedded frame with one tool, so that tests can check which frame a
// tool comes from (same-origin and cross-origin frames alike).
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
})();
