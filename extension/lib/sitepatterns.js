// Site access as the browser keeps it: the extension's host permissions
// are the allowed sites. The loopback hosts are the manifest's required
// host_permissions (granted at install); every other site is an optional
// host permission the user grants with the browser's own prompt
// (chrome.permissions.request, on a click in the panel or the consent
// window) or in the browser's extension settings. What the browser cannot
// say, "this one origin is off although a broader grant covers it" (the
// required loopback grants cannot be taken back), is a block kept in
// chrome.storage.local under BLOCKS_KEY: a block only ever hides a site.
//
// This module translates between the browser's match patterns
// ("http://localhost/*", "https://*.example.com/*", "http://127.0.0.2:8080/*")
// and the allow-list patterns of lib/allowlist.js ("http://localhost:*",
// "https://*.example.com:*", "http://127.0.0.2:8080"), which the registry,
// the panel and the list of sites use. A match pattern without a port
// matches every port (Chromium; Firefox ignores ports), so it reads as
// "host:*".

import { DEFAULT_ALLOW_LIST, parsePattern, webOrigin } from './allowlist.js';

/** The key of the blocks ("!origin" entries, without the "!") in chrome.storage.local. */
export const BLOCKS_KEY = 'siteBlocks';

/** The key of the sites an earlier version allowed that the browser has not granted yet. */
export const PENDING_KEY = 'sitesToGrant';

/** The ids of the registered content scripts: the page's world, then the relay. */
export const SCRIPT_IDS = Object.freeze({ main: 'webmcp-main', isolated: 'webmcp-isolated' });

/**
 * The allow-list pattern ("http://localhost:*") of a browser match pattern
 * ("http://localhost/*"), or '' for one that names no web site (another
 * scheme, a file pattern).
 */
export function fromMatchPattern(mp) {
  if (mp === '<all_urls>') return '*://*:*';
  const m = /^(\*|https?):\/\/(\[[0-9A-Fa-f:.]+\]|[^/:]+)(?::(\d{1,5}|\*))?\/.*$/.exec(String(mp));
  if (!m) return '';
  const [, scheme, host, port = '*'] = m;
  return `${scheme}://${host}:${port}`;
}

/**
 * The browser match pattern of an allow-list pattern, the widest the
 * browser can say for it: a pattern for the scheme's default port only
 * becomes one for every port of the host (a match pattern cannot name a
 * port as "the default one"). Throws as parsePattern does.
 */
export function toMatchPattern(pattern) {
  const p = parsePattern(pattern);
  const host = p.host === '*' ? '*' : `${p.subdomains ? '*.' : ''}${p.host}`; // IPv6 keeps its brackets
  const port = p.port === '' || p.port === '*' ? '' : `:${p.port}`;
  return `${p.scheme}://${host}${port}/*`;
}

/**
 * The match pattern to ask the browser for when the user allows one site
 * (an origin): its host and port, or every port of the host for an origin
 * on the scheme's default port. Throws for anything but an http(s) origin.
 */
export function originMatchPattern(origin) {
  const o = webOrigin(origin);
  if (o === '') throw new Error(`${JSON.stringify(origin)} is not the origin of a web page (http or https); only web sites can be allowed`);
  return `${o}/*`;
}

/**
 * The allow list that the browser's grants (the origins of
 * chrome.permissions.getAll()) and the stored blocks make, in the form of
 * lib/allowlist.js: the grants, then "!block" for each block. Grants that
 * name no web site are left out.
 */
export function siteList(origins, blocks) {
  const list = [];
  for (const mp of Array.isArray(origins) ? origins : []) {
    const p = fromMatchPattern(mp);
    if (p !== '' && !list.includes(p)) list.push(p);
  }
  for (const b of blocksFrom(blocks)) if (!list.includes(`!${b}`)) list.push(`!${b}`);
  return list;
}

/** The stored blocks, as a list of patterns (anything else stored: none). */
export function blocksFrom(stored) {
  return Array.isArray(stored) ? stored.filter((b) => typeof b === 'string' && b !== '') : [];
}

/**
 * Where the content scripts go for an allow list: {matches, excludeMatches}
 * (browser match patterns). The browser injects them only where it also
 * holds a host permission, which the allow list's grants are.
 */
export function registrationFor(list) {
  const matches = [];
  const excludeMatches = [];
  for (const entry of list) {
    const blocked = entry.startsWith('!');
    let mp;
    try {
      mp = toMatchPattern(blocked ? entry.slice(1) : entry);
    } catch {
      continue;
    }
    const into = blocked ? excludeMatches : matches;
    if (!into.includes(mp)) into.push(mp);
  }
  return { matches: matches.sort(), excludeMatches: excludeMatches.sort() };
}

/**
 * The content scripts to register for an allow list: the page's world
 * script (generated/main-world.js) first, then the relay (generated/isolated-world.js),
 * both in every frame at document_start; none when nothing is allowed.
 * fallback: whether the browser takes matchOriginAsFallback (frames of
 * about:blank, blob: and data: URLs count as their creator's site).
 */
export function scriptsFor(list, { fallback = true } = {}) {
  const { matches, excludeMatches } = registrationFor(list);
  if (matches.length === 0) return [];
  const common = {
    matches, allFrames: true, runAt: 'document_start', persistAcrossSessions: true,
    ...(excludeMatches.length ? { excludeMatches } : {}),
    ...(fallback ? { matchOriginAsFallback: true } : {}),
  };
  return [
    { id: SCRIPT_IDS.main, js: ['generated/main-world.js'], world: 'MAIN', ...common },
    { id: SCRIPT_IDS.isolated, js: ['generated/isolated-world.js'], ...common },
  ];
}

/**
 * Migrates an allow list stored by an earlier version (lib/allowlist.js's
 * STORAGE_KEY) given what the browser grants now (allows: the compiled
 * allow list of the grants): its blocks stay blocks; its other entries
 * that the grants do not cover are returned as pending (the browser must
 * grant them on the user's click: the panel offers it); a loopback default
 * the user had removed becomes a block (the browser's grant of it cannot
 * be taken back). Returns {blocks, pending}.
 */
export function migrate(stored, grantedAllows) {
  const blocks = [];
  const pending = [];
  const list = Array.isArray(stored) ? stored : [];
  for (const d of DEFAULT_ALLOW_LIST) if (!list.includes(d)) blocks.push(d);
  for (const entry of Array.isArray(stored) ? stored : []) {
    if (typeof entry !== 'string') continue;
    if (entry.startsWith('!')) {
      blocks.push(entry.slice(1));
      continue;
    }
    let p;
    try {
      p = parsePattern(entry);
    } catch {
      continue;
    }
    // A pattern for one origin is covered when that origin is allowed; a
    // wider one (a wildcard, any port) is kept for the user to grant.
    const exact = p.host !== '*' && !p.subdomains && p.port !== '*' && p.scheme !== '*';
    if (exact && grantedAllows(`${p.scheme}://${p.host}${p.port ? `:${p.port}` : ''}`)) continue;
    if (!exact && isLoopbackDefault(entry)) continue;
    pending.push(entry);
  }
  return { blocks, pending };
}

const LOOPBACK_DEFAULTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** Whether an allow-list pattern is one of the loopback defaults (any port, http or https). */
function isLoopbackDefault(entry) {
  const m = /^(https?):\/\/(\[::1\]|[^/:]+):\*\/?$/.exec(entry);
  return !!m && LOOPBACK_DEFAULTS.has(m[2]);
}
