// The main-world modules (content/main/), one by one, in Node's own world:
// each takes what it needs as parameters, so a test hands it fakes. The
// bundle they make, generated/main-world.js, is tested whole in main-world*.test.js.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GAP, TAKEN_TIMEOUT, createBridge } from '../content/source/bridge.js';
import { createChanges } from '../content/main/changes.js';
import { definePolyfill } from '../content/main/polyfill/polyfill.js';
import { originOf } from '../content/main/polyfill/sameorigin.js';
import { createProviders } from '../content/main/providers.js';
import { PROVIDER_TIMEOUT, sampleProviders } from '../content/main/sample.js';
import { TOOL_NAME_PATTERN, copyMeta, copySchema } from '../content/source/toolcopy.js';
import { TOOL_NAME_PATTERN as LIB_PATTERN } from '../lib/names.js';
import { FakeClock, drain } from './fakes/clock.js';

test('the tool-name pattern is lib/names.js\'s own', () => {
  assert.equal(TOOL_NAME_PATTERN, LIB_PATTERN);
  assert.equal(copyMeta({ name: 'bad name', description: 'd' }), null);
  assert.deepEqual(copyMeta({ name: 'ok', description: 'd', annotations: { readOnlyHint: true, x: true } }),
    { name: 'ok', description: 'd', annotations: { readOnlyHint: true } });
});

test('copySchema: a JSON copy within lib/schema.js\'s bounds, the stand-in past them', () => {
  const schema = { type: 'object', properties: { a: { type: 'string' } } };
  const copy = copySchema(schema);
  assert.deepEqual(copy, schema);
  assert.notEqual(copy, schema);
  assert.deepEqual(copySchema(JSON.stringify(schema)), schema, 'JSON text, as the browser lists it');
  let deep = {};
  for (let i = 0; i < 100; i++) deep = { p: deep };
  assert.deepEqual(Object.keys(copySchema(deep)), ['type', 'x-webmcp-rejected']);
  const cyclic = {};
  cyclic.self = cyclic;
  assert.match(copySchema(cyclic)['x-webmcp-rejected'], /nested/);
  for (const none of [undefined, null, 5, '[1]', 'not json', [1]]) assert.equal(copySchema(none), undefined, JSON.stringify(none));
});

test('changes: a burst of notices is one call per microtask checkpoint', async () => {
  const changes = createChanges(queueMicrotask);
  const heard = [];
  changes.listen({ changed: () => heard.push('changed'), providersChanged: () => heard.push('providers'), contextChanged: () => heard.push('context') });
  changes.changed();
  changes.providersChanged();
  changes.changed();
  changes.contextChanged();
  changes.providersChanged();
  changes.contextChanged();
  assert.deepEqual(heard, []);
  await drain();
  assert.deepEqual(heard, ['changed', 'providers', 'context']);
  changes.changed();
  await drain();
  assert.deepEqual(heard, ['changed', 'providers', 'context', 'changed']);
  assert.throws(() => changes.listen({}), /already/);
});

test('the polyfill by itself: registerTool, its list of tools, running one', async () => {
  const win = { location: { origin: 'http://localhost:1' } };
  let changed = 0;
  const tasks = [];
  const poly = definePolyfill({ win, changed: () => changed++, queueTask: (fn) => tasks.push(fn) });
  const { mc, classes } = poly;
  assert.ok(mc instanceof classes.ModelContext);
  assert.equal(mc.registerContextProvider, undefined, 'the context API is the bridge\'s to add');
  const p = mc.registerTool({ name: 'echo', description: 'Echoes.', annotations: { readOnlyHint: true }, execute: (input) => input });
  assert.equal(changed, 1);
  let resolved = false;
  p.then(() => {
    resolved = true;
  });
  const changes = [];
  mc.ontoolchange = () => changes.push('toolchange');
  await drain();
  assert.equal(resolved, false, 'registerTool resolves after the toolchange task');
  tasks.shift()();
  await drain();
  assert.equal(resolved, true);
  assert.deepEqual(changes, ['toolchange']);
  const list = poly.list();
  assert.deepEqual([...list.keys()], ['echo']);
  assert.deepEqual(list.get('echo').meta, { name: 'echo', description: 'Echoes.', annotations: { readOnlyHint: true } });
  const activated = [];
  mc.addEventListener('toolactivated', (e) => activated.push([e.constructor.name, e.toolName]));
  assert.deepEqual(await list.get('echo').run({ a: 1 }, new AbortController().signal), { a: 1 });
  assert.deepEqual(activated, [['ToolActivatedEvent', 'echo']]);
  const [listed] = await mc.getTools();
  assert.equal(listed.origin, 'http://localhost:1');
  assert.equal(listed.window, win);
});

