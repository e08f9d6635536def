// Limits of UI context, and the capping of one context provider's snapshot:
// how big a summary, a description and data may be, and what travels instead
// when a provider's data is bigger than that.
//
// The extension is the side that cuts (testdata/limits/uicontext.json holds
// the numbers, which test/snapshot.test.js and the shim's Go tests check):
// the shim guards with the same limits and so passes what is cut here on
// unchanged.
//
// Used in every context: the relay (content/isolated/) caps what the page's
// world sampled before it crosses to the worker; the worker
// (lib/contexts.js) checks it again, as it trusts no frame; the page's world
// (content/main/providers.js) takes the provider-id rule and the most
// providers per document from here.

import { utf8Length } from './utf8.js';

/** The largest data of one provider, as UTF-8 JSON text, that travels as it is. */
export const MAX_DATA_BYTES = 4096;
/** How much of the JSON text of bigger data travels as a preview (UTF-8 bytes). */
export const PREVIEW_BYTES = 1024;
/** What the cut data says about itself. */
export const TRUNCATED_NOTE = "data over 4 KiB was cut: call the page's tools for the rest";
/** Longest summary (plain language, one line in a chip), in UTF-16 code units. */
export const MAX_SUMMARY_CHARS = 500;
/** Longest description (the invariant explanation, said once). */
export const MAX_DESCRIPTION_CHARS = 2000;
/** Longest note (why a provider was left out). */
export const MAX_NOTE_CHARS = 300;
/** Longest provider id. */
export const MAX_PROVIDER_ID_CHARS = 200;
/** The most context providers one document may register. */
export const MAX_PROVIDERS = 64;
/**
 * Provider ids ("plugin.Thing#sub", a repeated surface appending an instance
 * key): 1 to 200 characters, not only white space, no control characters.
 */
export const PROVIDER_ID_PATTERN = /^(?=[^]*\S)[^\u0000-\u001f\u007f-\u009f]{1,200}$/;

/** Reports whether id is a valid context provider id. */
export function isValidProviderId(id) {
  return typeof id === 'string' && PROVIDER_ID_PATTERN.test(id);
}

/** The longest start of s of at most max UTF-8 bytes, never half a surrogate pair. */
export function cutBytes(s, max) {
  let n = 0;
  let i = 0;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    let w = 3;
    let step = 1;
    if (c < 0x80) w = 1;
    else if (c < 0x800) w = 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      w = 4;
      step = 2;
    }
    if (n + w > max) break;
    n += w;
    i += step;
  }
  return s.slice(0, i);
}

/**
 * Cuts text to at most max UTF-16 code units, ending with "…" when it was
 * cut, never in the middle of a surrogate pair.
 */
export function cutText(s, max) {
  if (s.length <= max) return s;
  let end = max - 1;
  const c = s.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  return s.slice(0, end) + '…';
}

/**
 * Cuts text to at most max Unicode code points, ending with "…" when it
 * was cut (the ambient context's rule, content/isolated/ambient.js).
 */
export function cutCodePoints(s, max) {
  if (s.length <= max) return s;
  const chars = Array.from(s);
  if (chars.length <= max) return s;
  return chars.slice(0, max - 1).join('') + '…';
}

/**
 * The data to send for a provider whose data serialises to the JSON text
 * json: the data itself while the text has at most MAX_DATA_BYTES bytes of
 * UTF-8, else the cut marker {truncated: true, bytes: <the text's size>,
 * preview: <the text's first PREVIEW_BYTES bytes>, note: TRUNCATED_NOTE},
 * the shape the shim's guard (shim/uicontext.Cut) writes too.
 */
export function capData(json) {
  const bytes = utf8Length(json);
  if (bytes <= MAX_DATA_BYTES) return JSON.parse(json);
  return { truncated: true, bytes, preview: cutBytes(json, PREVIEW_BYTES), note: TRUNCATED_NOTE };
}

/**
 * Builds a ProviderSnapshot (the protocol's shape) from what the page's
 * world sampled: {id, description?, summary?, json?, note?, stale?}, json
 * being the data's JSON text; stale says why an answer is not fresh (a tool
 * sampled as context that did not answer in time: lib/contexttools.js).
 * It returns null for something that is not a snapshot.
 * Everything is cut to its limit here.
 */
export function fromSample(raw) {
  if (raw === null || typeof raw !== 'object' || !isValidProviderId(raw.id)) return null;
  const out = { id: raw.id };
  if (typeof raw.description === 'string' && raw.description !== '') {
    out.description = cutText(raw.description, MAX_DESCRIPTION_CHARS);
  }
  if (typeof raw.note === 'string' && raw.note !== '') {
    out.note = cutText(raw.note, MAX_NOTE_CHARS);
    return out;
  }
  out.summary = cutText(typeof raw.summary === 'string' ? raw.summary : '', MAX_SUMMARY_CHARS);
  if (typeof raw.json === 'string') {
    try {
      out.data = capData(raw.json);
    } catch {
      out.note = 'data is not JSON';
      delete out.summary;
      return out;
    }
  }
  if (typeof raw.stale === 'string' && raw.stale !== '') out.stale = cutText(raw.stale, MAX_NOTE_CHARS);
  return out;
}

/**
 * Checks a ProviderSnapshot that a frame sent (the worker trusts no frame):
 * the same limits, data re-capped from its JSON text. It returns null for
 * something that is not a snapshot.
 */
export function checkSnapshot(p) {
  if (p === null || typeof p !== 'object') return null;
  let json;
  if (p.data !== undefined) {
    try {
      json = JSON.stringify(p.data);
    } catch {
      json = undefined;
    }
  }
  return fromSample({ id: p.id, description: p.description, summary: p.summary, note: p.note, json, stale: p.stale });
}
