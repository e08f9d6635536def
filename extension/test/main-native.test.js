// The native path (content/main/native.js) against tomorrow's browser
// (test/fakes/tomorrow.js): Tool objects read field by field, "source" for
// "window", null schemas and annotations as none, executeTool's null as the
// navigated error; the WebMCP 2026 fields (outputSchema, consequentialHint,
// debugging) travel. Chromium 156 itself is covered by e2e/webmcp2026_test.go.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createBridge } from '../content/main/bridge.js';
import { useNative } from '../content/main/native.js';
import { errorCode } from '../content/main/tools.js';
import { Tool, tomorrowModelContext } from './fakes/tomorrow.js';
import { drain } from './fakes/clock.js';

function setup() {
  const win = {};
  const ModelContext = tomorrowModelContext(win);
  const nativeMC = new ModelContext();
  let changes = 0;
  const native = useNative({
    nativeMC, proto: ModelContext.prototype, win, doc: new EventTarget(), declaredNames: () => new Set(),
    changed: () => changes++, addContextApi: () => {},
  });
  return { win, nativeMC, native, changes: () => changes };
}

test('a Tool object copies nothing by spread or JSON: the stand-in is faithful', () => {
  const t = new Tool({ name: 'a', description: 'd', source: {} });
  assert.equal(JSON.stringify(t), '{}');
  assert.deepEqual({ ...t }, {});
  assert.equal(t.inputSchema, null);
});

test('native: tomorrow\'s Tool objects are read field by field, source is the window, null is none', async () => {
  const { nativeMC, native } = setup();
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
  await drain();
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
  const { nativeMC, native } = setup();
  nativeMC.declare({ name: 'checkout', description: 'Submits and navigates.', navigates: true });
  await nativeMC.registerTool({ name: 'nothing', description: 'Returns null.', execute: () => null });
  await drain();
  const tools = native.tools();
  await assert.rejects(tools.get('checkout').run({}, new AbortController().signal), (e) => {
    assert.equal(errorCode(e), 'navigated');
    assert.match(e.message, /navigated the page/);
    assert.match(e.message, /list its tools again/);
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

test('native: 2,000 registrations cost a few getTools(), not one each (reporting is linear)', async () => {
  const { nativeMC, native } = setup();
  const getTools = Object.getPrototypeOf(nativeMC).getTools;
  let calls = 0;
  let listed = 0;
  nativeMC.getTools = function () {
    calls++;
    return getTools.call(this).then((list) => {
      listed += list.length;
      return list;
    });
  };
  // Each registration fires toolchange; the page does not wait between them.
  for (let i = 0; i < 2000; i++) nativeMC.registerTool({ name: `t${i}`, description: 'd', execute: () => i });
  await drain();
  assert.equal(native.tools().size, 2000);
  assert.ok(calls <= 2, `getTools() ran ${calls} times`);
  assert.ok(listed <= 2 * 2000, `${listed} tools listed in all`);
  // And one at a time, waiting for each: still far fewer than one getTools() each.
  calls = 0;
  for (let i = 2000; i < 2100; i++) await nativeMC.registerTool({ name: `t${i}`, description: 'd', execute: () => i });
  await drain();
  assert.equal(native.tools().size, 2100);
  assert.ok(calls <= 51, `getTools() ran ${calls} times for 100 awaited registrations`);
});