test('the polyfill takes the context API it is given', () => {
  const added = [];
  const poly = definePolyfill({
    win: {},
    changed() {},
    addContextApi: (proto, ok) => added.push({ proto, ok }),
  });
  assert.equal(added.length, 1);
  assert.equal(added[0].proto, poly.classes.ModelContext.prototype);
  assert.equal(added[0].ok(poly.mc), true);
  assert.equal(added[0].ok({}), false);
});

// The page's timers, on a fake clock, as sampleProviders takes them.
const timersOf = (clock) => ({ setTimer: clock.api.setTimeout, clearTimer: clock.api.clearTimeout });

test('sampleProviders: a slow provider is cut at the timer, the others kept', async () => {
  const clock = new FakeClock();
  const got = [];
  const list = [
    { id: 'quick', description: '', getContext: () => ({ summary: 'q', data: { n: 1 } }) },
    { id: 'slow', description: 'd', getContext: () => new Promise(() => {}) },
    { id: 'none', description: '', getContext: () => undefined },
  ];
  for (const rec of list) rec.self = rec;
  sampleProviders(list, (s) => got.push(s), timersOf(clock));
  await drain();
  assert.deepEqual(got, [], 'waits for the slow one');
  assert.deepEqual(clock.pending(), [PROVIDER_TIMEOUT]);
  await clock.advance(PROVIDER_TIMEOUT - 1);
  assert.deepEqual(got, []);
  await clock.advance(1);
  assert.deepEqual(got, [[
    { id: 'quick', summary: 'q', json: '{"n":1}' },
    { id: 'slow', description: 'd', note: `timed out after ${PROVIDER_TIMEOUT} ms` },
  ]]);
});

test('sampleProviders: when every promise settles, the timer is cleared', async () => {
  const clock = new FakeClock();
  const got = [];
  const rec = { id: 'async', description: '', getContext: async () => ({ summary: 's' }) };
  rec.self = rec;
  sampleProviders([rec], (s) => got.push(s), timersOf(clock));
  await drain();
  assert.deepEqual(got, [[{ id: 'async', summary: 's' }]]);
  assert.equal(clock.seq, 1, 'one timer set');
  assert.deepEqual(clock.pending(), [], 'and cleared');
});

test('providers: the registry, its notices and the methods it puts on an object', async () => {
  const notices = [];
  const providers = createProviders({ changed: () => notices.push('changed'), contextChanged: () => notices.push('context') });
  const obj = {};
  providers.addMethods(obj, (that) => that === obj);
  assert.equal(Object.keys(obj).length, 0, 'non-enumerable');
  await obj.registerContextProvider({ id: 'a.B#c', description: 'about', getContext: () => ({ summary: 's' }) });
  assert.deepEqual(providers.defs(), [{ id: 'a.B#c', description: 'about' }]);
  obj.contextChanged();
  obj.unregisterContextProvider('a.B#c');
  assert.deepEqual(notices, ['changed', 'context', 'changed']);
  assert.deepEqual(providers.defs(), []);
  assert.throws(() => obj.contextChanged.call({}), /Illegal invocation/);
});

