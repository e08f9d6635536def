// The native path (content/isolated/browserwebmcp.js) against tomorrow's browser
// (test/fakes/tomorrow.js): Tool objects read field by field, "source" for
// "window", null schemas and annotations as none, executeTool's null as the
// navigated error; the WebMCP 2026 fields (outputSchema, consequentialHint,
// debugging) travel. Chromium 156 itself is covered by e2e/webmcp2026_test.go.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createBridge } from '../content/source/bridge.js';
import { useNative } from '../content/isolated/browserwebmcp.js';
import { createWitness } from '../content/isolated/witness.js';
import { UNKNOWN_FAILURE, resultText, witnessNative } from '../content/main/witness.js';
import { errorCode } from '../content/source/toolcopy.js';
import { FakeClock, drain } from './fakes/clock.js';
import { Tool, tomorrowModelContext } from './fakes/tomorrow.js';

function setup(patch = () => {}, { declared = new Set(), witness = null } = {}) {
  patch = patch || (() => {});
  const win = {};
  const ModelContext = tomorrowModelContext(win);
  patch(ModelContext.prototype); // before useNative takes its methods
  const nativeMC = new ModelContext();
  let changes = 0;
  const native = useNative({
    mc: nativeMC, win, doc: new EventTarget(), declaredNames: () => declared, witness,
    changed: () => changes++,
  });
  // What the bridge does before each report: list the tools again.
  const refreshed = () => new Promise((resolve) => native.refresh(resolve));
  return { win, nativeMC, native, changes: () => changes, refreshed };
}

test('a Tool object copies nothing by spread or JSON: the stand-in is faithful', () => {
  const t = new Tool({ name: 'a', description: 'd', source: {} });
  assert.equal(JSON.stringify(t), '{}');
  assert.deepEqual({ ...t }, {});
  assert.equal(t.inputSchema, null);
});

test('native: tomorrow\'s Tool objects are read field by field, source is the window, null is none', async () => {
  const { nativeMC, native, refreshed } = setup();
  await nativeMC.registerTool({
    name: 'pay', title: 'Pay', description: 'Pays the order.',
    inputSchema: { type: 'object', properties: { amount: { type: 'number' } } },
    outputSchema: { type: 'object', properties: { receipt: { type: 'string' } }, required: ['receipt'] },
    annotations: { consequentialHint: true, destructiveHint: true },
    execute: ({ amount }) => ({ receipt: `paid ${amount}` }),
  });
  await nativeMC.registerTool({ name: 'dump', description: 'Dumps state.', annotations: { debugging: true, readOnlyHint: true }, execute: () => 'state' });
  nativeMC.declare({ name: 'search', description: 'A form tool.' }); // inputSchema, annotations: null
  nativeMC.declare({ name: 'elsewhere', description: 'Another frame\'s.', source: {} });
  await refreshed();
  const tools = native.tools();
  assert.deepEqual([...tools.keys()].sort(), ['dump', 'pay', 'search'], 'another window\'s tool is that frame\'s to report');
  assert.deepEqual(tools.get('pay').meta, {
    name: 'pay', title: 'Pay', description: 'Pays the order.',
    inputSchema: { type: 'object', properties: { amount: { type: 'number' } } },
    outputSchema: { type: 'object', properties: { receipt: { type: 'string' } }, required: ['receipt'] },
    annotations: { destructiveHint: true, consequentialHint: true },
  });
  assert.deepEqual(tools.get('dump').meta.annotations, { readOnlyHint: true, debugging: true });
  assert.deepEqual(tools.get('search').meta, { name: 'search', description: 'A form tool.' });
  assert.deepEqual(await tools.get('pay').run({ amount: 3 }, new AbortController().signal), { receipt: 'paid 3' });
});

