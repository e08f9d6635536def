// Runs content/main.js (the polyfill and the page side of the bridge, bundled
// from content/main/ by go generate ./internal/mainworld) in a fresh VM
// context per test, with a minimal window and document made of Node's own
// EventTarget, MessageChannel, AbortController and DOMException, and, where a
// test says so, a fake clock for the page's setTimeout. The native-WebMCP path
// needs Chromium and is covered by the end-to-end tests; main-modules.test.js
// tests the modules one by one.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { afterEach, test } from 'node:test';
import vm from 'node:vm';
import { isValidToolName } from '../lib/names.js';

const CODE = fs.readFileSync(new URL('../content/main.js', import.meta.url), 'utf8');
const open = [];

afterEach(() => {
  for (const p of open.splice(0)) p.close();
});

// A fake clock for the page's setTimeout and clearTimeout: time moves only
// when the test calls tick(ms).
function fakeClock() {
  let now = 0;
  let nextId = 1;
  const timers = new Map();
  return {
    set: [], // the delay of every timer set, in order
    setTimeout(fn, ms = 0) {
      this.set.push(ms);
      const id = nextId++;
      timers.set(id, { fn, at: now + ms });
      return id;
    },
    clearTimeout(id) {
      timers.delete(id);
    },
    // The time left on each pending timer.
    pending() {
      return [...timers.values()].map((t) => t.at - now);
    },
    // Moves the clock ms on, running the timers that fall due.
    tick(ms) {
      now += ms;
      for (const [id, t] of [...timers].sort((a, b) => a[1].at - b[1].at)) {
        if (t.at > now) break;
        timers.delete(id);
        t.fn();
      }
    },
  };
}

function load({ origin = 'http://localhost:8000', handover = true, clock } = {}) {
  class Document extends EventTarget {
    querySelectorAll() {
      return [];
    }
  }
  class Element {
    getAttribute() {
      return null;
    }
  }
  const win = new EventTarget();
  win.location = { origin };
  const doc = new Document();
  const nav = {};
  const sandbox = {
    window: win, document: doc, navigator: nav, Document, Element,
    EventTarget, Event, MessagePort, MessageChannel, AbortController, AbortSignal, DOMException, URL,
    setTimeout, clearTimeout, queueMicrotask, crypto, console,
  };
  if (clock) {
    sandbox.setTimeout = clock.setTimeout.bind(clock);
    sandbox.clearTimeout = clock.clearTimeout.bind(clock);
  }
  vm.createContext(sandbox);
  const globalsBefore = Object.getOwnPropertyNames(sandbox);
  vm.runInContext(CODE, sandbox, { filename: 'content/main.js' });
  const page = { win, doc, nav, mc: doc.modelContext, messages: [], waiters: [], globalsBefore, global: sandbox };
  if (handover) {
    const ch = new MessageChannel();
    open.push(ch.port1);
    page.port = ch.port1;
    page.port.onmessage = (e) => {
      page.messages.push(e.data);
      for (const w of page.waiters.splice(0)) w();
    };
    page.handover = makeHandover(win, ch.port2);
    win.dispatchEvent(page.handover);
  }
  return page;
}

function makeHandover(win, port, source = win) {
  const ev = new Event('message');
  Object.defineProperties(ev, {
    source: { value: source },
    data: { value: { __webmcpBridgeHandover: 1 } },
    ports: { value: [port] },
  });
  return ev;
}

// Waits for the next bridge message that pred accepts (taking it off the list).
async function next(page, pred, ms = 2000) {
  const end = Date.now() + ms;
  for (;;) {
    const i = page.messages.findIndex(pred);
    if (i >= 0) return page.messages.splice(i, 1)[0];
    const left = end - Date.now();
    if (left <= 0) throw new Error('no such bridge message; got ' + JSON.stringify(page.messages));
    await new Promise((resolve) => {
      const t = setTimeout(resolve, left);
      page.waiters.push(() => {
        clearTimeout(t);
        resolve();
      });
    });
  }
}

const toolsMsg = (names) => (m) => m.type === 'tools' && JSON.stringify(m.tools.map((t) => t.name)) === JSON.stringify(names);
const answer = (id) => (m) => (m.type === 'result' || m.type === 'error') && m.id === id;

