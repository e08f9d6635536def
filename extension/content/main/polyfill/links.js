// Cross-origin frames, as the browser joins them: a document and its
// cross-origin frames share the tools that they expose to each other's
// origin (registerTool's exposedTo; getTools({fromOrigins}) lists them,
// executeTool runs them, a caller's abort reaches them), and a frame may use
// WebMCP only as the permissions policy "tools" of its frame element allows
// (the allow attribute; by default its parent's origin only).
//
// A script cannot reach into a cross-origin frame, so each such pair of
// polyfills opens a link: the frame posts a hello to its parent window; the
// parent's polyfill (its message listener is the window's first: the
// polyfill installs before any page script) hides that message from the
// page, learns the frame's origin from the event, reads the policy of the
// frame's element, and answers on the frame's window with the policy and
// a MessagePort, hidden the same way. Everything else goes over the port.
// The origins come from the message events, which no page can forge; a page
// that posts such messages itself gets a link under its own origin only.
//
// Neither side shows the bridge to a document it does not run in (an ad's
// frame, a parent of a site not allowed): the frame posts its hello only
// to its parent's origin (location.ancestorOrigins, else its referrer's),
// and only once the worker confirmed that the bridge runs there (bridgeAt:
// the site is allowed); the parent answers only a frame of such an origin.
// A frame whose parent runs no bridge decides from what it knows itself
// (policyOf): the browser's permissions policy where the browser knows the
// feature "tools", else allowed, since no bridge stands above it to say
// otherwise (and the worker lists no tools of a tab of a site not allowed).
//
// Over a link each side sends (t is the message's type):
//   {t: 'tools', tools}          its group's tools exposed to the other's origin
//                                (sent again whenever they change)
//   {t: 'call', id, name, input} run one of them (input: JSON text)
//   {t: 'answer', id, ok | error} the call's JSON text, or 'page' (the tool
//                                failed) or 'gone' (no such tool any more)
//   {t: 'abort', id}             the caller gave up
//   {t: 'bye'}                   this document goes away (pagehide)
// A group is the same-origin documents of one frame tree that share their
// tools directly (sameorigin.js).

import {
  Channel, DOMExc, PromiseCtor, URLCtor, addListener, apply, isObject, jsonStringify, parentOriginOf, policyAllows, postTo, removeListener,
  stopImmediate, then,
} from '../../source/builtins.js';

/** The key that marks the polyfill's own window messages. */
export const LINK_MARK = '__webmcpBridgeFrameLink';

/**
 * Whether the allow attribute value `allow` of a frame element lets a
 * document of origin childOrigin use the feature "tools", in a parent of
 * parentOrigin; srcOrigin is the origin of the element's src ('src').
 * Without a "tools" directive the default allowlist is 'self'.
 */
export function allowsTools(allow, childOrigin, parentOrigin, srcOrigin) {
  for (const directive of String(allow || '').split(';')) {
    const tokens = directive.trim().split(/\s+/).filter(Boolean);
    if (tokens.length === 0 || tokens[0].toLowerCase() !== 'tools') continue;
    const list = tokens.length === 1 ? ["'src'"] : tokens.slice(1);
    for (const tok of list) {
      const t = tok.toLowerCase();
      if (t === '*') return true;
      if (t === "'none'") continue;
      if (t === "'self'") {
        if (childOrigin === parentOrigin) return true;
        continue;
      }
      if (t === "'src'") {
        if (childOrigin === srcOrigin) return true;
        continue;
      }
      try {
        if (new URLCtor(tok).origin === childOrigin) return true;
      } catch {
        // not an origin: ignored, as the browser does
      }
    }
    return false;
  }
  return childOrigin === parentOrigin;
}

/**
 * @param {object} o
 * @param {object} o.win  this document's window
 * @param {string} o.origin  this document's origin
 * @param {(w: object) => Element | null} o.frameElementOf  the element of this
 *   document that holds the frame whose window is w
 * @param {(el: Element) => {allow: string, srcOrigin: string}} o.readFrame
 * @param {() => Promise<boolean>} o.allowed  whether this document may use WebMCP
 * @param {(origin: string) => object[]} o.exposed  the group's tools exposed to origin
 *   (plain {name, description, inputSchema?, title?, annotations?})
 * @param {(name: string, origin: string, input: string, gone: () => void) =>
 *   {promise: Promise<string>, abort(): void} | null} o.run  runs one of them for
 *   a caller of origin; resolves to the answer's JSON text
 * @param {() => void} o.remoteChanged  the tools that links bring changed
 * @param {(origin: string) => Promise<boolean>} [o.bridgeAt]  whether the bridge
 *   runs in documents of origin (the worker says: the site is allowed);
 *   without it, it runs nowhere else
 * @param {() => boolean} [o.policyOf]  this document's own word on its policy
 *   when no parent bridge answers (default: the browser's permissions
 *   policy "tools" where it knows it, else allowed)
 */
