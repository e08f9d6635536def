// Site access: which origins may hand their tools (and later their UI
// context) to agents outside the browser. The list is an array of pattern
// strings that worker/sites.js makes from the browser's host permissions
// and the stored blocks (lib/sitepatterns.js); earlier versions kept it in
// chrome.storage.local under STORAGE_KEY, which is migrated at start.
//
// A pattern is "scheme://host[:port]":
//   scheme  "http", "https", or "*" for either (nothing else is ever allowed)
//   host    an exact host name or IP literal ("localhost", "127.0.0.1",
//           "[::1]"), "*.example.com" for example.com and every subdomain,
//           or "*" for every host
//   port    a number, or "*" for any port; without a port only the scheme's
//           default port (80, 443) matches
// A trailing "/" is tolerated; paths, queries and user info are not.
// An entry "!pattern" blocks what the pattern matches, whatever else the
// list allows: the user turned a site off that a broader entry (the
// loopback defaults, "*.example.com") allows.

/** The key of an earlier version's allow list in chrome.storage.local (migrated by worker/sites.js). */
export const STORAGE_KEY = 'allowList';

/** The allow list used until the user changes it: loopback on any port. */
export const DEFAULT_ALLOW_LIST = Object.freeze([
  'http://localhost:*',
  'https://localhost:*',
  'http://127.0.0.1:*',
  'https://127.0.0.1:*',
  'http://[::1]:*',
  'https://[::1]:*',
]);

const DEFAULT_PORTS = { http: '80', https: '443' };

/**
 * Parses one allow-list pattern. It returns {scheme, host, subdomains, port}
 * (port is "*", "" for the default port, or digits) and throws an Error that
 * says how to write the pattern when it cannot be parsed.
 */
