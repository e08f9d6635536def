// Ask-before-acting, the pure part: each site's setting (when a call of one
// of its tools waits for the user's consent, and whether the page shows
// that an agent is using it), which calls need consent, how long a call may
// wait for the user, and how the consent window shows a call's arguments.
// The worker's consent.js keeps the settings and the queue; no chrome.* here.
//
// Settings live in chrome.storage.local under SETTINGS_KEY as
// {"<origin>": {"ask": "acting" | "consequential" | "never", "indicator": bool}};
// a site without an entry has the defaults: "never" on the loopback
// defaults (localhost, 127.0.0.1, [::1], any port), "acting" elsewhere, and
// the indicator on. Grants "until the browser closes" live in
// chrome.storage.session under GRANTS_KEY as ["<origin> <tool>", …].

import { originParts, webOrigin } from './allowlist.js';

/** The key of the site settings in chrome.storage.local. */
export const SETTINGS_KEY = 'siteSettings';

/** The key of this browser session's grants in chrome.storage.session. */
export const GRANTS_KEY = 'consentGrants';

/** When a site's calls wait for the user. */
export const Ask = Object.freeze({
  acting: 'acting', // every tool that is not read-only
  consequential: 'consequential', // tools the page marks consequentialHint or destructiveHint
  never: 'never',
});

const ASKS = new Set(Object.values(Ask));

/** The hosts whose sites never ask unless the user says so. */
export const LOOPBACK_HOSTS = Object.freeze(['localhost', '127.0.0.1', '[::1]']);

/** Whether origin is one of the loopback defaults (any scheme of http(s), any port). */
export function isLoopbackDefault(origin) {
  const o = webOrigin(origin);
  if (o === '') return false;
  return LOOPBACK_HOSTS.includes(originParts(o).hostname);
}

/** The default setting of a site. */
export function defaultSettings(origin) {
  return { ask: isLoopbackDefault(origin) ? Ask.never : Ask.acting, indicator: true };
}

/** A site's setting given what storage holds (anything invalid: the defaults). */
export function settingsOf(stored, origin) {
  const d = defaultSettings(origin);
  const o = webOrigin(origin);
  const s = o && stored && typeof stored === 'object' && !Array.isArray(stored) ? stored[o] : undefined;
  if (!s || typeof s !== 'object') return d;
  return {
    ask: ASKS.has(s.ask) ? s.ask : d.ask,
    indicator: typeof s.indicator === 'boolean' ? s.indicator : d.indicator,
  };
}

/**
 * The stored settings with origin's changed by patch ({ask?, indicator?}).
 * Throws an Error that says what is wrong with the origin or the values.
 */
export function withSettings(stored, origin, patch) {
  const o = webOrigin(origin);
  if (o === '') throw new Error(`${JSON.stringify(String(origin))} is not the origin of an http(s) site`);
  const next = stored && typeof stored === 'object' && !Array.isArray(stored) ? { ...stored } : {};
  const cur = settingsOf(next, o);
  if (patch.ask !== undefined) {
    if (!ASKS.has(patch.ask)) throw new Error(`ask must be one of ${[...ASKS].join(', ')}, not ${JSON.stringify(patch.ask)}`);
    cur.ask = patch.ask;
  }
  if (patch.indicator !== undefined) {
    if (typeof patch.indicator !== 'boolean') throw new Error('indicator must be true or false');
    cur.indicator = patch.indicator;
  }
  next[o] = cur;
  return next;
}

/** Whether the page marks tool read-only. */
export function isReadOnly(tool) {
  return !!(tool && tool.annotations && tool.annotations.readOnlyHint === true);
}

/** Whether the page marks tool consequential (consequentialHint, or destructiveHint). */
export function isConsequential(tool) {
  return !!(tool && (tool.consequential === true || (tool.annotations && tool.annotations.destructiveHint === true)));
}

/**
 * Whether the bridge takes tool as read-only: the page marks it readOnlyHint
 * and neither consequentialHint nor destructiveHint (either of which
 * overrides read-only: such a tool asks as a consequential one).
 */
export function readsOnly(tool) {
  return isReadOnly(tool) && !isConsequential(tool);
}

/** How strict each setting is: acting asks for more than consequential, which asks for more than never. */
const STRICTNESS = Object.freeze({ [Ask.never]: 0, [Ask.consequential]: 1, [Ask.acting]: 2 });

/**
 * The stricter of two settings: a tool in a frame of another site than
 * its tab's asks as the stricter of the frame's site and the tab's site
 * says, so that a page of a site that never asks cannot frame one that
 * does to act on it without asking (nor the other way round).
 */
export function stricterAsk(a, b) {
  return (STRICTNESS[b] ?? 0) > (STRICTNESS[a] ?? 0) ? b : a;
}

/**
 * Whether a call of tool (a normalised tool: lib/protocol.js) asks the user
 * under setting ask. Read-only tools never ask, unless also marked
 * consequential or destructive (readsOnly).
 */
export function needsConsent(ask, tool) {
  if (readsOnly(tool)) return false;
  if (ask === Ask.acting) return true;
  if (ask === Ask.consequential) return isConsequential(tool);
  return false;
}

/**
 * The key of a grant "until the browser closes": the site of the frame that
 * owns the tool, its name, and the fingerprint of its definition when given
 * (lib/toolprints.js): a grant for one definition does not cover another.
 */
export function grantKey(origin, name, print) {
  return print ? `${webOrigin(origin)} ${name} ${print}` : `${webOrigin(origin)} ${name}`;
}

/**
 * How long a call whose caller waits timeout ms may wait for the user: a
 * little less, so that the decline reaches the caller before it gives up
 * (a tenth of it, at least 200 ms and at most 1 s; half of a very short
 * one). Infinity when the call says nothing.
 */
export function consentWait(timeout) {
  if (!Number.isSafeInteger(timeout) || timeout <= 0) return Infinity;
  if (timeout < 400) return Math.floor(timeout / 2);
  return timeout - Math.min(1000, Math.max(200, Math.floor(timeout / 10)));
}

/** The longest a string value of the arguments is shown before it is folded. */
export const FOLD_AT = 200;

/**
 * The arguments as the consent window shows them: pretty-printed JSON in
 * which every string longer than FOLD_AT characters is cut, with the count
 * of characters left out, and the whole text cut at max characters.
 * Returns {text, folded} (folded: something was cut).
 */
export function foldArguments(args, max = 4000) {
  let folded = false;
  let text;
  try {
    text = JSON.stringify(args ?? {}, (k, v) => {
      if (typeof v === 'string' && v.length > FOLD_AT) {
        folded = true;
        return `${v.slice(0, FOLD_AT)}… (${v.length - FOLD_AT} more characters)`;
      }
      return v;
    }, 2);
  } catch (e) {
    return { text: `(arguments that cannot be shown: ${e.message})`, folded: true };
  }
  if (text === undefined) text = 'null';
  if (text.length > max) {
    folded = true;
    text = `${text.slice(0, max)}\n… (${text.length - max} more characters)`;
  }
  return { text, folded };
}
