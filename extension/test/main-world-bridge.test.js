// The generated main-world script's side of the bridge: the handover, calls
// over the port, cancels, and a page's own modelContext.
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import vm from 'node:vm';
import { ANSWER_HOLD, TAKEN_TIMEOUT } from '../content/source/bridge.js';
import { FakeClock, drain } from './fakes/clock.js';
import { answer, closePorts, keepOpen, load, makeHandover, next, plain, provider, providersMsg, sampled, tool, toolsMsg } from './fakes/main-world.js';
import { frameCase, frameProblem } from './golden.js';

afterEach(closePorts);

test('one tools message at a time, on the page\'s own timers: what changes before it is taken in goes next', async () => {
  const clock = new FakeClock();
  const page = load({ clock: clock.api, ack: false });
  await next(page, toolsMsg([]));
  await page.mc.registerTool(tool('a'));
  await page.mc.registerTool(tool('b'));
  await page.posted();
  assert.equal(page.messages.filter((m) => m.type === 'tools').length, 0, 'the first is not taken in yet');
  // The relay takes every message in; when it does not, the hang guard
  // (a timer of the page's) lets the next one go.
  await clock.advance(TAKEN_TIMEOUT);
  await next(page, toolsMsg(['a', 'b']));
  page.port.postMessage({ type: 'toolsTaken' });
  await drain();
  await page.mc.registerTool(tool('c'));
  await next(page, toolsMsg(['a', 'b', 'c']));
});