// Values made inside the VM context have its own Object and Array prototypes.
const plain = (v) => JSON.parse(JSON.stringify(v));

// The names of the tools that getTools() lists.
const listedNames = async (mc) => plain((await mc.getTools()).map((t) => t.name));

function tool(name, extra = {}) {
  return { name, description: `the ${name} tool`, execute: () => name, ...extra };
}

test('the polyfill is installed as document.modelContext, navigator.modelContext and ModelContext', () => {
  const { win, doc, nav, mc } = load();
  assert.equal(typeof mc.registerTool, 'function');
  assert.equal(nav.modelContext, mc);
  assert.ok(mc instanceof win.ModelContext);
  assert.ok(mc instanceof EventTarget);
  assert.equal(Object.prototype.toString.call(mc), '[object ModelContext]');
  assert.throws(() => new win.ModelContext(), { name: 'TypeError', message: 'Illegal constructor' });
  assert.equal(Object.keys(win).includes('ModelContext'), false);
  for (const m of ['registerTool', 'getTools', 'executeTool', 'provideContext', 'clearContext', 'unregisterTool']) {
    assert.equal(typeof mc[m], 'function', m);
  }
  assert.equal(doc.modelContext, mc, 'the same object every time');
});

test('the script is one classic script that leaves no names in the page\'s global scope', () => {
  const page = load({ handover: false });
  assert.deepEqual(Object.getOwnPropertyNames(page.global), page.globalsBefore);
  assert.equal(page.win.ModelContext.name, 'ModelContext');
  assert.equal(page.win.ToolActivatedEvent.name, 'ToolActivatedEvent');
  assert.equal(page.win.ToolCancelEvent.name, 'ToolCancelEvent');
  assert.match(CODE, /^\/\/ GENERATED by "go generate \.\/internal\/mainworld"/);
});

test('registerTool returns a promise, fires toolchange first, and the bridge hears of it', async () => {
  const page = load();
  const { mc } = page;
  await next(page, toolsMsg([]));
  const order = [];
  mc.addEventListener('toolchange', () => order.push('toolchange'));
  const p = mc.registerTool({
    name: 'find_slices',
    title: 'Find slices',
    description: 'Finds slices.',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } } },
    annotations: { readOnlyHint: true, destructiveHint: false, bogusHint: true },
    execute: () => [],
  });
  assert.equal(typeof p.then, 'function');
  await p.then(() => order.push('resolved'));
  assert.deepEqual(order, ['toolchange', 'resolved']);
  const m = await next(page, toolsMsg(['find_slices']));
  assert.deepEqual(m.tools[0], {
    name: 'find_slices',
    title: 'Find slices',
    description: 'Finds slices.',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } } },
    annotations: { readOnlyHint: true, destructiveHint: false },
  });
  const [listed] = await mc.getTools();
  assert.equal(listed.name, 'find_slices');
  assert.equal(listed.title, 'Find slices');
  assert.equal(listed.origin, 'http://localhost:8000');
  assert.equal(listed.window, page.win);
  assert.deepEqual(plain(listed.annotations), { readOnlyHint: true, untrustedContentHint: false });
  assert.equal(listed.execute, undefined);
});

test('tool names follow the same rules as lib/names.js', async () => {
  const { mc } = load({ handover: false });
  const names = ['a', 'x.y-z_9', 'x'.repeat(128), 'x'.repeat(129), '', 'with space', 'ü', 'tab\t', 'a/b', 'line\n'];
  for (const name of names) {
    const p = mc.registerTool(tool(name));
    if (isValidToolName(name)) {
      await p;
    } else {
      await assert.rejects(p, { name: 'InvalidStateError', message: 'Invalid tool name' }, JSON.stringify(name));
    }
  }
  const listed = (await listedNames(mc)).sort();
  assert.deepEqual(listed, names.filter(isValidToolName).sort());
});

