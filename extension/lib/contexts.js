// UI context in the service worker: the checks of what frames report (their
// context providers and their latest samples), the merge of a tab's frames
// into one protocol Context, and the key that tells whether a context
// changed. Pure: no chrome.* calls.
//
// Frame messages (relay -> worker):
//   {type:"providers", providers:[{id, description?}]}   the frame's registered providers
//   {type:"context", id?, providers:[ProviderSnapshot], ambient?}   its latest sample;
//        with id when it answers the worker's {type:"sample", id}

import * as S from './snapshot.js';

/**
 * The most code points of a focused element's role, name or tag that are
 * kept (the page cuts a name to 100, content/isolated/ambient.js; roles and tags are
 * short). testdata/limits/uicontext.json: elementFieldChars.
 */
export const MAX_ELEMENT_FIELD = 120;
/**
 * The most code points of a selection that are kept: the page's own cut
 * (content/isolated/ambient.js), checked again. testdata/limits/uicontext.json:
 * selectionChars.
 */
export const MAX_SELECTION = 300;

function isPlainObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * Checks a frame's list of registered providers: [{id, description?}] with
 * valid, distinct ids (the first wins), at most MAX_PROVIDERS.
 */
export function normalizeProviderDefs(list) {
  const out = [];
  const seen = new Set();
  if (!Array.isArray(list)) return out;
  for (const p of list) {
    if (out.length >= S.MAX_PROVIDERS) break;
    if (!isPlainObject(p) || !S.isValidProviderId(p.id) || seen.has(p.id)) continue;
    seen.add(p.id);
    const d = { id: p.id };
    if (typeof p.description === 'string' && p.description !== '') d.description = S.cutText(p.description, S.MAX_DESCRIPTION_CHARS);
    out.push(d);
  }
  return out;
}

/** Checks ambient context: {selection?, selectionCut?, focused?: {role?, name?, tag?}}, or undefined. */
export function normalizeAmbient(a) {
  if (!isPlainObject(a)) return undefined;
  const out = {};
  if (typeof a.selection === 'string' && a.selection !== '') {
    out.selection = S.cutCodePoints(a.selection, MAX_SELECTION);
    if (a.selectionCut === true || out.selection !== a.selection) out.selectionCut = true;
  }
  if (isPlainObject(a.focused)) {
    const f = {};
    for (const k of ['role', 'name', 'tag']) {
      if (typeof a.focused[k] === 'string' && a.focused[k] !== '') f[k] = S.cutCodePoints(a.focused[k], MAX_ELEMENT_FIELD);
    }
    if (Object.keys(f).length) out.focused = f;
  }
  return Object.keys(out).length ? out : undefined;
}

/**
 * Checks a frame's context message: {providers: [ProviderSnapshot], ambient?}.
 * Snapshots are re-capped (lib/snapshot.js); repeated ids keep the first.
 * Ambient is kept only for a top frame.
 */
export function normalizeFrameContext(m, top) {
  const providers = [];
  const seen = new Set();
  if (isPlainObject(m) && Array.isArray(m.providers)) {
    for (const raw of m.providers) {
      if (providers.length >= S.MAX_PROVIDERS) break;
      const p = S.checkSnapshot(raw);
      if (!p || seen.has(p.id)) continue;
      seen.add(p.id);
      providers.push(p);
    }
  }
  const ctx = { providers };
  const ambient = top && isPlainObject(m) ? normalizeAmbient(m.ambient) : undefined;
  if (ambient) ctx.ambient = ambient;
  return ctx;
}

/**
 * Merges the frames of one tab into a protocol Context (without time).
 * tab is the protocol Tab; frames are {frameId, providers: [{id}], context:
 * {providers, ambient?} | null}, only those whose context may leave the
 * browser, and toolSnapshots?: the snapshots of its tools sampled as
 * context (lib/contexttools.js), which come after its providers.
 * Providers come in frame order (frame id, the top frame first) and
 * registration order; a snapshot whose provider the frame no longer lists
 * (it was unregistered since the sample) is left out, as is an id that an
 * earlier frame has already. Ambient comes from the top frame.
 * excluded ({providers: Set<string>, ambient: boolean}, or null: what the
 * user excluded for the tab's site, lib/exclusions.js) is left out: this is
 * where an excluded provider stops, before anything is sent.
 */
export function mergeContext(tab, frames, excluded = null) {
  const ctx = { tabId: tab.id };
  if (tab.url) ctx.url = tab.url;
  if (tab.title) ctx.title = tab.title;
  const providers = [];
  const seen = new Set();
  let ambient;
  const take = (p) => {
    if (seen.has(p.id)) return;
    seen.add(p.id);
    if (excluded && excluded.providers.has(p.id)) return;
    providers.push(p);
  };
  for (const f of [...frames].sort((a, b) => a.frameId - b.frameId)) {
    if (f.context) {
      const registered = new Set(f.providers.map((p) => p.id));
      for (const p of f.context.providers) if (registered.has(p.id)) take(p);
      if (f.frameId === 0 && f.context.ambient && !(excluded && excluded.ambient)) ambient = f.context.ambient;
    }
    for (const p of f.toolSnapshots || []) take(p);
  }
  // The protocol's field order (testdata/protocol/context.json): providers, then ambient.
  if (providers.length) ctx.providers = providers;
  if (ambient) ctx.ambient = ambient;
  return ctx;
}

/** The key under which a context is compared with the last one sent: all but its time. */
export function contextKey(ctx) {
  const { time, ...rest } = ctx; // eslint-disable-line no-unused-vars
  return JSON.stringify(rest);
}
