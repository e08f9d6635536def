// The inspector's requests (worker/inspect.js) through the whole worker
// with a fake chrome and clock: the tools view, and "Run" as the user.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LOCAL, bootWorker, drain, localTab } from './fakes/worker.js';

const ID = 'ofcjadafodbdmmpbkmmngnegabkmkjai';
const PAGE = { id: ID, url: `chrome-extension://${ID}/ui/panel.html?tab=3` };

function ask(chrome, msg) {
  return new Promise((resolve, reject) => {
    for (const fn of chrome.runtime.onMessage.listeners) {
      fn(msg, PAGE, (r) => (r.ok ? resolve(r.value) : reject(new Error(r.error))));
    }
  });
}

const SUM = {
  name: 'sum_numbers',
  description: 'Adds two numbers.',
  inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
};

async function twoTabs() {
  const w = await bootWorker({ tabs: [localTab(3, { active: true }), localTab(4)] });
  const frame = w.chrome.connectFrame({ tabId: 3, url: `${LOCAL}/page3` });
  frame.deliver({ type: 'tools', tools: [SUM, { name: 'peek', description: '', annotations: { readOnlyHint: true } }] });
  const other = w.chrome.connectFrame({ tabId: 4, url: `${LOCAL}/page4` });
  other.deliver({ type: 'tools', tools: [{ name: 'peek', description: 'Peeks.' }] });
  await drain();
  frame.take();
  return { ...w, frame };
}

test('inspect/tools: the page\'s tool beside what the agent gets, whether it asks, and the warnings', async () => {
  const w = await twoTabs();
  const v = await ask(w.chrome, { type: 'inspect/tools', tabId: 3 });
  assert.equal(v.tabId, 3);
  assert.match(v.notes[0], /Names as one agent sees/);
  const [sum, peek] = v.tools;
  assert.equal(sum.name, 'sum_numbers');
  assert.deepEqual(sum.page.inputSchema, SUM.inputSchema);
  assert.equal(sum.agent.name, 'sum_numbers');
  assert.equal(sum.agent.tool.description, '[localhost:8765 · tab 3 "page 3"] The page says: Adds two numbers.');
  assert.deepEqual(sum.agent.tool.outputSchema, SUM.outputSchema);
  assert.deepEqual(sum.warnings, []);
  // localhost's default: agents never asked first.
  assert.equal(sum.asks, false);
  // Tab 3's peek comes first in the host's order: it keeps the name; tab 4's gets the suffix.
  assert.equal(peek.agent.name, 'peek');
  assert.deepEqual(peek.warnings.map((x) => x.rule), ['no-description']);
  const v4 = await ask(w.chrome, { type: 'inspect/tools', tabId: 4 });
  assert.equal(v4.tools[0].agent.name, 'peek_2');
  assert.match(v4.tools[0].warnings.find((x) => x.rule === 'name-clash').message, /Agents see this tool as peek_2, not peek: another tab offers peek too \(tab 3\)/);
  // A site that asks before acting.
  await ask(w.chrome, { type: 'siteSettings.set', origin: LOCAL, ask: 'acting' });
  const again = await ask(w.chrome, { type: 'inspect/tools', tabId: 3 });
  assert.deepEqual(again.tools.map((t) => t.asks), [true, false]);
});

test('tool/try runs the tool once in the page as the user: no consent window, its own id, the answer to the panel only, logged as the user\'s', async () => {
  const w = await twoTabs();
  await ask(w.chrome, { type: 'siteSettings.set', origin: LOCAL, ask: 'acting' });
  w.host.take();
  const p = ask(w.chrome, { type: 'tool/try', tabId: 3, frameId: 0, name: 'sum_numbers', arguments: { a: 20, b: 22 } });
  await drain();
  const calls = w.frame.take().filter((m) => m.type === 'call');
  assert.equal(calls.length, 1);
  assert.deepEqual(calls[0].arguments, { a: 20, b: 22 });
  assert.match(calls[0].id, /^user\.\d+$/);
  assert.equal(w.chrome.windows.creates.length, 0, 'no consent window');
  w.frame.deliver({ type: 'result', id: calls[0].id, output: { sum: 42 } });
  const r = await p;
  assert.deepEqual(r.result, { text: '{"sum":42}', isError: false, structured: { sum: 42 } });
  assert.equal(typeof r.ms, 'number');
  assert.deepEqual(r.warnings, []);
  assert.ok(!w.host.take().some((m) => m && m.id === calls[0].id), 'neither the call nor its answer goes to the host');
  const log = await ask(w.chrome, { type: 'activity.list', tabId: 3 });
  assert.equal(log.entries[0].agent, 'you (inspector)');
  assert.equal(log.entries[0].outcome, 'result');
  assert.equal(log.entries[0].args, '{"a":20,"b":22}');
});

test('tool/try: a result off the outputSchema is warned of; an error and a tool that is gone are answered', async () => {
  const w = await twoTabs();
  const p = ask(w.chrome, { type: 'tool/try', tabId: 3, frameId: 0, name: 'sum_numbers', arguments: { a: 1, b: 2 } });
  await drain();
  const [c] = w.frame.take().filter((m) => m.type === 'call');
  w.frame.deliver({ type: 'result', id: c.id, output: 3 });
  const r = await p;
  assert.equal(r.result.text, '3');
  assert.deepEqual(r.warnings.map((x) => x.rule), ['output-mismatch']);
  const q = ask(w.chrome, { type: 'tool/try', tabId: 3, frameId: 0, name: 'sum_numbers', arguments: {} });
  await drain();
  const [d] = w.frame.take().filter((m) => m.type === 'call');
  w.frame.deliver({ type: 'error', id: d.id, error: { code: 'tool_error', message: 'a is not a number' } });
  assert.deepEqual((await q).error, { code: 'tool_error', message: 'a is not a number' });
  assert.equal((await ask(w.chrome, { type: 'tool/try', tabId: 3, frameId: 0, name: 'nope', arguments: {} })).error.code, 'not_found');
  await assert.rejects(ask(w.chrome, { type: 'tool/try', tabId: 3, frameId: 0, name: 'sum_numbers', arguments: [1] }), /must be a JSON object/);
});

test('tool/try: the user\'s call survives the host link going, and the page\'s navigation ends it', async () => {
  const w = await twoTabs();
  const p = ask(w.chrome, { type: 'tool/try', tabId: 3, frameId: 0, name: 'sum_numbers', arguments: { a: 1, b: 1 } });
  await drain();
  const [c] = w.frame.take().filter((m) => m.type === 'call');
  w.worker.router.hostLost();
  assert.ok(!w.frame.take().some((m) => m.type === 'cancel'), 'not cancelled with the agents\' calls');
  w.frame.deliver({ type: 'result', id: c.id, output: '2' });
  assert.equal((await p).result.text, '2');
});
