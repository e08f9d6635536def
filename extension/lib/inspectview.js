// The inspector's view of a tab's tools (the panel's Tools section): for
// every tool of every frame, what the page registered and, beside it, what
// an agent gets (lib/agentview.js: its MCP name among the tools of every
// allowed tab, the description with provenance, the schemas as sent),
// whether an agent's call asks the user first, and the warnings
// (lib/toolwarnings.js). Pure: asks is the worker's consent.needs.

import { webOrigin } from './allowlist.js';
import { agentTool, hostOrder, mcpNames } from './agentview.js';
import { wireTool } from './protocol.js';
import { toolWarnings } from './toolwarnings.js';

/** What the panel says of the names it shows: the shim alone knows them for sure. */
export const NAMES_APPROXIMATE = 'Names as one agent sees this browser\'s allowed tabs now. An agent connected to several browsers, ' +
  'or one that saw another tab take the name first, may see a suffixed name (name_2).';

/** The tools the host sees now, in its order, as wire tools (with changed), and the wire tabs by id. */
export function sharedTools(registry) {
  const tabs = new Map();
  for (const t of registry.tabs.values()) {
    const w = registry.wireTab(t);
    if (w) tabs.set(t.id, w);
  }
  const out = [];
  for (const f of registry.frames.values()) {
    const tab = tabs.get(f.tabId);
    if (!tab || !tab.allowed || !registry.allows(f.origin)) continue;
    for (const tool of f.tools.values()) {
      // The shim leaves debugging tools out unless asked (WEBMCP_DEBUGGING_TOOLS).
      if (tool.annotations && tool.annotations.debugging === true) continue;
      const w = wireTool(f.tabId, f.frameId, f.origin, tool);
      if (registry.prints && registry.prints.changed(f.origin, tool)) w.changed = true;
      out.push(w);
    }
  }
  out.sort(hostOrder);
  return { tools: out, tabs };
}

/**
 * The inspector's view of tab tabId: {tabId, notes, tools: [...]}, one
 * entry per tool of its frames in frame order: {frameId, name, origin,
 * page: {title, description, inputSchema, outputSchema, annotations},
 * agent: {name, tool, problem, refused, outputProblem} or null (not
 * shared: the site is off), asks, warnings}.
 * asks(frameOrigin, tool, tabOrigin): whether an agent's call waits for the user.
 */
export function inspectTab(registry, tabId, { asks = () => false } = {}) {
  const t = registry.tabs.get(tabId);
  const view = { tabId, notes: [NAMES_APPROXIMATE], tools: [] };
  if (!t) return view;
  const tabOrigin = webOrigin(t.url);
  const { tools: shared, tabs } = sharedTools(registry);
  const names = mcpNames(shared);
  const nameOf = new Map(shared.map((w, i) => [`${w.tabId}/${w.frameId}/${w.name}`, names[i]]));
  const frames = [...registry.frames.values()].filter((f) => f.tabId === tabId).sort((a, b) => a.frameId - b.frameId);
  for (const f of frames) {
    for (const tool of f.tools.values()) {
      const w = wireTool(f.tabId, f.frameId, f.origin, tool);
      if (registry.prints && registry.prints.changed(f.origin, tool)) w.changed = true;
      const name = nameOf.get(`${tabId}/${f.frameId}/${tool.name}`);
      let agent = null;
      if (name !== undefined) agent = { name, ...agentTool(w, tabs.get(tabId)) };
      const sameNameTabs = [...new Set(shared.filter((s) => s.name === tool.name && s.tabId !== tabId).map((s) => s.tabId))];
      let ask = false;
      try {
        ask = !!asks(f.origin, tool, tabOrigin);
      } catch {
        // no consent part: never asks
      }
      view.tools.push({
        frameId: f.frameId,
        name: tool.name,
        origin: f.origin,
        page: {
          title: tool.title || '',
          description: tool.description || '',
          inputSchema: tool.inputSchema ?? null,
          outputSchema: tool.outputSchema ?? null,
          annotations: tool.annotations ?? null,
        },
        agent,
        asks: ask,
        warnings: toolWarnings(w, { mcpName: name, sameNameTabs }),
      });
    }
  }
  return view;
}