test('registerTool rejects what the draft forbids, never throwing', async () => {
  const { mc } = load({ handover: false });
  await mc.registerTool(tool('dup'));
  const cases = [
    [tool('dup'), { name: 'InvalidStateError', message: 'Duplicate tool name' }],
    [tool('nodesc', { description: '' }), { name: 'InvalidStateError', message: 'Description is required' }],
    [{ name: 'noexec', description: 'd' }, { name: 'TypeError', message: /'execute'.*Required member is undefined/ }],
    [tool('badexec', { execute: 5 }), { name: 'TypeError', message: /not a function/ }],
    [tool('schemastr', { inputSchema: 'str' }), { name: 'TypeError', message: /inputSchema/ }],
    [{ description: 'd', execute() {} }, { name: 'TypeError', message: /'name'.*Required member/ }],
    [null, { name: 'TypeError' }],
  ];
  const cyclic = {};
  cyclic.self = cyclic;
  cases.push([tool('cyclic', { inputSchema: cyclic }), { name: 'TypeError', message: /circular/i }]);
  for (const [t, want] of cases) {
    let p;
    assert.doesNotThrow(() => {
      p = mc.registerTool(t);
    });
    await assert.rejects(p, want);
  }
  await assert.rejects(mc.registerTool(tool('x'), { signal: 'nope' }), { name: 'TypeError' });
  await assert.rejects(mc.registerTool(tool('x'), { exposedTo: ['http://example.com'] }), { name: 'SecurityError' });
  await mc.registerTool(tool('x'), { exposedTo: ['https://example.com', 'http://localhost:1'] });
  await assert.rejects(mc.registerTool.call({}, tool('y')), { name: 'TypeError', message: /Illegal invocation/ });
  assert.deepEqual(await listedNames(mc), ['dup', 'x']);
});

test('aborting the signal unregisters the tool', async () => {
  const page = load();
  const { mc } = page;
  const ctl = new AbortController();
  await mc.registerTool(tool('temp'), { signal: ctl.signal });
  await mc.registerTool(tool('stays'));
  await next(page, toolsMsg(['temp', 'stays']));
  let changes = 0;
  mc.ontoolchange = () => changes++;
  const changed = new Promise((r) => mc.addEventListener('toolchange', r, { once: true }));
  ctl.abort();
  await next(page, toolsMsg(['stays']));
  await changed;
  assert.deepEqual(await listedNames(mc), ['stays']);
  // the name is free again; its registration resolves after its own toolchange
  await mc.registerTool(tool('temp'));
  assert.equal(changes, 2, 'one toolchange for the abort, one for the new registration');

  const pre = new AbortController();
  pre.abort('already');
  await assert.rejects(mc.registerTool(tool('late'), { signal: pre.signal }), (e) => e === 'already');

  // aborting before the registration settled rejects it with the reason
  const soon = new AbortController();
  const p = mc.registerTool(tool('soon'), { signal: soon.signal });
  soon.abort(new Error('changed my mind'));
  await assert.rejects(p, /changed my mind/);
  assert.deepEqual(await listedNames(mc), ['stays', 'temp']);
});

test('executeTool resolves to a JSON string and fires toolactivated', async () => {
  const { mc } = load({ handover: false });
  let seen;
  await mc.registerTool(tool('obj', {
    execute(input, client) {
      seen = { input, hasSignal: client.signal instanceof AbortSignal, self: this };
      input.mutated = true;
      return { got: input.a, when: new Date(0) };
    },
  }));
  await mc.registerTool(tool('str', { execute: () => 'plain text' }));
  await mc.registerTool(tool('boom', { execute: () => { throw new Error('boom from the page'); } }));
  const activated = [];
  mc.addEventListener('toolactivated', (e) => activated.push(e.toolName));
  const tools = await mc.getTools();
  const byName = (n) => tools.find((t) => t.name === n);
  const input = { a: 5 };
  assert.equal(await mc.executeTool(byName('obj'), input), '{"got":5,"when":"1970-01-01T00:00:00.000Z"}');
  assert.deepEqual(input, { a: 5 }, 'execute gets a copy of the input');
  assert.equal(seen.hasSignal, true);
  assert.equal(seen.self, undefined);
  assert.equal(await mc.executeTool(byName('str'), {}), 'plain text');
  await assert.rejects(mc.executeTool(byName('boom'), {}), /boom from the page/);
  assert.deepEqual(activated, ['obj', 'str', 'boom']);
  await assert.rejects(mc.executeTool(byName('obj'), 'str'), { name: 'TypeError', message: /value is not an object/ });
  await assert.rejects(mc.executeTool({ name: 'missing' }, {}), { name: 'UnknownError' });
});