test('native: executeTool resolving to null is the navigated error, not a result', async () => {
  const { nativeMC, native, refreshed } = setup(undefined, { declared: new Set(['checkout']) });
  nativeMC.declare({ name: 'checkout', description: 'Submits and navigates.', navigates: true });
  await nativeMC.registerTool({ name: 'nothing', description: 'Returns null.', execute: () => null });
  await refreshed();
  const tools = native.tools();
  await assert.rejects(tools.get('checkout').run({}, new AbortController().signal), (e) => {
    assert.equal(errorCode(e), 'navigated');
    assert.match(e.message, /navigated the page/);
    assert.match(e.message, /the new page is its answer/);
    return true;
  });
  // A tool that returns null is a result of null (the JSON text "null"), not a navigation.
  assert.equal(await tools.get('nothing').run({}, new AbortController().signal), null);

  // Through the bridge, the frame's answer says navigated.
  const bridge = createBridge({ tools: () => native.tools(), beforeLook: () => {}, providerDefs: () => [], sample: () => {} });
  const ch = new MessageChannel();
  const answer = new Promise((resolve) => {
    ch.port1.onmessage = (e) => {
      if (e.data.id === 'c1') resolve(e.data);
    };
  });
  bridge.connect(ch.port2);
  ch.port1.postMessage({ type: 'call', id: 'c1', name: 'checkout', arguments: {} });
  const m = await answer;
  assert.equal(m.type, 'error');
  assert.equal(m.error.code, 'navigated');
  ch.port1.close();
});

test('native: a toolchange only says a report is due; the bridge lists the tools once per report (reporting is linear)', async (t) => {
  let calls = 0;
  const { nativeMC, native, changes } = setup((proto) => {
    const getTools = proto.getTools;
    proto.getTools = function () {
      calls++;
      return getTools.call(this);
    };
  });
  // The bridge's timers on a clock that stands still: no report waits
  // for a gap, so every look is at once.
  const clock = new FakeClock();
  const bridge = createBridge({
    tools: () => native.tools(), beforeLook: () => {}, providerDefs: () => [], sample: () => {}, prepare: native.refresh,
    timers: clock.bridgeTimers,
  });
  const ch = new MessageChannel();
  t.after(() => ch.port1.close()); // a failed check too
  const reports = [];
  const flushed = [];
  let wake = () => {};
  ch.port1.onmessage = (e) => {
    if (e.data.type === 'tools') reports.push(e.data.tools.length);
    if (e.data.type === 'flushed') flushed.push(e.data.id);
    wake();
  };
  const until = async (ok) => {
    while (!ok()) await new Promise((r) => { wake = r; });
  };
  const reported = (n) => until(() => reports.at(-1) === n);
  bridge.connect(ch.port2);
  await reported(0);
  assert.equal(calls, 1);
  // 2,000 registrations, each awaited, while the worker has not taken the first report in.
  for (let i = 0; i < 2000; i++) {
    await nativeMC.registerTool({ name: `t${i}`, description: 'd', execute: () => i });
    bridge.sync(); // what each change notice does
  }
  await drain();
  assert.ok(changes() >= 2000, 'each registration is a change');
  assert.equal(calls, 1, 'no getTools() while a report is not taken in');
  ch.port1.postMessage({ type: 'toolsTaken' });
  await reported(2000);
  assert.equal(calls, 2, 'one getTools() for the next report, with all 2,000');
  assert.deepEqual(reports, [0, 2000]);
  // A look without a toolchange (the bridge's rechecks of page objects,
  // the relay's flush) reuses the list: no getTools() while, say, the
  // document goes away. The flush's answer says that the bridge took the
  // toolsTaken before it in, and looked.
  ch.port1.postMessage({ type: 'toolsTaken' });
  ch.port1.postMessage({ type: 'flush', id: 'f1' });
  await until(() => flushed.includes('f1'));
  bridge.sync();
  assert.equal(calls, 2, 'no getTools() without a toolchange');
  assert.deepEqual(reports, [0, 2000], 'nor a report');
});