// A port's far end that collects what the bridge posts.
function farEnd() {
  const ch = new MessageChannel();
  const got = [];
  let wake = () => {};
  let sentinels = 0;
  let arrived = 0;
  ch.port1.onmessage = (e) => {
    if (e.data && typeof e.data.sentinel === 'number') arrived = e.data.sentinel;
    else got.push(e.data);
    wake();
  };
  const until = async (ok) => {
    while (!ok()) {
      await new Promise((r) => {
        wake = r;
      });
    }
  };
  return {
    port: ch.port2,
    got,
    post: (m) => ch.port1.postMessage(m),
    close: () => ch.port1.close(),
    // The next message that pred accepts, taken out of got.
    async next(pred) {
      let i = -1;
      await until(() => (i = got.findIndex(pred)) >= 0);
      return got.splice(i, 1)[0];
    },
    // Resolves once what the bridge has posted so far is in got: its
    // promise jobs run first, then a sentinel goes down the bridge's own
    // end of the port, behind all it posted (a port is first in, first
    // out). One turn of the event loop is not enough: a port's message
    // may come a turn later.
    async posted() {
      await drain();
      const n = ++sentinels;
      ch.port2.postMessage({ sentinel: n });
      await until(() => arrived === n);
    },
  };
}

test('bridge: one tools message at a time; what changes meanwhile goes as one message once it is taken, after a gap', async (t) => {
  const clock = new FakeClock();
  const tools = new Map([['t0', { meta: { name: 't0', description: '' }, run: async () => 0 }]]);
  let prepared = 0;
  const bridge = createBridge({
    tools: () => new Map(tools), beforeLook: () => {}, providerDefs: () => [], sample: () => {},
    prepare: (done) => {
      prepared++;
      clock.t += 10; // each report takes 10 ms
      setImmediate(done); // like getTools(): later
    },
    timers: clock.bridgeTimers,
  });
  const w = farEnd();
  t.after(w.close); // a failed check too
  bridge.connect(w.port);
  assert.equal((await w.next((m) => m.type === 'tools')).tools.length, 1);
  for (let i = 1; i <= 500; i++) {
    tools.set(`t${i}`, { meta: { name: `t${i}`, description: '' }, run: async () => i });
    bridge.sync();
    if (i % 50 === 0) await drain();
  }
  await w.posted();
  assert.equal(w.got.filter((m) => m.type === 'tools').length, 0, 'nothing more until the first is taken in');
  assert.equal(prepared, 1, 'nor is the next report prepared');
  w.post({ type: 'toolsTaken' });
  await drain();
  assert.equal(prepared, 1, 'after a gap of GAP times the last report\'s cost');
  assert.deepEqual(clock.pending(), [10 * GAP]);
  await clock.advance(10 * GAP);
  assert.equal((await w.next((m) => m.type === 'tools')).tools.length, 501, 'one message carries every change');
  assert.equal(prepared, 2);

  // A message that is never taken in holds nothing up for longer than the guard.
  tools.delete('t0');
  bridge.sync();
  await w.posted();
  assert.equal(w.got.filter((m) => m.type === 'tools').length, 0);
  await clock.advance(TAKEN_TIMEOUT + 10 * GAP);
  assert.equal((await w.next((m) => m.type === 'tools')).tools.length, 500);

  // Once it has been quiet for the gap, a change is reported at once.
  w.post({ type: 'toolsTaken' });
  await drain();
  await clock.advance(10 * GAP);
  assert.deepEqual(clock.pending(), []);
  tools.delete('t1');
  bridge.sync();
  assert.equal((await w.next((m) => m.type === 'tools')).tools.length, 499);
});