test('executeTool: aborting the call aborts the page signal and fires toolcancel', async () => {
  const { mc } = load({ handover: false });
  let pageSignal;
  let started;
  const running = new Promise((r) => {
    started = r;
  });
  await mc.registerTool(tool('slow', {
    execute: (input, client) => new Promise(() => {
      pageSignal = client.signal;
      started();
    }),
  }));
  const cancelled = [];
  mc.ontoolcancel = (e) => cancelled.push(e.toolName);
  const ctl = new AbortController();
  const p = mc.executeTool((await mc.getTools())[0], {}, { signal: ctl.signal });
  await running;
  ctl.abort();
  await assert.rejects(p, { name: 'AbortError' });
  assert.equal(pageSignal.aborted, true);
  assert.equal(pageSignal.reason.name, 'AbortError');
  assert.deepEqual(cancelled, ['slow']);
});

test('the older API: provideContext, clearContext, unregisterTool, unregister()', async () => {
  const page = load();
  const { mc, nav } = page;
  await mc.registerTool(tool('registered'));
  nav.modelContext.provideContext({ tools: [tool('p1'), tool('p2')] });
  await next(page, toolsMsg(['registered', 'p1', 'p2']));
  mc.provideContext({ tools: [tool('p3')] });
  await next(page, toolsMsg(['registered', 'p3']));
  assert.throws(() => mc.provideContext({ tools: [tool('registered')] }), { name: 'InvalidStateError' });
  assert.throws(() => mc.provideContext({ tools: [tool('a'), tool('a')] }), { name: 'InvalidStateError' });
  assert.throws(() => mc.provideContext({ tools: 5 }), { name: 'TypeError' });
  assert.deepEqual(await listedNames(mc), ['registered', 'p3'], 'a failed provideContext changes nothing');
  mc.unregisterTool('p3');
  await next(page, toolsMsg(['registered']));
  const handle = mc.registerTool(tool('handle'));
  await handle;
  await next(page, toolsMsg(['registered', 'handle']));
  handle.unregister();
  await next(page, toolsMsg(['registered']));
  mc.clearContext();
  await next(page, toolsMsg([]));
});

test('tools are copied field by field, never serialised whole', async () => {
  const page = load();
  const t = tool('careful', {
    inputSchema: { type: 'object' },
    toJSON() {
      throw new Error('a tool object was serialised');
    },
  });
  await page.mc.registerTool(t);
  const m = await next(page, toolsMsg(['careful']));
  assert.deepEqual(m.tools[0], { name: 'careful', description: 'the careful tool', inputSchema: { type: 'object' } });
  page.port.postMessage({ type: 'call', id: 'c1', name: 'careful', arguments: {} });
  assert.deepEqual(await next(page, answer('c1')), { type: 'result', id: 'c1', output: 'careful' });
});

test('bridge calls: results and errors go back as they are', async () => {
  const page = load();
  const { mc, port } = page;
  await mc.registerTool(tool('obj', { execute: (input) => ({ echo: input, n: 1.5 }) }));
  await mc.registerTool(tool('str', { execute: (input) => input.text }));
  await mc.registerTool(tool('nothing', { execute: () => undefined }));
  await mc.registerTool(tool('nul', { execute: async () => null }));
  await mc.registerTool(tool('fail', { execute: () => { throw new Error('boom from the page'); } }));
  await mc.registerTool(tool('rejects', { execute: () => Promise.reject(new TypeError('bad input')) }));
  await mc.registerTool(tool('throwsString', { execute: () => { throw 'just a string'; } }));
  await mc.registerTool(tool('cyclic', { execute: () => { const o = {}; o.o = o; return o; } }));
  const call = async (id, name, args) => {
    port.postMessage({ type: 'call', id, name, arguments: args });
    return next(page, answer(id));
  };
  assert.deepEqual(await call('1', 'obj', { a: [1, 'x'] }), { type: 'result', id: '1', output: { echo: { a: [1, 'x'] }, n: 1.5 } });
  assert.deepEqual(await call('2', 'str', { text: '{"not":"parsed"}' }), { type: 'result', id: '2', output: '{"not":"parsed"}' });
  assert.deepEqual(await call('3', 'nothing', {}), { type: 'result', id: '3', output: null });
  assert.deepEqual(await call('4', 'nul', {}), { type: 'result', id: '4', output: null });
  assert.deepEqual(await call('5', 'fail', {}), { type: 'error', id: '5', error: { code: 'tool_error', message: 'boom from the page' } });
  assert.deepEqual(await call('6', 'rejects', {}), { type: 'error', id: '6', error: { code: 'tool_error', message: 'bad input' } });
  assert.deepEqual(await call('7', 'throwsString', {}), { type: 'error', id: '7', error: { code: 'tool_error', message: 'just a string' } });
  const cyc = await call('8', 'cyclic', {});
  assert.equal(cyc.error.code, 'tool_error');
  assert.match(cyc.error.message, /not JSON/);
  const missing = await call('9', 'missing', {});
  assert.equal(missing.error.code, 'not_found');
});

