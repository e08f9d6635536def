// Context the user excluded: per site (the tab's top origin), the context
// providers whose snapshots must never leave the browser, and whether the
// ambient context (selection, focused element) must not. Kept in
// chrome.storage.local under EXCLUSIONS_KEY as
//   {"https://example.com": {"providers": ["trace.Timeline#selection"], "ambient": true}}
// The worker applies them where a tab's frames are merged into the Context
// that goes to the host (lib/contexts.js mergeContext), and where pins go
// out (worker/pins.js). Pure: each function returns a new value.

import { webOrigin } from './allowlist.js';

/** The key of the exclusions in chrome.storage.local. */
export const EXCLUSIONS_KEY = 'contextExclusions';

/** The most providers excluded per site (more than a document may register). */
const MAX_PER_SITE = 256;

function isPlainObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * The exclusions that storage holds, checked: a Map from origin to
 * {providers: Set<string>, ambient: boolean}; sites with nothing excluded
 * are left out. Garbage gives an empty Map.
 */
export function exclusionsFrom(stored) {
  const out = new Map();
  if (!isPlainObject(stored)) return out;
  for (const [key, v] of Object.entries(stored)) {
    const origin = webOrigin(key);
    if (origin === '' || !isPlainObject(v)) continue;
    const providers = new Set(
      (Array.isArray(v.providers) ? v.providers : []).filter((id) => typeof id === 'string' && id !== '').slice(0, MAX_PER_SITE),
    );
    const ambient = v.ambient === true;
    if (providers.size || ambient) out.set(origin, { providers, ambient });
  }
  return out;
}

/** What to store under EXCLUSIONS_KEY for a Map made by exclusionsFrom. */
export function storedExclusions(map) {
  const out = {};
  for (const [origin, e] of [...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const v = { providers: [...e.providers].sort() };
    if (e.ambient) v.ambient = true;
    out[origin] = v;
  }
  return out;
}

/**
 * Includes or excludes one provider (what.providerId) or the ambient context
 * (what.ambient true) of a site; returns a new Map.
 */
export function setIncluded(map, origin, what, include) {
  const o = webOrigin(origin);
  if (o === '') throw new Error(`${JSON.stringify(origin)} is not the origin of a web page; context is excluded per web site`);
  const isAmbient = what && what.ambient === true;
  if (!isAmbient && (!what || typeof what.providerId !== 'string' || what.providerId === '')) {
    throw new Error('say which context to include or exclude: a provider id, or the ambient context');
  }
  const next = new Map([...map].map(([k, v]) => [k, { providers: new Set(v.providers), ambient: v.ambient }]));
  const e = next.get(o) || { providers: new Set(), ambient: false };
  if (isAmbient) e.ambient = !include;
  else if (include) e.providers.delete(what.providerId);
  else if (e.providers.size >= MAX_PER_SITE) throw new Error(`${o} has ${MAX_PER_SITE} excluded providers already, the most kept: include some first`);
  else e.providers.add(what.providerId);
  if (e.providers.size || e.ambient) next.set(o, e);
  else next.delete(o);
  return next;
}

/** The exclusions of a site (an origin or a URL), or null when nothing of it is excluded. */
export function excludedFor(map, originOrURL) {
  return map.get(webOrigin(originOrURL)) || null;
}

/** Whether a provider of a site (an origin or URL) is excluded. */
export function isExcluded(map, originOrURL, providerId) {
  const e = excludedFor(map, originOrURL);
  return !!(e && e.providers.has(providerId));
}
