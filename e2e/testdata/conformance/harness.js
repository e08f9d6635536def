// The page side of the differential conformance suite (e2e/conformance_test.go;
// see README.md here). A scenario page loads this script, then calls
//
//   scenario(async (t) => { ... t.log('label', value) ... });
//
// and everything it logs, in order, is what the test compares between the
// browser's own WebMCP and the bridge. Values are described (describe below)
// so that what a page can observe survives JSON: errors by class, name and
// message, windows and model contexts by where they are, events by class,
// type, target and toolName.

(() => {
  const obs = [];
  let finish;
  let askSeq = 0;
  // The test awaits this: the JSON of [[label, value], ...].
  window.__conformance = new Promise((resolve) => {
    finish = resolve;
  });

  // Where a window is, seen from this page.
  function windowLabel(w) {
    if (w === window) return 'window';
    if (w === window.parent) return 'parent';
    if (w === window.top) return 'top';
    for (let i = 0; i < window.frames.length; i++) if (w === window.frames[i]) return `frames[${i}]`;
    try {
      for (let i = 0; i < window.parent.frames.length; i++) if (w === window.parent.frames[i]) return `parent.frames[${i}]`;
    } catch {
      // cross-origin
    }
    return 'another window';
  }

  // The model contexts and documents a page can hold, by where they are.
  function placeLabel(v) {
    const wins = [['', window]];
    if (window.parent !== window) wins.push(['parent.', window.parent]);
    for (let i = 0; i < window.frames.length; i++) wins.push([`frames[${i}].`, window.frames[i]]);
    for (const [prefix, w] of wins) {
      try {
        if (v === w.document) return prefix + 'document';
        if (v === w.document.modelContext) return prefix + 'document.modelContext';
        if (v === w.navigator.modelContext) return prefix + 'navigator.modelContext';
      } catch {
        // cross-origin
      }
    }
    return null;
  }

  function isWindow(v) {
    try {
      return v !== null && typeof v === 'object' && v.window === v;
    } catch {
      return true; // a cross-origin window throws on most reads
    }
  }

  // A JSON-able description of what a page observes of v.
  function describe(v, depth = 0) {
    if (v === undefined) return '<undefined>';
    if (v === null || typeof v === 'boolean' || typeof v === 'string') return v;
    if (typeof v === 'number') return Number.isFinite(v) ? v : `<number ${v}>`;
    if (typeof v === 'bigint' || typeof v === 'symbol') return `<${typeof v} ${String(v)}>`;
    if (typeof v === 'function') return `<function ${v.name}>`;
    if (depth > 8) return '<deep>';
    if (isWindow(v)) return `<window ${windowLabel(v)}>`;
    const place = placeLabel(v);
    if (place) return `<${place}>`;
    if (v instanceof Error || (typeof DOMException === 'function' && v instanceof DOMException)) {
      return { '<error>': v.constructor && v.constructor.name, name: v.name, message: v.message };
    }
    if (v instanceof Event) {
      const e = { '<event>': v.constructor.name, type: v.type, target: describe(v.target, depth + 1) };
      if ('toolName' in v) e.toolName = v.toolName;
      if (v.target !== v.currentTarget) e.currentTarget = describe(v.currentTarget, depth + 1);
      return e;
    }
    if (v instanceof Promise) return '<promise>';
    if (typeof Element === 'function' && v instanceof Element) return `<${v.localName}${v.id ? '#' + v.id : ''}>`;
    if (Array.isArray(v)) return v.map((x) => describe(x, depth + 1));
    const out = {};
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) out['<class>'] = proto.constructor ? proto.constructor.name : '?';
    for (const k of Object.keys(v)) out[k] = describe(v[k], depth + 1);
    return out;
  }

  const t = {
    /** Records one observation. */
    log(label, value) {
      obs.push([String(label), describe(value)]);
    },
    /**
     * Runs fn (sync or async) and records {ok: value} or {threw: error};
     * meanwhile t.current is label (for what a tool's execute logs).
     */
    async attempt(label, fn) {
      t.current = label;
      try {
        t.log(label, { ok: await fn() });
      } catch (e) {
        t.log(label, { threw: e });
      }
    },
    /** The label of the attempt under way. */
    current: '',
    /** Records every event of these types at target, labelled prefix:type. */
    listen(target, types, prefix) {
      for (const type of types) target.addEventListener(type, (e) => t.log(`${prefix}:${type}`, e));
    },
    /**
     * The next event of type at target, or the string 'none' when it does
     * not come within ms (a guard: use it where one mode may never fire).
     */
    next(target, type, ms = 3000) {
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          target.removeEventListener(type, on);
          resolve('none');
        }, ms);
        function on(e) {
          clearTimeout(timer);
          target.removeEventListener(type, on);
          resolve(e);
        }
        target.addEventListener(type, on);
      });
    },
    /**
     * Resolves to how many type events target fired, once n have, or after
     * ms (a hang guard, for a browser that fires fewer).
     */
    events(target, type, n, ms) {
      return new Promise((resolve) => {
        let seen = 0;
        const end = () => {
          clearTimeout(timer);
          target.removeEventListener(type, on);
          resolve(seen);
        };
        const timer = setTimeout(end, ms);
        function on() {
          if (++seen >= n) end();
        }
        target.addEventListener(type, on);
      });
    },
    /** Settles p, or resolves 'pending' when it has not settled within ms. */
    within(p, ms = 3000) {
      return Promise.race([p, new Promise((resolve) => setTimeout(() => resolve('pending'), ms))]);
    },
    /** Adds an iframe (attrs: src, allow, …) and waits for it to load. */
    frame(attrs) {
      const f = document.createElement('iframe');
      for (const [k, v] of Object.entries(attrs)) f.setAttribute(k, v);
      const loaded = new Promise((resolve) => f.addEventListener('load', resolve, { once: true }));
      document.body.appendChild(f);
      return loaded.then(() => f);
    },
    /** This server on the other loopback name: a cross-origin URL for path. */
    crossOrigin(path) {
      const host = location.hostname === 'localhost' ? '127.0.0.1' : 'localhost';
      return `${location.protocol}//${host}:${location.port}${path}`;
    },
    /**
     * Asks a frames/remote.html frame to do msg ({cmd, ...}); resolves to its
     * reply ({ok} or {threw}), or 'no reply' when none comes within ms (the
     * frame always replies: the test runs such a page again).
     */
    ask(frame, msg, ms = 4000) {
      const id = ++askSeq;
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          removeEventListener('message', on);
          resolve('no reply');
        }, ms);
        function on(e) {
          if (!e.data || e.data.from !== 'remote' || e.data.reply !== id) return;
          clearTimeout(timer);
          removeEventListener('message', on);
          const { from, reply, ...r } = e.data;
          resolve(r);
        }
        addEventListener('message', on);
        frame.contentWindow.postMessage({ ...msg, id }, '*');
      });
    },
    /** The next note ({note, ...}) a frames/remote.html frame posts that is named note, or 'none' within ms. */
    note(note, ms = 4000) {
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          removeEventListener('message', on);
          resolve('none');
        }, ms);
        function on(e) {
          if (!e.data || e.data.from !== 'remote' || e.data.note !== note) return;
          clearTimeout(timer);
          removeEventListener('message', on);
          const { from, ...r } = e.data;
          resolve(r);
        }
        addEventListener('message', on);
      });
    },
    /** A macrotask later (toolchange fires in a task). */
    tick() {
      return new Promise((resolve) => setTimeout(resolve, 0));
    },
    describe,
  };
  window.conformanceKit = t;

  /** Runs a scenario and hands what it logged to the test. */
  window.scenario = (fn) => {
    const run = async () => {
      if (document.readyState === 'loading') await new Promise((r) => document.addEventListener('DOMContentLoaded', r, { once: true }));
      try {
        await fn(t);
      } catch (e) {
        t.log('scenario threw', e);
      }
      finish(JSON.stringify(obs));
    };
    run();
  };
})();