test('bridge calls: cancel aborts the page signal and sends no answer', async () => {
  const page = load();
  const { mc, port } = page;
  const signals = [];
  let allStarted;
  const started = new Promise((r) => {
    allStarted = r;
  });
  await mc.registerTool(tool('slow', {
    execute: (input, { signal }) => new Promise((resolve, reject) => {
      signals.push(signal);
      if (signals.length === 3) allStarted();
      signal.addEventListener('abort', () => reject(signal.reason));
    }),
  }));
  await mc.registerTool(tool('quick'));
  const aborted = (s) => new Promise((r) => (s.aborted ? r() : s.addEventListener('abort', r)));
  const cancels = [];
  mc.addEventListener('toolcancel', (e) => cancels.push(e.toolName));
  port.postMessage({ type: 'call', id: 'a', name: 'slow', arguments: {} });
  port.postMessage({ type: 'call', id: 'b', name: 'slow', arguments: {} });
  port.postMessage({ type: 'call', id: 'c', name: 'slow', arguments: {} });
  await started;
  port.postMessage({ type: 'cancel', id: 'a' });
  await aborted(signals[0]);
  // A quick call after the cancel: its answer comes after any answer the
  // cancelled call could have produced.
  port.postMessage({ type: 'call', id: 'q1', name: 'quick', arguments: {} });
  await next(page, answer('q1'));
  assert.deepEqual(signals.map((s) => s.aborted), [true, false, false]);
  port.postMessage({ type: 'cancelAll' });
  await Promise.all(signals.map(aborted));
  port.postMessage({ type: 'call', id: 'q2', name: 'quick', arguments: {} });
  await next(page, answer('q2'));
  assert.deepEqual(cancels, ['slow', 'slow', 'slow']);
  assert.deepEqual(page.messages.filter((m) => m.type !== 'tools'), [], 'the worker answers cancelled calls itself');
});

test('a page that assigns its own polyfill keeps it, and its tools are read', async () => {
  const page = load();
  const { nav, port } = page;
  const theirs = {
    tools: new Map(),
    registerTool(t) {
      this.tools.set(t.name, t);
      return { unregister: () => this.tools.delete(t.name) };
    },
    unregisterTool(name) {
      this.tools.delete(name);
    },
    provideContext({ tools }) {
      this.tools = new Map(tools.map((t) => [t.name, t]));
    },
    clearContext() {
      this.tools.clear();
    },
  };
  await page.mc.registerTool(tool('ours'));
  nav.modelContext = theirs;
  assert.equal(nav.modelContext, theirs);
  const reg = nav.modelContext.registerTool(tool('theirs1', {
    title: 'Theirs',
    annotations: { destructiveHint: true },
    execute(input) {
      return { self: this === reg || this.name, input };
    },
  }));
  assert.ok(theirs.tools.has('theirs1'), 'their registry still works');
  await next(page, toolsMsg(['ours', 'theirs1']));
  port.postMessage({ type: 'call', id: 'f1', name: 'theirs1', arguments: { q: 1 } });
  assert.deepEqual(await next(page, answer('f1')), { type: 'result', id: 'f1', output: { self: 'theirs1', input: { q: 1 } } });
  reg.unregister();
  await next(page, toolsMsg(['ours']));
  assert.equal(theirs.tools.has('theirs1'), false);
  nav.modelContext.provideContext({ tools: [tool('pa'), tool('pb')] });
  await next(page, toolsMsg(['ours', 'pa', 'pb']));
  nav.modelContext.unregisterTool('pa');
  await next(page, toolsMsg(['ours', 'pb']));
  nav.modelContext.clearContext();
  await next(page, toolsMsg(['ours']));
  assert.equal(page.doc.modelContext, page.mc, 'document.modelContext stays ours');
});