export function parsePattern(pattern) {
  if (typeof pattern !== 'string') throw new Error('an allow-list entry must be a string like "https://example.com"');
  const text = pattern.trim().replace(/\/$/, '');
  const m = /^(\*|https?):\/\/(\[[0-9A-Fa-f:.]+\]|[^/:?#@[\]]+)(?::(\*|\d{1,5}))?$/.exec(text);
  if (!m) {
    throw new Error(`allow-list entry ${JSON.stringify(pattern)} is not of the form "scheme://host[:port]" ` +
      '(scheme http, https or *; host a name, "*.example.com" or "*"; port a number or *)');
  }
  const [, scheme, rawHost, port = ''] = m;
  if (port !== '' && port !== '*' && Number(port) > 65535) {
    throw new Error(`allow-list entry ${JSON.stringify(pattern)} has port ${port}, above 65535`);
  }
  let host = rawHost.toLowerCase();
  let subdomains = false;
  if (host === '*') return { scheme, host: '*', subdomains: false, port };
  if (host.startsWith('*.')) {
    subdomains = true;
    host = host.slice(2);
  }
  if (host.includes('*')) {
    throw new Error(`allow-list entry ${JSON.stringify(pattern)}: "*" may only stand alone or start the host as "*."`);
  }
  let normal;
  try {
    normal = new URL(`http://${host}`).hostname; // punycode, IPv4 forms, IPv6 brackets
  } catch {
    throw new Error(`allow-list entry ${JSON.stringify(pattern)} has an invalid host ${JSON.stringify(rawHost)}`);
  }
  return { scheme, host: normal, subdomains, port: port === DEFAULT_PORTS[scheme] ? '' : port };
}

// webOrigin's answers for the URLs it met last: a call asks for the origin
// of the same few URLs about ten times (its tab, its frame, the site
// settings, the allow list, the indicator), and parsing a URL is the
// worker's biggest cost per call after the browser's own messaging.
const ORIGIN_CACHE_MAX = 256;
const originCache = new Map();
const partsCache = new Map();

/** Keeps value as key's in cache, making room by dropping the oldest. */
function remember(cache, key, value) {
  if (cache.size >= ORIGIN_CACHE_MAX) cache.delete(cache.keys().next().value);
  cache.set(key, value);
  return value;
}

/**
 * The parts of a web origin that patterns are matched against: {scheme,
 * port, hostname} as URL gives them (the default port as ''); kept like
 * webOrigin's answers. Throws for a string that is no URL.
 */
export function originParts(origin) {
  let p = partsCache.get(origin);
  if (p === undefined) {
    const u = new URL(origin);
    p = remember(partsCache, origin, Object.freeze({ scheme: u.protocol.slice(0, -1), port: u.port, hostname: u.hostname }));
  }
  return p;
}

/**
 * Returns the origin ("https://example.com:8443") of an http or https URL or
 * origin string, or "" for anything else (other schemes, opaque origins,
 * garbage).
 */
export function webOrigin(url) {
  if (typeof url !== 'string' || url === '') return '';
  const origin = originCache.get(url);
  return origin !== undefined ? origin : remember(originCache, url, parseWebOrigin(url));
}

function parseWebOrigin(url) {
  let u;
  try {
    u = new URL(url);
  } catch {
    return '';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return '';
  return u.origin;
}

/**
 * Reads the site a person typed to allow ("Allow another site"): a URL, or
 * a bare host such as "example.com" or "localhost:8080", taken as https.
 * Only the origin is kept: a site is its scheme, host and port. Returns
 * {origin, assumedHttps, dropped} (dropped: the path, query or fragment left
 * out, '' when none) or {error}, a sentence that says what to type.
 */
export function siteFromInput(text) {
  const s = String(text ?? '').trim();
  if (s === '') return { error: 'Type a site to allow, e.g. https://example.com.' };
  const hasScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(s);
  const url = hasScheme ? s : `https://${s}`;
  const origin = webOrigin(url);
  if (origin === '') {
    return { error: `${s} is not a web site: type it as https://example.com (http or https, a host, and a port if it has one).` };
  }
  const u = new URL(url);
  const rest = `${u.pathname === '/' ? '' : u.pathname}${u.search}${u.hash}`;
  return { origin, assumedHttps: !hasScheme, dropped: rest };
}

/** Reports whether the parsed pattern p matches the origin string. */
function matches(p, origin) {
  const u = originParts(origin);
  const scheme = u.scheme;
  if (p.scheme !== '*' && p.scheme !== scheme) return false;
  if (p.port === '*') {
    // any port
  } else if (p.port === '') {
    if (u.port !== '') return false; // URL leaves out the scheme's default port
  } else if (u.port !== p.port && !(u.port === '' && DEFAULT_PORTS[scheme] === p.port)) {
    return false;
  }
  if (p.host === '*') return true;
  const host = u.hostname;
  if (host === p.host) return true;
  return p.subdomains && host.endsWith('.' + p.host);
}

/**
 * Compiles an allow list into a predicate over origins (or URLs). Entries that
 * cannot be parsed are left out and reported in `errors`.
 * @returns {{allows: (origin: string) => boolean, errors: string[], patterns: string[]}}
 */
export function compileAllowList(list) {
  const parsed = [];
  const blocked = [];
  const errors = [];
  const patterns = [];
  for (const entry of Array.isArray(list) ? list : []) {
    try {
      if (typeof entry === 'string' && entry.startsWith('!')) blocked.push(parsePattern(entry.slice(1)));
      else parsed.push(parsePattern(entry));
      patterns.push(entry);
    } catch (e) {
      errors.push(e.message);
    }
  }
  return {
    patterns,
    errors,
    allows(originOrURL) {
      const origin = webOrigin(originOrURL);
      if (origin === '') return false;
      if (blocked.some((p) => matches(p, origin))) return false;
      return parsed.some((p) => matches(p, origin));
    },
  };
}

// Whether entry names exactly this one origin (no wildcard), negated or not.
function namesOrigin(entry, origin, negated) {
  if (typeof entry !== 'string' || entry.startsWith('!') !== negated) return false;
  const text = (negated ? entry.slice(1) : entry).trim().replace(/\/$/, '');
  if (text.includes('*')) return false;
  return webOrigin(text) === origin && /^https?:\/\/[^/]*$/.test(text);
}

/**
 * Turns one site (an origin, "https://example.com:8443") on or off in an
 * allow list and returns the new list; the input is left alone. On: its
 * "!origin" entries go, and the origin itself is added unless another entry
 * allows it already. Off: the entries naming exactly the origin go, and
 * "!origin" is added when a broader entry (a default, a wildcard) still
 * allows it. Other entries stay as they were.
 */
export function setSiteAllowed(list, origin, on) {
  const o = webOrigin(origin);
  if (o === '') throw new Error(`${JSON.stringify(origin)} is not the origin of a web page (http or https); only web sites can be allowed`);
  let next = (Array.isArray(list) ? list : []).slice();
  if (on) {
    next = next.filter((e) => !namesOrigin(e, o, true));
    if (!compileAllowList(next).allows(o)) next.push(o);
  } else {
    next = next.filter((e) => !namesOrigin(e, o, false));
    if (compileAllowList(next).allows(o)) next.push(`!${o}`);
  }
  return next;
}

/**
 * Returns the allow list to use given what chrome.storage.local holds under
 * STORAGE_KEY: the stored array, or DEFAULT_ALLOW_LIST when nothing valid is
 * stored.
 */
export function allowListFrom(stored) {
  if (Array.isArray(stored) && stored.every((e) => typeof e === 'string')) return stored.slice();
  return DEFAULT_ALLOW_LIST.slice();
}