test('native: the witness in the page\'s world gives the page\'s own error, hints and outputSchema', async () => {
  let pageWitness = null;
  const witness = createWitness((m) => pageWitness.hearCalls(JSON.parse(JSON.stringify(m))));
  const { nativeMC, native, refreshed } = setup(undefined, { witness });
  // The witness of the page's world, on the object the page uses; what it
  // tells, the isolated world hears synchronously (a DOM event).
  const proto = Object.getPrototypeOf(nativeMC);
  const told = [];
  pageWitness = witnessNative({ nativeMC, proto, tell: (m) => { told.push(m.witness); witness.hear(JSON.parse(JSON.stringify(m))); } });
  await nativeMC.registerTool({
    name: 'fails', description: 'Throws.', annotations: { readOnlyHint: false, untrustedContentHint: true, title: 'Fails loudly' },
    execute: async () => { throw new TypeError('the order 7 is closed'); },
  });
  await refreshed();
  const tool = native.tools().get('fails');
  assert.deepEqual(tool.meta.annotations, { readOnlyHint: false, untrustedContentHint: true }, 'the hints as the page gave them');
  assert.equal(tool.meta.title, 'Fails loudly', 'the title in its annotations, which the browser does not keep (issue SEC2 item 9)');
  await assert.rejects(tool.run({}, new AbortController().signal), (e) => {
    assert.equal(errorCode(e), 'tool_error');
    assert.equal(e.message, 'the order 7 is closed');
    return true;
  });
  assert.deepEqual(told, ['registered', 'done'], 'a direct call: the page\'s world ran it');
  // Another agent's failing call (the page's own executeTool) is not kept for ours.
  const [t] = await nativeMC.getTools();
  await assert.rejects(nativeMC.executeTool(t, {}));
  assert.equal(witness.takeError('fails'), undefined);
});

// The witness of the page's world linked to the isolated world's, as the
// two scripts are in a frame (each message a JSON copy: a DOM event's
// detail text), with the browser's tool events given.
function linkedWitness(setupOptions = {}) {
  let pageWitness = null;
  const toPage = [];
  const witness = createWitness((m) => {
    toPage.push(m);
    pageWitness.hearCalls(JSON.parse(JSON.stringify(m)));
  });
  const { patch, ...rest } = setupOptions;
  const env = setup(patch, { ...rest, witness });
  const proto = Object.getPrototypeOf(env.nativeMC);
  class ToolActivatedEvent extends Event {
    constructor(type, init) {
      super(type);
      this.toolName = init.toolName;
    }
  }
  class ToolCancelEvent extends ToolActivatedEvent {}
  pageWitness = witnessNative({ nativeMC: env.nativeMC, proto, tell: (m) => witness.hear(JSON.parse(JSON.stringify(m))), events: { ToolActivatedEvent, ToolCancelEvent } });
  return { ...env, witness, toPage, classes: { ToolActivatedEvent, ToolCancelEvent } };
}

test('native: a direct call runs the page\'s execute as executeTool does, without it', async () => {
  const { nativeMC, native, refreshed, toPage, classes } = linkedWitness();
  let executed = 0;
  nativeMC.executeTool = () => {
    executed++;
    return Promise.reject(new Error('not through executeTool'));
  };
  const got = [];
  const events = [];
  let activated;
  const firstActivated = new Promise((resolve) => { activated = resolve; });
  nativeMC.addEventListener('toolactivated', (e) => {
    events.push([e.type, e.toolName, e instanceof classes.ToolActivatedEvent]);
    activated();
  });
  const input = { a: 20, b: 22, nested: { list: [1, 2] } };
  let answers = [];
  await nativeMC.registerTool({
    name: 'sum', description: 'Adds.',
    execute(i, client) {
      got.push({ i, client, self: this });
      events.push(['execute']);
      return answers.shift();
    },
  });
  await refreshed();
  const run = (v) => {
    answers = [v];
    return native.tools().get('sum').run(input, new AbortController().signal);
  };
  assert.deepEqual(await run({ content: [{ type: 'text', text: '42' }] }), { content: [{ type: 'text', text: '42' }] });
  assert.equal(executed, 0);
  assert.deepEqual(got[0].i, input, 'the same input');
  assert.notEqual(got[0].i, input, 'a fresh object, as from the browser');
  assert.deepEqual(Object.keys(got[0].client), ['signal'], 'the client: a plain object with the signal, as in Chromium 156');
  assert.ok(got[0].client.signal instanceof AbortSignal && !got[0].client.signal.aborted);
  assert.equal(got[0].self, undefined);
  assert.deepEqual(toPage[0], { run: 1, name: 'sum', input: JSON.stringify(input) });
  await firstActivated;
  assert.deepEqual(events, [['execute'], ['toolactivated', 'sum', true]], 'toolactivated in a task after execute started');
  // The result's text as Chromium 156's executeTool gives it, then read
  // as the executeTool path reads it.
  assert.equal(await run('plain words'), 'plain words');
  assert.equal(await run('{"a":1}').then((v) => v.a), 1);
  assert.equal(await run(undefined), 'undefined');
  assert.equal(await run(Number.NaN), 'NaN');
  assert.deepEqual(await run([undefined, 1]), [null, 1]);
  const cyclic = {};
  cyclic.self = cyclic;
  await assert.rejects(run(cyclic), (e) => errorCode(e) === 'tool_error' && e.message === UNKNOWN_FAILURE);
  await assert.rejects(run(Promise.reject(new RangeError('out of range'))), (e) => e.message === 'out of range');
});