test('a page polyfill defined with Object.defineProperty is noticed, with the tools it already had', async () => {
  const page = load();
  const { nav, port } = page;
  await next(page, toolsMsg([]));
  const registry = [tool('early', { execute: (input) => `early ${input.x}` })];
  const theirs = {
    registerTool(t) {
      registry.push(t);
    },
    listTools() {
      return registry.map(({ name, description }) => ({ name, description }));
    },
    executeTool(name, args) {
      return registry.find((t) => t.name === name).execute(args);
    },
  };
  Object.defineProperty(nav, 'modelContext', { value: theirs, configurable: true });
  assert.equal(nav.modelContext, theirs);
  port.postMessage({ type: 'sync' });
  await next(page, toolsMsg(['early']));
  port.postMessage({ type: 'call', id: 'e1', name: 'early', arguments: { x: 7 } });
  assert.deepEqual(await next(page, answer('e1')), { type: 'result', id: 'e1', output: 'early 7' });
  theirs.registerTool(tool('later'));
  await next(page, toolsMsg(['early', 'later']));
});

test('the handover takes only a port from the window itself, once', async () => {
  const page = load({ handover: false });
  await page.mc.registerTool(tool('t'));
  const stranger = new MessageChannel();
  const other = new EventTarget();
  open.push(stranger.port1, stranger.port2);
  const got = [];
  stranger.port1.onmessage = (e) => got.push(e.data);
  page.win.dispatchEvent(makeHandover(page.win, stranger.port2, other)); // posted by another window
  const real = new MessageChannel();
  open.push(real.port1, real.port2);
  const realGot = [];
  real.port1.onmessage = (e) => realGot.push(e.data);
  const ev = makeHandover(page.win, real.port2);
  let pageSaw = false;
  page.win.addEventListener('message', () => {
    pageSaw = true;
  });
  page.win.dispatchEvent(ev);
  assert.equal(pageSaw, false, 'the page does not see the handover');
  const third = new MessageChannel();
  open.push(third.port1, third.port2);
  const thirdGot = [];
  third.port1.onmessage = (e) => thirdGot.push(e.data);
  page.win.dispatchEvent(makeHandover(page.win, third.port2)); // a second "handover" later
  // Two round trips on the real port; a wrongly adopted port would have got
  // its first message (the tool list) long before.
  const realMsg = () => new Promise((r) => {
    real.port1.onmessage = (e) => {
      realGot.push(e.data);
      r();
    };
  });
  if (!realGot.length) await realMsg();
  const again = realMsg();
  real.port1.postMessage({ type: 'sync' });
  await again;
  assert.deepEqual(got, []);
  assert.deepEqual(thirdGot, []);
  assert.equal(realGot.length, 2);
  assert.deepEqual(realGot.map((m) => m.tools.map((t) => t.name)), [['t'], ['t']]);
});

// ---- context providers ------------------------------------------------------

const providersMsg = (ids) => (m) => m.type === 'providers' && JSON.stringify(m.providers.map((p) => p.id)) === JSON.stringify(ids);
const sampled = (id) => (m) => m.type === 'sampled' && m.id === id;

function provider(id, getContext, extra = {}) {
  return { id, description: `the ${id} provider`, getContext, ...extra };
}

test('registerContextProvider is on document.modelContext and navigator.modelContext, and returns a promise', async () => {
  const page = load();
  const { mc, nav } = page;
  for (const m of ['registerContextProvider', 'unregisterContextProvider', 'contextChanged']) {
    assert.equal(typeof mc[m], 'function', m);
    assert.equal(Object.keys(page.win.ModelContext.prototype).includes(m), false, 'not enumerable, like the other methods');
  }
  assert.equal(nav.modelContext.registerContextProvider, mc.registerContextProvider);
  const p = mc.registerContextProvider(provider('trace.Timeline#selection', () => undefined));
  assert.equal(typeof p.then, 'function');
  assert.equal(await p, undefined);
  const m = await next(page, providersMsg(['trace.Timeline#selection']));
  assert.deepEqual(m.providers, [{ id: 'trace.Timeline#selection', description: 'the trace.Timeline#selection provider' }]);
});

