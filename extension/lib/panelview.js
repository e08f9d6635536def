// What the extension's panel (ui/panel.html) shows of one tab, built from
// the registry: the site and whether it is allowed, the tools the tab offers,
// one chip per context provider (and one for the ambient selection and
// focused element) with the raw JSON an agent receives for it, and the pins.
// Pure: no chrome.* calls.
//
// A chip's raw text is made from the very snapshot object that the worker
// sends to the host in its context message, shaped as get_ui_context hands
// it to the agent: {id, summary, data} for a provider ({id, note} for one
// that could not be sampled; its description travels once, apart), and the
// ambient object as it is.

import { DEFAULT_ALLOW_LIST, webOrigin } from './allowlist.js';
import { mergeContext } from './contexts.js';
import { fingerprint } from './toolprints.js';

/** The chip id of the ambient context (not a provider id: it has its own switch). */
export const AMBIENT_CHIP = 'ambient';

/** What get_ui_context gives an agent of one provider snapshot, as JSON text. */
export function agentProviderJSON(p) {
  if (p.note) return JSON.stringify({ id: p.id, note: p.note });
  const v = { id: p.id };
  if (p.summary) v.summary = p.summary;
  if (p.data !== undefined) v.data = p.data;
  if (p.stale) v.stale = p.stale;
  return JSON.stringify(v);
}

/** A time (Unix ms) as the shim writes it: RFC 3339 in UTC, whole seconds. */
export function rfc3339(ms) {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** What get_ui_context gives an agent of a pin (in "pinned"), as JSON text. */
export function agentPinJSON(pin) {
  const v = { providerId: pin.providerId };
  if (pin.summary) v.summary = pin.summary;
  if (pin.data !== undefined) v.data = pin.data;
  v.tabId = pin.tabId;
  if (pin.url) v.url = pin.url;
  if (pin.title) v.title = pin.title;
  if (pin.pinnedAt > 0) v.pinnedAt = rfc3339(pin.pinnedAt);
  return JSON.stringify(v);
}

/** The ambient context in plain words: 'Selected text "…"; focused: button "Zoom in"'. */
export function ambientSummary(a) {
  const parts = [];
  if (a.selection) parts.push(`Selected text "${a.selection}${a.selectionCut ? '…' : ''}"`);
  if (a.focused) {
    const f = a.focused;
    const what = f.role || f.tag || 'element';
    parts.push(`focused: ${what}${f.name ? ` "${f.name}"` : ''}`);
  }
  return parts.join('; ');
}

/** The tools of a tab's frames, in frame order, each marked read-only or acting and shared or not. */
export function tabTools(registry, tabId, tabAllowed) {
  const out = [];
  const frames = [...registry.frames.values()].filter((f) => f.tabId === tabId).sort((a, b) => a.frameId - b.frameId);
  for (const f of frames) {
    for (const t of f.tools.values()) {
      const a = t.annotations || {};
      // The page changed its definition since it was first seen (lib/toolprints.js).
      const changed = !!registry.prints && registry.prints.changed(f.origin, t);
      out.push({
        name: t.name,
        title: t.title || '',
        description: t.description || '',
        readOnly: a.readOnlyHint === true,
        destructive: a.readOnlyHint !== true && a.destructiveHint !== false,
        frameId: f.frameId,
        origin: f.origin,
        shared: tabAllowed && registry.allows(f.origin),
        changed,
        // The fingerprint of the definition shown, which "Accept the new NAME" sends back.
        ...(changed ? { print: fingerprint(t) } : {}),
      });
      // A read-only tool without required arguments on a shared site can
      // go with every prompt (lib/contexttools.js): on, off or changed.
      const c = tabAllowed && registry.allows(f.origin) && typeof registry.contextToolState === 'function' ? registry.contextToolState(f.origin, t) : null;
      if (c) out[out.length - 1].context = { state: c.state, offered: c.offered };
    }
  }
  return out;
}

/**
 * The chips of a tab: its frames' context merged without exclusions (the
 * user sees everything, and each chip says whether it is sent), or [] when
 * the tab's context may not leave the browser.
 */
export function tabChips(registry, wire, excluded) {
  if (!wire || !wire.allowed) return [];
  const frames = registry.contextParts(wire.id);
  if (!frames.length || frames[0].frameId !== 0 || !frames[0].context) return [];
  const ctx = mergeContext(wire, frames, null);
  const fromTools = new Set(frames.flatMap((f) => f.toolSnapshots.map((p) => p.id)));
  const chips = [];
  for (const p of ctx.providers || []) {
    const chip = {
      id: p.id,
      kind: 'provider',
      // A page tool sampled as context (its answer), not a provider.
      tool: fromTools.has(p.id),
      summary: p.summary || '',
      included: !(excluded && excluded.providers.has(p.id)),
      raw: agentProviderJSON(p),
    };
    if (p.note) chip.note = p.note;
    if (p.stale) chip.stale = p.stale;
    if (p.description) chip.description = p.description;
    chips.push(chip);
  }
  if (ctx.ambient) {
    chips.push({
      id: AMBIENT_CHIP,
      kind: 'ambient',
      summary: ambientSummary(ctx.ambient),
      included: !(excluded && excluded.ambient),
      raw: JSON.stringify(ctx.ambient),
    });
  }
  return chips;
}

/** The allow list as the panel and the options page list it. */
export function siteEntries(list, pending = []) {
  return [
    ...list.map((entry) => ({
      entry,
      blocked: entry.startsWith('!'),
      isDefault: DEFAULT_ALLOW_LIST.includes(entry),
    })),
    ...pending.filter((entry) => !list.includes(entry)).map((entry) => ({ entry, blocked: false, isDefault: false, pending: true })),
  ];
}

/**
 * The panel's view of tab tabId (a chrome tab id; the focused tab when it is
 * not one). parts: registry, exclusions (origin -> exclusions or null), pins
 * (the stored list), shareable(pin), connected, agents (the connected list).
 */
export function panelState({ registry, tabId, excludedFor, pins, shareable, connected, agents }) {
  let t = Number.isSafeInteger(tabId) && tabId >= 0 ? registry.tabs.get(tabId) : null;
  if (!t && !(Number.isSafeInteger(tabId) && tabId >= 0)) {
    const f = registry.focusedTab();
    t = f ? registry.tabs.get(f.id) : null;
  }
  const state = {
    host: { connected: !!connected },
    agents,
    tab: null,
    site: null,
    tools: [],
    leftOut: [],
    chips: [],
    pins: pins.map((p) => ({
      providerId: p.providerId,
      summary: p.summary || '',
      url: p.url || '',
      title: p.title || '',
      tabId: p.tabId,
      pinnedAt: p.pinnedAt,
      shared: shareable(p),
      raw: agentPinJSON(p),
    })),
  };
  if (!t) return state;
  const origin = webOrigin(t.url);
  // hidden: the browser does not name the tab's URL (a site not allowed,
  // until the user clicks the toolbar button on it: activeTab).
  state.tab = { id: t.id, url: t.url || '', title: t.title || '', web: origin !== '', ...(t.url ? {} : { hidden: true }) };
  if (origin === '') return state;
  const wire = registry.wireTab(t);
  const excluded = excludedFor(origin);
  state.site = { origin, allowed: wire.allowed };
  state.tools = tabTools(registry, t.id, wire.allowed);
  // Tools the extension left out (a frame's caps, invalid ones), and why.
  state.leftOut = typeof registry.problems === 'function' ? registry.problems(t.id) : [];
  state.chips = tabChips(registry, wire, excluded);
  return state;
}