test('a traced call gets the main world\'s marks: in, the tool done, out', async () => {
  const page = load();
  await page.mc.registerTool(tool('echo', { execute: (x) => x }));
  await next(page, toolsMsg(['echo']));
  page.port.postMessage({ type: 'call', id: 't1', name: 'echo', arguments: { a: 1 }, trace: [{ hop: 'relay.in', at: 1 }] });
  const m = await next(page, answer('t1'));
  assert.deepEqual(m.trace.map((x) => x.hop), ['relay.in', 'main.in', 'page.done', 'main.out']);
  page.port.postMessage({ type: 'call', id: 't2', name: 'echo', arguments: {} });
  assert.equal((await next(page, answer('t2'))).trace, undefined);
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

test('a tool\'s title is its own, else the one in its annotations (as @mcp-b/react-webmcp gives it); its hints as given (issue SEC2 item 9)', async () => {
  const page = load();
  await page.mc.registerTool(tool('context', { annotations: { title: 'Context: cart', readOnlyHint: true, idempotentHint: true, destructiveHint: false, openWorldHint: false } }));
  await page.mc.registerTool(tool('own', { title: 'Its own', annotations: { title: 'In annotations', idempotentHint: true } }));
  await page.mc.registerTool(tool('bare'));
  const m = await next(page, toolsMsg(['context', 'own', 'bare']));
  const [context, own, bare] = m.tools;
  assert.equal(context.title, 'Context: cart');
  assert.deepEqual(context.annotations, { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }, 'the hints the page set, and only those');
  assert.equal(own.title, 'Its own');
  assert.deepEqual(own.annotations, { idempotentHint: true });
  assert.equal(bare.title, undefined);
  assert.equal(bare.annotations, undefined);
  const listed = (await page.mc.getTools()).find((t) => t.name === 'context');
  assert.equal(listed.title, '', 'getTools() lists the tool\'s own title alone, as Chromium 156 does');
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
  // JSON text is its value, as the browser's own agent gets it (CDP's
  // WebMCP.invokeTool) and native mode gives it (issue SEC2 item 9).
  assert.deepEqual(await call('2', 'str', { text: '{"parsed":[1,"x"]}' }), { type: 'result', id: '2', output: { parsed: [1, 'x'] } });
  assert.deepEqual(await call('2b', 'str', { text: 'plain words' }), { type: 'result', id: '2b', output: 'plain words' });
  assert.deepEqual(await call('2c', 'str', { text: '42' }), { type: 'result', id: '2c', output: 42 });
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

test('bridge calls: a batch from the relay runs each call; answers that end together go back in one batch, a lone one as it is', async () => {
  const page = load();
  const { mc, port } = page;
  await mc.registerTool(tool('echo', { execute: (input) => input.text }));
  let release;
  const gate = new Promise((r) => {
    release = r;
  });
  await mc.registerTool(tool('gated', { execute: async () => { await gate; return 'late'; } }));
  const call = (id, name, text) => ({ type: 'call', id, name, arguments: { text } });
  port.postMessage({ type: 'batch', messages: [
    call('a', 'echo', 'A'), call('b', 'echo', 'B'), call('g', 'gated', ''), call('m', 'missing', ''),
    { type: 'batch', messages: [call('n', 'echo', 'nested')] },
  ] });
  const batch = await next(page, (m) => m.type === 'batch');
  assert.deepEqual(plain(batch.messages), [
    { type: 'error', id: 'm', error: { code: 'not_found', message: 'this page has no tool "missing" (any more)' } },
    { type: 'result', id: 'a', output: 'A' },
    { type: 'result', id: 'b', output: 'B' },
  ]);
  // The last call under way answers alone, at once.
  release();
  assert.deepEqual(plain(await next(page, answer('g'))), { type: 'result', id: 'g', output: 'late' });
  assert.deepEqual(page.messages.filter((m) => m.type !== 'tools'), [], 'a batch inside a batch is not run');
});

test('bridge calls: batches go both ways when the page replaced the arrays\' map, JSON.stringify and queueMicrotask', async () => {
  const page = load();
  let release;
  const gate = new Promise((r) => {
    release = r;
  });
  await page.mc.registerTool(tool('echo', { execute: (input) => input.text }));
  await page.mc.registerTool(tool('gated', { execute: async () => { await gate; return 'late'; } }));
  await next(page, toolsMsg(['echo', 'gated']));
  // The page's script, later.
  vm.runInContext(`
    Array.prototype.map = function () { throw new Error('the page\\'s map'); };
    JSON.stringify = () => { throw new Error('the page\\'s stringify'); };
    globalThis.queueMicrotask = () => { throw new Error('the page\\'s queueMicrotask'); };
  `, page.global);
  const call = (id, name) => ({ type: 'call', id, name, arguments: { text: id } });
  page.port.postMessage({ type: 'batch', messages: [call('a', 'echo'), call('b', 'echo'), call('g', 'gated')] });
  const batch = await next(page, (m) => m.type === 'batch');
  assert.deepEqual(plain(batch.messages), [{ type: 'result', id: 'a', output: 'a' }, { type: 'result', id: 'b', output: 'b' }]);
  release();
  assert.deepEqual(plain(await next(page, answer('g'))), { type: 'result', id: 'g', output: 'late' });
});

test('bridge calls: the answers of a batch wait for the others of it (ANSWER_HOLD ms at most); in a hidden document they do not wait', async () => {
  const gated = () => {
    let release;
    const gate = new Promise((r) => {
      release = r;
    });
    return { gate, release };
  };
  const call = (id, name) => ({ type: 'call', id, name, arguments: { text: id } });
  const nonTools = (page) => page.messages.filter((m) => m.type !== 'tools');
  const setUp = async (hidden) => {
    const clock = new FakeClock();
    const page = load({ clock: clock.api, hidden });
    let g = gated();
    await page.mc.registerTool(tool('echo', { execute: (input) => input.text }));
    await page.mc.registerTool(tool('gated', { execute: async () => { await g.gate; return 'late'; } }));
    await next(page, toolsMsg(['echo', 'gated']));
    return { clock, page, g: () => g, regate: () => (g = gated()) };
  };
  const held = async (clock) => {
    for (let i = 0; !clock.pending().includes(ANSWER_HOLD); i++) {
      if (i > 1000) throw new Error('the answers did not wait (no hold timer)');
      await drain();
    }
  };

  // Its sibling ends within the hold: one batch of both.
  const v = await setUp(false);
  v.page.port.postMessage({ type: 'batch', messages: [call('a', 'echo'), call('g', 'gated')] });
  await held(v.clock);
  await v.page.posted();
  assert.deepEqual(nonTools(v.page), [], 'the echo\'s answer waits for the gated call of its batch');
  v.g().release();
  const both = await next(v.page, (m) => m.type === 'batch');
  assert.deepEqual(plain(both.messages).map((m) => m.id), ['a', 'g']);
  assert.deepEqual(v.clock.pending(), [], 'the hold\'s timer is cleared');

  // Its sibling runs longer than the hold: the answer goes when it ends.
  v.regate();
  v.page.port.postMessage({ type: 'batch', messages: [call('b', 'echo'), call('h', 'gated')] });
  await held(v.clock);
  await v.clock.advance(ANSWER_HOLD);
  assert.deepEqual(plain(await next(v.page, answer('b'))), { type: 'result', id: 'b', output: 'b' });
  v.g().release();
  assert.deepEqual(plain(await next(v.page, answer('h'))), { type: 'result', id: 'h', output: 'late' });

  // A hidden document's timers are late: nothing waits there.
  const hid = await setUp(true);
  hid.page.port.postMessage({ type: 'batch', messages: [call('c', 'echo'), call('k', 'gated')] });
  assert.deepEqual(plain(await next(hid.page, answer('c'))), { type: 'result', id: 'c', output: 'c' });
  assert.deepEqual(hid.clock.pending(), []);
  hid.g().release();
  await next(hid.page, answer('k'));
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

// A page runtime's own registry on navigator (as @mcp-b/global 1.2 installs
// where the browser has no navigator.modelContext): its tools are not the
// browser's, whose own agent does not see them (CDP: no toolsAdded, "Tool
// not found"), so the bridge does not list them either, in both modes
// (issue SEC2 item 9). The page keeps its object, untouched.
test('a page that assigns its own polyfill keeps it, untouched, and its tools are not read', async () => {
  const page = load();
  const { nav, port } = page;
  const theirs = {
    tools: new Map(),
    registerTool(t) {
      this.tools.set(t.name, t);
      return { unregister: () => this.tools.delete(t.name) };
    },
    provideContext({ tools }) {
      this.tools = new Map(tools.map((t) => [t.name, t]));
    },
    getTools() {
      return [...this.tools.values()];
    },
  };
  const registerTool = theirs.registerTool;
  await page.mc.registerTool(tool('ours'));
  await next(page, toolsMsg(['ours']));
  nav.modelContext = theirs;
  assert.equal(nav.modelContext, theirs);
  // The bridge defines nothing on navigator; it looks at the page's
  // object when the document is parsed.
  page.doc.dispatchEvent(new Event('DOMContentLoaded'));
  nav.modelContext.registerTool(tool('theirs1'));
  nav.modelContext.provideContext({ tools: [tool('pa'), tool('theirs1')] });
  assert.ok(theirs.tools.has('pa'), 'their registry still works');
  assert.equal(theirs.registerTool, registerTool, 'their methods are their own');
  port.postMessage({ type: 'call', id: 'f1', name: 'theirs1', arguments: {} });
  const missing = await next(page, answer('f1'));
  assert.equal(missing.error.code, 'not_found');
  page.win.dispatchEvent(new Event('load'));
  await page.mc.registerTool(tool('ours2'));
  await next(page, toolsMsg(['ours', 'ours2']));
  assert.deepEqual(page.messages.filter((m) => m.type === 'tools' && m.tools.some((t) => t.name === 'theirs1' || t.name === 'pa')), [], 'no tools message names theirs');
  assert.equal(page.doc.modelContext, page.mc, 'document.modelContext stays ours');
});

// Firefox's own WebMCP prototype (dom.modelcontext.enabled), as Firefox 153
// has it: navigator.modelContext, a getter on Navigator.prototype, whose
// registerTool answers undefined; getTools lists what it holds (with
// dom.modelcontext.testing.enabled), at once, each tool as registered.
function firefoxModelContext() {
  const tools = new Map();
  return {
    tools,
    registerTool(t) {
      tools.set(t.name, t);
    },
    unregisterTool(name) {
      tools.delete(name);
    },
    getTools() {
      return [...tools.values()];
    },
  };
}

test('Firefox\'s own navigator.modelContext: its tools are read beside the polyfill\'s, called, and go when unregistered', async () => {
  const firefox = firefoxModelContext();
  const page = load({ navigatorMC: firefox });
  const { nav, port } = page;
  assert.equal(Object.hasOwn(nav, 'modelContext'), false, 'the browser\'s getter, on Navigator.prototype');
  assert.notEqual(page.doc.modelContext, firefox, 'document.modelContext is the polyfill');
  await page.mc.registerTool(tool('ours'));
  assert.equal(nav.modelContext.registerTool(tool('native', { execute: (input) => `native ${input.x}` })), undefined);
  assert.ok(firefox.tools.has('native'), 'Firefox\'s registry still works');
  await next(page, toolsMsg(['ours', 'native']));
  port.postMessage({ type: 'call', id: 'n1', name: 'native', arguments: { x: 2 } });
  assert.deepEqual(await next(page, answer('n1')), { type: 'result', id: 'n1', output: 'native 2' });
  nav.modelContext.unregisterTool('native');
  await next(page, toolsMsg(['ours']));
  assert.equal(firefox.tools.has('native'), false);
});

test('Firefox\'s own navigator.modelContext without its testing preference (no getTools): a tool it registers is still read', async () => {
  const firefox = firefoxModelContext();
  delete firefox.getTools;
  const page = load({ navigatorMC: firefox });
  page.nav.modelContext.registerTool(tool('native', { execute: () => 'ran' }));
  await next(page, toolsMsg(['native']));
  page.port.postMessage({ type: 'call', id: 'n2', name: 'native', arguments: {} });
  assert.deepEqual(await next(page, answer('n2')), { type: 'result', id: 'n2', output: 'ran' });
});

test('the handover takes only a port from the window itself, once', async () => {
  const page = load({ handover: false });
  await page.mc.registerTool(tool('t'));
  const stranger = new MessageChannel();
  const other = new EventTarget();
  keepOpen(stranger.port1, stranger.port2);
  const got = [];
  stranger.port1.onmessage = (e) => got.push(e.data);
  page.win.dispatchEvent(makeHandover(page.win, stranger.port2, other)); // posted by another window
  const real = new MessageChannel();
  keepOpen(real.port1, real.port2);
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
  keepOpen(third.port1, third.port2);
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

test('a schema past the bridge\'s bounds (lib/schema.js) travels as its stand-in; the frame\'s other tools as usual', async () => {
  const firefox = firefoxModelContext();
  const page = load({ navigatorMC: firefox });
  const nested = (n) => {
    let s = {};
    for (let i = 1; i < n; i++) s = { p: s };
    return s;
  };
  await page.mc.registerTool(tool('deep', { inputSchema: nested(100) }));
  await page.mc.registerTool(tool('fine', { inputSchema: { type: 'object' } }));
  // A schema deeper than a structured clone can go, in Firefox's own
  // navigator.modelContext.
  page.nav.modelContext.registerTool(tool('deeper', { inputSchema: nested(200000) }));
  const m = await next(page, toolsMsg(['deep', 'fine', 'deeper']));
  const [deep, fine, deeper] = m.tools;
  assert.equal(deep.inputSchema.type, 'object');
  assert.match(deep.inputSchema['x-webmcp-rejected'], /nested more than 64 levels/);
  assert.deepEqual(fine.inputSchema, { type: 'object' });
  assert.match(deeper.inputSchema['x-webmcp-rejected'], /nested more than 64 levels/);
  page.port.postMessage({ type: 'call', id: 'd1', name: 'deep', arguments: {} });
  assert.deepEqual(await next(page, answer('d1')), { type: 'result', id: 'd1', output: 'deep' }, 'the page still runs it');
});

// The golden messages of the relay's channel (testdata/frames/channel.json,
// PROTOCOL.md): the page's world takes each of the relay's in, and what it
// sends are the channel's golden messages.
test('golden: the page world\'s end of the relay\'s channel', async () => {
  const page = load();
  const golden = (name) => frameCase('channel', name);
  const { tools: [meta] } = golden('tools');
  await page.mc.registerTool({ ...meta, execute: (x) => ({ echoed: x.text }) });
  assert.deepEqual(plain(await next(page, toolsMsg(['echo']))), golden('tools'));
  const [p1, p2] = golden('sampled').providers;
  await page.mc.registerContextProvider(provider(p1.id, () => ({ summary: p1.summary, data: JSON.parse(p1.json) }), { description: p1.description }));
  await page.mc.registerContextProvider(provider(p2.id, () => {
    throw new Error('nope');
  }, { description: p2.description }));
  const providers = plain(await next(page, providersMsg([p1.id, p2.id])));
  assert.deepEqual({ ...providers, providers: providers.providers.slice(0, 1) }, golden('providers'));
  page.mc.contextChanged();
  assert.deepEqual(plain(await next(page, (m) => m.type === 'contextChanged')), golden('contextChanged'));
  page.port.postMessage(golden('sample'));
  assert.deepEqual(plain(await next(page, sampled(golden('sample').id))), golden('sampled'));
  page.port.postMessage(golden('call'));
  assert.deepEqual(plain(await next(page, answer('s1.1'))), golden('result'));
  page.port.postMessage({ ...golden('call'), id: 's1.2', name: 'nope' });
  assert.deepEqual(plain(await next(page, answer('s1.2'))), golden('error'));
  // A call that waits: cancel, cancelAll; toolsTaken and sync are taken in.
  await page.mc.registerTool({ name: 'wait', description: 'waits', execute: () => new Promise(() => {}) });
  for (const name of ['cancel', 'cancelAll', 'toolsTaken', 'sync']) page.port.postMessage(golden(name));
  // The page takes the relay's messages in order: once it answered a call
  // sent after them, it has taken them in; then what they made it post.
  page.port.postMessage({ ...golden('call'), id: 's1.3', name: 'nope' });
  await next(page, answer('s1.3'));
  await page.posted();
  for (const m of page.messages) assert.equal(frameProblem('channel', 'main', plain(m)), '');
});