test('registerContextProvider rejects what it cannot take, never throwing', async () => {
  const { mc } = load({ handover: false });
  await mc.registerContextProvider(provider('dup', () => undefined));
  const cases = [
    [provider('dup', () => undefined), { name: 'InvalidStateError', message: /Duplicate context provider id "dup"/ }],
    [provider('', () => undefined), { name: 'InvalidStateError', message: /Invalid context provider id/ }],
    [provider('x'.repeat(201), () => undefined), { name: 'InvalidStateError' }],
    [provider('line\nbreak', () => undefined), { name: 'InvalidStateError' }],
    [provider(5, () => undefined), { name: 'TypeError', message: /'id'.*not a string/ }],
    [{ getContext() {} }, { name: 'TypeError', message: /'id'.*Required member/ }],
    [provider('nofn', undefined), { name: 'TypeError', message: /'getContext'.*Required member/ }],
    [provider('notfn', 'str'), { name: 'TypeError', message: /'getContext'.*not a function/ }],
    [null, { name: 'TypeError' }],
  ];
  for (const [p, want] of cases) {
    let r;
    assert.doesNotThrow(() => {
      r = mc.registerContextProvider(p);
    });
    await assert.rejects(r, want);
  }
  await assert.rejects(mc.registerContextProvider(provider('s', () => 1), { signal: 'nope' }), { name: 'TypeError' });
  await assert.rejects(mc.registerContextProvider(provider('s', () => 1), 5), { name: 'TypeError' });
  const pre = new AbortController();
  pre.abort('already');
  await assert.rejects(mc.registerContextProvider(provider('s', () => 1), { signal: pre.signal }), (e) => e === 'already');
  await assert.rejects(mc.registerContextProvider.call({}, provider('t', () => 1)), { name: 'TypeError', message: /Illegal invocation/ });
  assert.throws(() => mc.contextChanged.call({}), { name: 'TypeError', message: /Illegal invocation/ });
  for (let i = 1; i < 64; i++) await mc.registerContextProvider(provider(`p${i}`, () => undefined));
  await assert.rejects(mc.registerContextProvider(provider('p64', () => undefined)), { name: 'QuotaExceededError' });
});

test('provider ids follow the same rules as lib/snapshot.js', async () => {
  await import('../lib/snapshot.js');
  const S = globalThis.webmcpLib.snapshot;
  const { mc } = load({ handover: false });
  const ids = ['trace.Timeline#selection', 'dev.perfetto.Flamegraph#panel:3', 'x', 'a b', '', ' ', 'x'.repeat(200), 'x'.repeat(201), 'tab\t', 'ü#1', 'a\u0085'];
  for (const id of ids) {
    const p = mc.registerContextProvider(provider(id, () => undefined));
    if (S.isValidProviderId(id)) await p;
    else await assert.rejects(p, { name: 'InvalidStateError' }, JSON.stringify(id));
  }
});

test('aborting the signal or unregisterContextProvider removes a provider', async () => {
  const page = load();
  const { mc } = page;
  const ctl = new AbortController();
  await mc.registerContextProvider(provider('a', () => undefined), { signal: ctl.signal });
  await mc.registerContextProvider(provider('b', () => undefined));
  await next(page, providersMsg(['a', 'b']));
  ctl.abort();
  await next(page, providersMsg(['b']));
  mc.unregisterContextProvider('b');
  await next(page, providersMsg([]));
  mc.unregisterContextProvider('never there');
  await mc.registerContextProvider(provider('a', () => undefined));
  await next(page, providersMsg(['a']));
});