test('bridge: looks that find nothing new are paced too (other frames\' toolchanges)', async (t) => {
  const clock = new FakeClock();
  let prepared = 0;
  const bridge = createBridge({
    tools: () => new Map(), beforeLook: () => {}, providerDefs: () => [], sample: () => {},
    prepare: (done) => {
      prepared++;
      clock.t += 10;
      setImmediate(done);
    },
    timers: clock.bridgeTimers,
  });
  const w = farEnd();
  t.after(w.close); // a failed check too
  bridge.connect(w.port);
  await w.next((m) => m.type === 'tools');
  w.post({ type: 'toolsTaken' });
  await drain();
  await clock.advance(10 * GAP);
  for (let i = 0; i < 100; i++) {
    bridge.sync();
    await drain();
  }
  assert.equal(prepared, 2, 'one look, then a gap of twice its cost');
  await clock.advance(10 * GAP);
  assert.equal(prepared, 3, 'then one look for all the changes meanwhile');
});

test('bridge: reports tools, runs a call, and a cancelled call gets no answer', async () => {
  let release;
  const tools = new Map([
    ['echo', { meta: { name: 'echo', description: '' }, run: async (input) => input }],
    ['wait', { meta: { name: 'wait', description: '' }, run: (input, signal) => new Promise((resolve, reject) => {
      release = resolve;
      signal.addEventListener('abort', () => reject(new Error('aborted')));
    }) }],
  ]);
  let looked = 0;
  let connected = 0;
  const bridge = createBridge({
    tools: () => new Map(tools),
    beforeLook: () => looked++,
    providerDefs: () => [],
    sample: (done) => done([{ id: 'p', summary: 's' }]),
    prepare: (done) => {
      connected++;
      done();
    },
  });
  bridge.sync();
  assert.equal(looked, 1, 'it looks for page objects even before it has a port');
  const w = farEnd();
  bridge.connect(w.port);
  assert.equal(connected, 1, 'it brings the tools up to date before the first report');
  assert.deepEqual((await w.next((m) => m.type === 'tools')).tools.map((t) => t.name), ['echo', 'wait']);
  w.post({ type: 'call', id: '1', name: 'echo', arguments: { x: 1 } });
  assert.deepEqual(await w.next((m) => m.id === '1'), { type: 'result', id: '1', output: { x: 1 } });
  w.post({ type: 'call', id: '2', name: 'nope', arguments: {} });
  assert.equal((await w.next((m) => m.id === '2')).error.code, 'not_found');
  w.post({ type: 'call', id: '3', name: 'wait', arguments: {} });
  w.post({ type: 'cancel', id: '3' });
  w.post({ type: 'sample', id: 9 });
  assert.deepEqual(await w.next((m) => m.type === 'sampled'), { type: 'sampled', id: 9, providers: [{ id: 'p', summary: 's' }] });
  release('late');
  w.post({ type: 'call', id: '4', name: 'echo', arguments: {} });
  await w.next((m) => m.id === '4');
  assert.deepEqual(w.got.filter((m) => m.id === '3'), [], 'the worker answers a cancelled call itself');
  w.close();
});

