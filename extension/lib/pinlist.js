// Pinned context: frozen snapshots of context providers that the user (or an
// agent, through the pin request) parked, kept until unpinned. The extension
// owns them and keeps them in chrome.storage.local under PINS_KEY, so that
// they survive worker restarts and navigation: as JSON text (storedPins),
// because chrome.storage re-orders the keys of objects it stores, and a
// pin's data should read as the page wrote it. These are the store's pure
// operations; each returns a new value and leaves its input alone.

import * as S from './snapshot.js';

/** The key of the pins in chrome.storage.local. */
export const PINS_KEY = 'pins';

/** The most pins kept; pinning more is refused until some are unpinned. */
export const MAX_PINS = 64;

function isPlainObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * Checks one stored pin and returns a clean copy, or null when it is not a
 * pin: {providerId, description?, summary, data?, tabId, url?, title?, pinnedAt}.
 */
export function checkPin(p) {
  if (!isPlainObject(p) || !S.isValidProviderId(p.providerId)) return null;
  if (!Number.isSafeInteger(p.tabId) || !Number.isSafeInteger(p.pinnedAt)) return null;
  const out = { providerId: p.providerId };
  if (typeof p.description === 'string' && p.description !== '') out.description = S.cutText(p.description, S.MAX_DESCRIPTION_CHARS);
  out.summary = typeof p.summary === 'string' ? S.cutText(p.summary, S.MAX_SUMMARY_CHARS) : '';
  if (p.data !== undefined) {
    let json;
    try {
      json = JSON.stringify(p.data);
    } catch {
      json = undefined;
    }
    if (json !== undefined) out.data = S.capData(json);
  }
  out.tabId = p.tabId;
  if (typeof p.url === 'string' && p.url !== '') out.url = p.url;
  if (typeof p.title === 'string' && p.title !== '') out.title = p.title;
  out.pinnedAt = p.pinnedAt;
  return out;
}

/** What to store under PINS_KEY for pins: their JSON text. */
export function storedPins(pins) {
  return JSON.stringify(pins);
}

/**
 * The pins that chrome.storage.local holds under PINS_KEY (JSON text, or an
 * array), checked: anything that is not a pin is dropped, and of two pins of
 * one provider the later wins. Nothing stored, or garbage, gives [].
 */
export function pinsFrom(stored) {
  if (typeof stored === 'string') {
    try {
      stored = JSON.parse(stored);
    } catch {
      return [];
    }
  }
  if (!Array.isArray(stored)) return [];
  let pins = [];
  for (const raw of stored) {
    const p = checkPin(raw);
    if (p) pins = [...pins.filter((q) => q.providerId !== p.providerId), p];
  }
  return pins.slice(-MAX_PINS);
}

/**
 * Builds the pin of one provider's snapshot (a protocol ProviderSnapshot)
 * sampled in a tab (the protocol Context it came in) at time now.
 */
export function makePin(snapshot, ctx, now) {
  const pin = { providerId: snapshot.id };
  if (snapshot.description) pin.description = snapshot.description;
  pin.summary = snapshot.summary || '';
  if (snapshot.data !== undefined) pin.data = snapshot.data;
  pin.tabId = ctx.tabId;
  if (ctx.url) pin.url = ctx.url;
  if (ctx.title) pin.title = ctx.title;
  pin.pinnedAt = now;
  return pin;
}

/**
 * Adds a pin; a pin of the same provider is replaced (the new one goes to
 * the end). It returns {pins}, or {error} when MAX_PINS pins of other
 * providers are kept already.
 */
export function addPin(pins, pin) {
  const rest = pins.filter((p) => p.providerId !== pin.providerId);
  if (rest.length >= MAX_PINS) {
    return { error: `${rest.length} snapshots are pinned already, the most the bridge keeps: unpin some first` };
  }
  return { pins: [...rest, pin] };
}

/**
 * Removes the pins of providerId, or every pin when providerId is null or
 * undefined. It returns {pins, removed} (how many went).
 */
export function removePins(pins, providerId) {
  const keep = providerId == null ? [] : pins.filter((p) => p.providerId !== providerId);
  return { pins: keep, removed: pins.length - keep.length };
}