test('a sample: each provider in order, a throwing or slow one left out with a note', async () => {
  const clock = fakeClock();
  const page = load({ clock });
  const { mc, port } = page;
  let self;
  const cyclic = {};
  cyclic.self = cyclic;
  await mc.registerContextProvider(provider('trace.Timeline#selection', function () {
    self = this;
    return { summary: 'Selected slice "CommitNavigation"', data: { type: 'slice', id: 3 } };
  }));
  await mc.registerContextProvider(provider('test.Broken', () => { throw new Error('provider exploded'); }));
  await mc.registerContextProvider(provider('nothing', () => undefined, { description: undefined }));
  await mc.registerContextProvider(provider('async', async () => ({ summary: 'later', data: [1, 2] })));
  await mc.registerContextProvider(provider('test.Slow', () => new Promise(() => {})));
  await mc.registerContextProvider(provider('rejects', () => Promise.reject(new TypeError('no luck'))));
  await mc.registerContextProvider(provider('number', () => 42));
  await mc.registerContextProvider(provider('cyclic', () => ({ summary: 's', data: cyclic })));
  await mc.registerContextProvider(provider('nodata', () => ({ summary: 5 })));
  await next(page, providersMsg(['trace.Timeline#selection', 'test.Broken', 'nothing', 'async', 'test.Slow', 'rejects', 'number', 'cyclic', 'nodata']));
  page.messages.splice(0); // the reports of the providers registered so far
  // A round trip on the port after the sample: an answer sent while the
  // sample was handled would come before the providers that sync sends.
  const roundTrip = async () => {
    port.postMessage({ type: 'sync' });
    await next(page, (msg) => msg.type === 'providers');
  };
  port.postMessage({ type: 'sample', id: 7 });
  await roundTrip();
  assert.deepEqual(clock.pending(), [50], 'the slow provider is given 50 ms on the page\'s clock');
  clock.tick(49);
  await roundTrip();
  assert.equal(page.messages.filter(sampled(7)).length, 0, 'no answer before the 50 ms are up');
  clock.tick(1);
  const m = await next(page, sampled(7));
  assert.deepEqual(clock.pending(), []);
  assert.equal(self.id, 'trace.Timeline#selection', 'getContext is called on its provider');
  const d = (id) => `the ${id} provider`;
  assert.deepEqual(plain(m.providers), [
    { id: 'trace.Timeline#selection', description: d('trace.Timeline#selection'), summary: 'Selected slice "CommitNavigation"', json: '{"type":"slice","id":3}' },
    { id: 'test.Broken', description: d('test.Broken'), note: 'threw: provider exploded' },
    { id: 'async', description: d('async'), summary: 'later', json: '[1,2]' },
    { id: 'test.Slow', description: d('test.Slow'), note: 'timed out after 50 ms' },
    { id: 'rejects', description: d('rejects'), note: 'threw: no luck' },
    { id: 'number', description: d('number'), note: 'returned number, not {summary, data} or undefined' },
    { id: 'cyclic', description: d('cyclic'), note: m.providers[6].note },
    { id: 'nodata', description: d('nodata'), summary: '5' },
  ]);
  assert.match(m.providers[6].note, /^data is not JSON: .*circular/i);
});

test('a sample without slow providers answers at once', async () => {
  const clock = fakeClock();
  const page = load({ clock });
  await page.mc.registerContextProvider(provider('a', () => ({ summary: 'a' })));
  page.port.postMessage({ type: 'sample', id: 1 });
  const m = await next(page, sampled(1)); // the page's clock stands still
  assert.deepEqual(clock.set, [], 'no timer: nothing to wait for');
  assert.deepEqual(plain(m.providers), [{ id: 'a', description: 'the a provider', summary: 'a' }]);
  page.port.postMessage({ type: 'sample', id: 2 });
  page.mc.unregisterContextProvider('a');
  assert.deepEqual(plain((await next(page, sampled(2))).providers), [],
    'a sample takes the providers of the moment it runs, after the unregistration');
});

test('contextChanged tells the relay, once per burst', async () => {
  const page = load();
  page.mc.contextChanged();
  page.mc.contextChanged('trace.Timeline#selection');
  page.nav.modelContext.contextChanged();
  await next(page, (m) => m.type === 'contextChanged');
  page.port.postMessage({ type: 'sync' });
  await next(page, toolsMsg([]));
  assert.equal(page.messages.filter((m) => m.type === 'contextChanged').length, 0);
});

test('a page that assigns its own modelContext gets the context API too', async () => {
  const page = load();
  const theirs = { registerTool() {} };
  page.nav.modelContext = theirs;
  assert.equal(typeof theirs.registerContextProvider, 'function');
  await theirs.registerContextProvider(provider('mine', () => ({ summary: 'x' })));
  await next(page, providersMsg(['mine']));
  const own = { registerTool() {}, registerContextProvider: () => 'their own' };
  page.nav.modelContext = own;
  assert.equal(own.registerContextProvider(), 'their own', 'one it has already stays');
});