// dialogs.js: alert, confirm and prompt wrapped so that the relay hears of
// a dialog before it blocks the page, looking as the browser's own do.
test('dialogs: the wrappers tell before and after, and look like the originals', async () => {
  const { watchDialogs } = await import('../content/main/dialogs.js');
  const calls = [];
  const win = { Proxy, WeakMap, Function: { prototype: Object.create(Function.prototype) } };
  // The "browser's" functions: methods (no prototype, not constructors).
  const natives = {
    alert(message) { calls.push(['alert', this, message]); },
    confirm() { calls.push(['confirm', arguments[0]]); return true; },
    prompt() { calls.push(['prompt', ...arguments]); return 'typed'; },
  };
  for (const k of Object.keys(natives)) Object.defineProperty(win, k, { value: natives[k], writable: true, enumerable: true, configurable: true });
  Object.defineProperty(win.Function.prototype, 'toString', { value: Function.prototype.toString, writable: true, configurable: true });
  const origToString = win.Function.prototype.toString;
  const notes = [];
  watchDialogs({ win, notify: (open, kind, text) => notes.push([open, kind, text, calls.length]) });

  for (const k of ['alert', 'confirm', 'prompt']) {
    assert.notEqual(win[k], natives[k], `${k} is wrapped`);
    assert.equal(win[k].name, natives[k].name);
    assert.equal(win[k].length, natives[k].length);
    assert.equal('prototype' in win[k], false);
    assert.deepEqual(Object.getOwnPropertyDescriptor(win, k).enumerable, true);
    assert.equal(win.Function.prototype.toString.call(win[k]), origToString.call(natives[k]), `${k}'s text is the original's`);
  }
  assert.equal(win.Function.prototype.toString.call(win.Function.prototype.toString), origToString.call(origToString));
  assert.equal(win.Function.prototype.toString.call(watchDialogs), origToString.call(watchDialogs), 'other functions keep their text');

  // The message is converted once, before the note.
  let conversions = 0;
  const msg = { toString() { conversions++; return 'Hello'; } };
  win.alert(msg);
  assert.equal(conversions, 1);
  assert.equal(calls.at(-1)[1], win);
  assert.equal(calls.at(-1)[2], 'Hello');
  assert.deepEqual(notes, [[true, 'alert', 'Hello', 0], [false, 'alert', 'Hello', 1]]);
  assert.equal(win.confirm.call(win, 'Sure?'), true);
  assert.equal(win.prompt('Name?', 'x'), 'typed');
  assert.deepEqual(calls.at(-1), ['prompt', 'Name?', 'x']);
  assert.deepEqual(notes.slice(2).map((n) => n.slice(0, 3)), [[true, 'confirm', 'Sure?'], [false, 'confirm', 'Sure?'], [true, 'prompt', 'Name?'], [false, 'prompt', 'Name?']]);
  // Another `this`: the browser's to refuse; no note.
  notes.length = 0;
  win.alert.call({}, 'x');
  assert.deepEqual(notes, []);
  // No message: an empty text; a throwing notify does not stop the dialog.
  win.alert();
  assert.deepEqual(notes.map((n) => n[2]), ['', '']);
});

// A page runtime that took the polyfill for the browser's own (@mcp-b/global
// 5.x) calls executeTool with JSON text, as Chromium took it before 156: the
// polyfill takes it only while takesText() says so (index.js: the page put
// its own object on the document); Chromium 156 refuses it, and so does the
// polyfill otherwise.
test('polyfill: executeTool takes JSON text of an object only while takesText() says so', async () => {
  let text = false;
  const { mc } = definePolyfill({ win: {}, changed() {}, queueTask: (fn) => queueMicrotask(fn), takesText: () => text });
  await mc.registerTool({ name: 'echo', description: 'Echoes.', execute: (input) => input });
  const [tool] = await mc.getTools();
  await assert.rejects(mc.executeTool(tool, '{"a":1}'), { name: 'TypeError', message: /invalid input object: value is not an object/ });
  text = true;
  assert.equal(await mc.executeTool(tool, '{"a":1}'), '{"a":1}');
  assert.equal(await mc.executeTool(tool, { b: 2 }), '{"b":2}', 'an object as ever');
  for (const bad of ['x', '[1]', '1', 'null']) {
    await assert.rejects(mc.executeTool(tool, bad), { name: 'TypeError', message: /invalid input object: value is not an object/ }, bad);
  }
});

test('originOf: the document\'s origin (self.origin), which a frame without src inherits where location.origin says "null"', () => {
  assert.equal(originOf({ origin: 'http://localhost:1', location: { origin: 'null' } }), 'http://localhost:1');
  assert.equal(originOf({ location: { origin: 'http://localhost:2' } }), 'http://localhost:2');
  const crossOrigin = { get origin() { throw new Error('SecurityError'); }, get location() { throw new Error('SecurityError'); } };
  assert.equal(originOf(crossOrigin), '');
  assert.equal(originOf({}), '');
});