test('native: a cancelled direct call rejects at once; execute\'s signal aborts, then toolcancel fires', async () => {
  const { nativeMC, native, refreshed, toPage } = linkedWitness();
  const order = [];
  let client = null;
  await nativeMC.registerTool({
    name: 'slow', description: 'Waits.',
    execute(_, c) {
      client = c;
      c.signal.addEventListener('abort', () => order.push('signal aborted'));
      return new Promise(() => {});
    },
  });
  const cancelled = new Promise((resolve) => nativeMC.addEventListener('toolcancel', (e) => {
    order.push(`toolcancel ${e.toolName}`);
    resolve();
  }));
  await refreshed();
  const ctl = new AbortController();
  const p = native.tools().get('slow').run({}, ctl.signal);
  await drain();
  assert.ok(client, 'execute started');
  const reason = new DOMException('stop', 'AbortError');
  ctl.abort(reason);
  order.push('aborted');
  await assert.rejects(p, (e) => e === reason);
  await cancelled;
  assert.deepEqual(order, ['aborted', 'signal aborted', 'toolcancel slow']);
  assert.deepEqual(toPage.at(-1), { cancel: 1, name: 'slow' });
});

test('native: a tool the page\'s world does not hold goes through executeTool', async () => {
  // The browser's registerTool taken before the witness wraps it: a
  // registration the witness does not see (as one from another world).
  let nRegister = null;
  const { nativeMC, native, refreshed, witness } = linkedWitness({ patch: (proto) => { nRegister = proto.registerTool; } });
  await nRegister.call(nativeMC, { name: 'unseen', description: 'Unseen.', execute: () => ({ via: 'executeTool' }) });
  await nativeMC.registerTool({ name: 'seen', description: 'Seen.', execute: () => ({ via: 'witness' }) });
  await refreshed();
  assert.equal(witness.canRun('seen'), true);
  assert.equal(witness.canRun('unseen'), false);
  assert.deepEqual(await native.tools().get('unseen').run({}, new AbortController().signal), { via: 'executeTool' });
  assert.deepEqual(await native.tools().get('seen').run({}, new AbortController().signal), { via: 'witness' });
  // The page's world answers "gone" at once for a name it does not hold.
  const settled = [];
  witness.runDirect('unseen', '{}', (o) => settled.push(o));
  assert.deepEqual(settled, [{ gone: true }], 'told before runDirect returned');
});

test('resultText is what Chromium 156\'s executeTool resolves to', () => {
  assert.equal(resultText('abc'), 'abc');
  assert.equal(resultText(5), '5');
  assert.equal(resultText(Number.NaN), 'NaN');
  assert.equal(resultText(10n), '10');
  assert.equal(resultText(null), 'null');
  assert.equal(resultText(true), 'true');
  assert.equal(resultText(undefined), 'undefined');
  assert.equal(resultText(() => 1), 'undefined');
  assert.equal(resultText({ toJSON: () => ({ x: 1 }) }), '{"x":1}');
  assert.equal(resultText({ u: undefined, f() {} }), '{}');
  assert.equal(resultText(new Date(0)), '"1970-01-01T00:00:00.000Z"');
  assert.equal(resultText({ n: 10n }), undefined);
  assert.equal(resultText(Symbol('x')), undefined);
});