export function createLinks({ win, origin, frameElementOf, readFrame, allowed, exposed, run, remoteChanged, bridgeAt = () => PromiseCtor.resolve(false), policyOf = () => policyAllows(win.document, 'tools') !== false }) {
  /** @type {Set<Link>} */
  const links = new Set();
  let parentLink = null;
  let parentAnswer = null; // resolves to the parent's word on this document's policy

  // One link: its port, the other side's window and origin, the tools it
  // brings, and the calls under way over it.
  function open(port, other, otherOrigin, isParent) {
    const link = { port, window: other, origin: otherOrigin, tools: [], sig: '[]', sentSig: null, calls: new Map(), served: new Map(), nextId: 1, isParent };
    links.add(link);
    port.onmessage = (e) => receive(link, e.data);
    send(link);
    return link;
  }

  function close(link) {
    if (!links.delete(link)) return;
    try {
      link.port.close();
    } catch {
      // closed already
    }
    for (const c of link.calls.values()) c.gone();
    link.calls.clear();
    for (const s of link.served.values()) s.abort();
    link.served.clear();
    // Its tools go without a toolchange: Chromium 156 fires none when a
    // frame goes away or navigates.
    link.tools = [];
  }

  function post(link, m) {
    try {
      postTo(link.port, m);
    } catch {
      // a port that cannot take it
    }
  }

  // Sends the group's tools exposed to the link's origin, when they changed.
  function send(link) {
    let tools = [];
    try {
      tools = exposed(link.origin);
    } catch {
      // none
    }
    const sig = jsonStringify(tools);
    if (sig === link.sentSig) return;
    link.sentSig = sig;
    post(link, { t: 'tools', tools });
  }

  function receive(link, m) {
    if (!isObject(m) || !links.has(link)) return;
    if (m.t === 'tools' && Array.isArray(m.tools)) {
      const sig = jsonStringify(m.tools);
      if (sig === link.sig) return;
      link.sig = sig;
      link.tools = m.tools.filter((x) => isObject(x) && typeof x.name === 'string');
      remoteChanged();
    } else if (m.t === 'call') {
      const gone = () => {
        link.served.delete(m.id);
        post(link, { t: 'answer', id: m.id, error: 'gone' });
      };
      const r = run(String(m.name), link.origin, String(m.input), gone);
      if (!r) {
        post(link, { t: 'answer', id: m.id, error: 'gone' });
        return;
      }
      link.served.set(m.id, r);
      then(r.promise, (text) => {
        if (link.served.delete(m.id)) post(link, { t: 'answer', id: m.id, ok: text });
      }, () => {
        if (link.served.delete(m.id)) post(link, { t: 'answer', id: m.id, error: 'page' });
      });
    } else if (m.t === 'abort') {
      const r = link.served.get(m.id);
      link.served.delete(m.id);
      if (r) r.abort();
    } else if (m.t === 'answer') {
      const c = link.calls.get(m.id);
      if (!c) return;
      link.calls.delete(m.id);
      if ('ok' in m) c.resolve(m.ok);
      else if (m.error === 'page') c.failed();
      else c.gone();
    } else if (m.t === 'bye') {
      close(link);
    }
  }

  // A frame's hello, or the parent's answer to this document's.
  function onMessage(e) {
    const d = e.data;
    if (!isObject(d) || !(LINK_MARK in d)) return;
    apply(stopImmediate, e, []);
    if (d[LINK_MARK] === 'hello') {
      const el = frameElementOf(e.source);
      if (!el) return;
      const frame = e.source;
      const childOrigin = e.origin;
      // Silent to a frame the bridge does not run in.
      then(bridgeAt(childOrigin), (there) => there && then(allowed(), (ok) => {
        let policy = false;
        try {
          const { allow, srcOrigin } = readFrame(el);
          policy = !!ok && allowsTools(allow, childOrigin, origin, srcOrigin);
        } catch {
          // an element that went away
        }
        for (const l of links) if (l.window === frame && !l.isParent) close(l);
        const ch = new Channel();
        if (policy) open(ch.port1, frame, childOrigin, false);
        try {
          frame.postMessage({ [LINK_MARK]: 'welcome', allowed: policy }, childOrigin, [ch.port2]);
        } catch {
          // the frame went away
        }
      }, () => {}), () => {});
    } else if (d[LINK_MARK] === 'welcome' && parentAnswer && e.source === win.parent && e.ports && e.ports[0]) {
      const answer = parentAnswer;
      parentAnswer = null;
      if (d.allowed === true) parentLink = open(e.ports[0], win.parent, e.origin, true);
      answer(d.allowed === true);
    }
  }

  apply(addListener, win, ['message', onMessage, { capture: true }]);
  apply(addListener, win, ['pagehide', () => {
    for (const l of Array.from(links)) {
      post(l, { t: 'bye' });
      close(l);
    }
  }, { capture: true }]);

  return {
    /**
     * Asks the cross-origin parent for this document's policy; resolves to
     * its answer (true when allowed). A parent the bridge does not run in
     * (or whose origin this document cannot tell) is not asked, and one
     * that does not answer by a second after this document's load
     * (fallback) is taken for one: then this document's own word decides
     * (policyOf). It always resolves.
     */
    askParent(fallback) {
      return new PromiseCtor((resolve) => {
        let done = false;
        const answer = (v) => {
          if (done) return;
          done = true;
          parentAnswer = null;
          resolve(v);
        };
        const own = () => {
          let ok = true;
          try {
            ok = policyOf() !== false;
          } catch {
            // allowed
          }
          answer(ok);
        };
        const parentOrigin = parentOriginOf(win);
        if (parentOrigin === '' || parentOrigin === 'null') {
          own();
          return;
        }
        then(bridgeAt(parentOrigin), (there) => {
          if (!there) {
            own();
            return;
          }
          parentAnswer = answer;
          try {
            win.parent.postMessage({ [LINK_MARK]: 'hello' }, parentOrigin);
          } catch {
            own();
            return;
          }
          if (fallback) fallback(own);
        }, own);
      });
    },
    /** The tools the links bring whose origin is one of origins: [{tool, window, origin}]. */
    remoteTools(origins) {
      const out = [];
      for (const l of links) {
        if (!origins.includes(l.origin)) continue;
        for (const tool of l.tools) out.push({ tool, window: l.window, origin: l.origin });
      }
      return out;
    },
    /** The link to window w of origin that brings a tool named name, or null. */
    find(name, w, origin) {
      for (const l of links) {
        if (l.window === w && l.origin === origin && l.tools.some((x) => x.name === name)) return l;
      }
      return null;
    },
    /**
     * Runs the tool named name over link; resolves to its JSON text, rejects
     * with failed() or gone() (the caller's errors) or the signal's reason.
     */
    call(link, name, input, signal, failed, gone) {
      return new PromiseCtor((resolve, reject) => {
        if (signal && signal.aborted) {
          reject(signal.reason);
          return;
        }
        const id = link.nextId++;
        let onAbort = null;
        const finish = () => {
          link.calls.delete(id);
          if (signal && onAbort) apply(removeListener, signal, ['abort', onAbort]);
        };
        link.calls.set(id, {
          resolve: (v) => { finish(); resolve(v); },
          failed: () => { finish(); reject(failed()); },
          gone: () => { finish(); reject(gone()); },
        });
        if (signal) {
          onAbort = () => {
            finish();
            post(link, { t: 'abort', id });
            reject(signal.reason);
          };
          apply(addListener, signal, ['abort', onAbort, { once: true }]);
        }
        post(link, { t: 'call', id, name, input: jsonStringify(input) });
      });
    },
    /** This document's group's tools changed: each link hears of what it exposes. */
    resend() {
      for (const l of links) send(l);
    },
  };
}

/** The caller's error when a link's tool is gone, as Chromium 156 words it. */
export function goneError() {
  return new DOMExc('The operation failed for an unknown transient reason (e.g. out of memory).', 'UnknownError');
}