test('native: without a witness, a failure is the browser\'s own error', async () => {
  const { nativeMC, native, refreshed } = setup();
  await nativeMC.registerTool({ name: 'fails', description: 'Throws.', execute: () => { throw new Error('page says no'); } });
  await refreshed();
  await assert.rejects(native.tools().get('fails').run({}, new AbortController().signal), (e) => e.name === 'UnknownError' && !/page says no/.test(e.message));
});

test('native: where the browser hands execute more than a plain client with the signal, every call goes through executeTool', async () => {
  let viaBrowser = 0;
  const { nativeMC, native, refreshed, witness } = linkedWitness({
    patch: (proto) => {
      const nExecute = proto.executeTool;
      proto.executeTool = function (...args) {
        viaBrowser++;
        return nExecute.apply(this, args);
      };
    },
  });
  const clients = [];
  await nativeMC.registerTool({ name: 'who', description: 'Says who runs it.', execute: (_, client) => { clients.push(Object.keys(client)); return { ok: true }; } });
  await refreshed();
  const run = () => native.tools().get('who').run({}, new AbortController().signal);
  await run();
  assert.equal(viaBrowser, 0, 'a direct call');
  // The page's own executeTool, whose client has more than the signal.
  nativeMC.clientExtras = { requestUserInteraction() {} };
  const [t] = await nativeMC.getTools();
  await nativeMC.executeTool(t, {});
  assert.equal(viaBrowser, 1);
  assert.equal(witness.canRun('who'), false, 'no more direct calls');
  await run();
  assert.equal(viaBrowser, 2, 'through executeTool');
  assert.deepEqual(clients, [['signal'], ['signal', 'requestUserInteraction'], ['signal', 'requestUserInteraction']]);
});

test('native: a browser with a ModelContextClient interface gets no direct calls', async () => {
  let pageWitness = null;
  const witness = createWitness((m) => pageWitness.hearCalls(JSON.parse(JSON.stringify(m))));
  const { nativeMC, native, refreshed } = setup(undefined, { witness });
  pageWitness = witnessNative({ nativeMC, proto: Object.getPrototypeOf(nativeMC), tell: (m) => witness.hear(JSON.parse(JSON.stringify(m))), direct: false });
  await nativeMC.registerTool({ name: 'who', description: 'd', execute: () => ({ ok: true }) });
  await refreshed();
  assert.equal(witness.canRun('who'), false);
  assert.deepEqual(await native.tools().get('who').run({}, new AbortController().signal), { ok: true });
});

test('native: a document still loading (document_start) is reported without a getTools(); its first toolchange brings one', async (t) => {
  let calls = 0;
  const win = {};
  const ModelContext = tomorrowModelContext(win);
  const getTools = ModelContext.prototype.getTools;
  ModelContext.prototype.getTools = function () {
    calls++;
    return getTools.call(this);
  };
  const nativeMC = new ModelContext();
  const doc = new EventTarget();
  doc.readyState = 'loading';
  let bridge = null;
  const native = useNative({ mc: nativeMC, win, doc, declaredNames: () => new Set(), witness: null, changed: () => bridge && bridge.sync() });
  const clock = new FakeClock();
  bridge = createBridge({
    tools: () => native.tools(), beforeLook: () => {}, providerDefs: () => [], sample: () => {}, prepare: native.refresh,
    timers: clock.bridgeTimers,
  });
  const ch = new MessageChannel();
  t.after(() => ch.port1.close());
  const reports = [];
  let wake = () => {};
  ch.port1.onmessage = (e) => {
    if (e.data.type === 'tools') reports.push(e.data.tools.map((x) => x.name));
    wake();
  };
  const until = async (ok) => {
    while (!ok()) await new Promise((r) => { wake = r; });
  };
  bridge.connect(ch.port2);
  await until(() => reports.length === 1);
  assert.deepEqual(reports, [[]]);
  assert.equal(calls, 0, 'no getTools() as the document starts');
  ch.port1.postMessage({ type: 'toolsTaken' });
  await nativeMC.registerTool({ name: 'pay', description: 'd', execute: () => 1 });
  await until(() => reports.length === 2);
  assert.deepEqual(reports, [[], ['pay']]);
  assert.equal(calls, 1);
});
