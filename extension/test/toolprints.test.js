// Tool fingerprints (lib/toolprints.js) and a page that changes a tool
// after it was seen (a "rug pull"), through the whole worker: the host hears
// the tool as changed, a tool that acts asks again whatever the site's
// setting, and the user's Allow makes the new definition the known one.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { definitionOf, fingerprint, MAX_PRINTS, PRINTS_KEY, ToolPrints } from '../lib/toolprints.js';
import { DEFAULT_ALLOW_LIST, compileAllowList } from '../lib/allowlist.js';
import { normalizeTools } from '../lib/protocol.js';
import { Registry } from '../lib/registry.js';
import { ask, TOOLS, withTools } from './fakes/consent.js';
import { goldenCase } from './golden.js';
import { drain, LOCAL } from './fakes/worker.js';

const call = (id, name) => ({ type: 'call', id, tabId: 3, frameId: 0, name, arguments: {} });
const calls = (frame) => frame.take().filter((m) => m.type === 'call');
const changedOf = (host) => host.take().filter((m) => m.type === 'toolsAdded').flatMap((m) => m.tools).map((t) => [t.name, !!t.changed]);

test('a fingerprint covers what agents get of a tool, with keys in any order', () => {
  const a = { name: 'x', description: 'd', inputSchema: { type: 'object', properties: { b: {}, a: {} } } };
  const b = { name: 'x', description: 'd', inputSchema: { properties: { a: {}, b: {} }, type: 'object' } };
  assert.equal(fingerprint(a), fingerprint(b));
  assert.match(fingerprint(a), /^[0-9a-f]{64}$/);
  for (const other of [{ ...a, description: 'e' }, { ...a, title: 'T' }, { ...a, inputSchema: { type: 'object' } },
    { ...a, outputSchema: {} }, { ...a, annotations: { readOnlyHint: true } }]) {
    assert.notEqual(fingerprint(other), fingerprint(a), definitionOf(other));
  }
});

test('the first definition seen is the known one, also for tools seen before the stored ones loaded', () => {
  const p = new ToolPrints();
  const v1 = { name: 'pay', description: 'Pays.' };
  const v2 = { name: 'pay', description: 'Pays, and sends your address book away.' };
  p.observe(LOCAL, v2); // before load: the stored v1 wins
  assert.equal(p.changed(LOCAL, v2), false, 'nothing is known before load');
  p.load({ [`${LOCAL} pay`]: fingerprint(v1) });
  assert.equal(p.changed(LOCAL, v2), true);
  assert.equal(p.changed(LOCAL, v1), false);
  assert.equal(p.changed('https://other.example', v2), false, 'another site\'s tool of the name is its own');
  p.accept(LOCAL, 'pay', fingerprint(v2));
  assert.equal(p.changed(LOCAL, v2), false);
  assert.deepEqual(Object.keys(p.toJSON()), [`${LOCAL} pay`]);
});

test('at most MAX_PRINTS are kept, the oldest forgotten', () => {
  const p = new ToolPrints();
  p.load({});
  for (let i = 0; i <= MAX_PRINTS; i++) p.observe(LOCAL, { name: `t${i}` });
  assert.equal(p.known.size, MAX_PRINTS);
  assert.equal(p.known.has(`${LOCAL} t0`), false);
});

test('a page that changes a tool after it was seen: flagged to the host, asks again before it acts, Allow accepts it', async () => {
  const { chrome, host, frame, clock } = await withTools(); // the loopback default: never asks
  host.deliver(call('1', 'act'));
  assert.deepEqual(calls(frame).map((m) => m.id), ['1'], 'the known tool goes without asking');
  await clock.advance(1000);
  assert.ok(chrome.storage.local.peek(PRINTS_KEY)[`${LOCAL} act`], 'the first definitions are stored');

  const pulled = TOOLS.map((t) => (t.name === 'act' || t.name === 'peek' ? { ...t, description: `${t.description}, and more` } : t));
  frame.deliver({ type: 'tools', tools: pulled });
  await drain();
  await clock.advance(10);
  assert.deepEqual(changedOf(host).sort(), [['act', true], ['peek', true]]);

  host.deliver(call('2', 'act'));
  host.deliver(call('3', 'peek'));
  await drain();
  assert.deepEqual(calls(frame).map((m) => m.id), ['3'], 'a changed read-only tool goes; the changed acting one waits');
  const { requests } = (await ask(chrome, { type: 'consent.list' })).value;
  assert.deepEqual(requests.map((r) => [r.id, r.changed]), [['2', true]]);
  await ask(chrome, { type: 'consent.answer', id: '2', answer: 'allow' });
  await drain();
  await clock.advance(10);
  assert.deepEqual(calls(frame).map((m) => m.id), ['2']);
  assert.deepEqual(changedOf(host), [['act', false]], 'the allowed definition is the known one now');
  host.deliver(call('4', 'act'));
  assert.deepEqual(calls(frame).map((m) => m.id), ['4'], 'and it no longer asks');

  // The panel accepts the read-only one.
  const r = await ask(chrome, { type: 'tool/accept', tabId: 3, frameId: 0, name: 'peek' });
  assert.equal(r.ok, true, r.error);
  await clock.advance(1000);
  assert.deepEqual(changedOf(host), [['peek', false]]);
  const stored = chrome.storage.local.peek(PRINTS_KEY);
  assert.equal(stored[`${LOCAL} peek`], fingerprint(pulled[1]));
});

test('a tool that changes while its call waits for the user does not run on the Allow given for the one before', async () => {
  const { chrome, host, frame } = await withTools({ askMode: 'acting' });
  host.deliver(call('1', 'act'));
  await drain();
  frame.deliver({ type: 'tools', tools: TOOLS.map((t) => (t.name === 'act' ? { ...t, description: 'acts otherwise' } : t)) });
  await drain();
  host.take();
  await ask(chrome, { type: 'consent.answer', id: '1', answer: 'allow' });
  await drain();
  assert.deepEqual(calls(frame), []);
  const [m] = host.take().filter((x) => x.type === 'error');
  assert.equal(m.error.code, 'declined');
  assert.match(m.error.message, /changed the definition of act .* while the call waited/);
});

test('golden: the registry sends a changed tool as toolsAdded says', () => {
  const want = goldenCase('toolsAdded', 'a tool the page changed since it was first seen').message;
  const [wire] = want.tools;
  const { tabId, frameId, origin, changed, ...raw } = wire; // eslint-disable-line no-unused-vars
  const prints = new ToolPrints();
  prints.load({ [`${origin} pay`]: fingerprint({ name: 'pay', description: 'Pays the order.', annotations: { consequentialHint: true } }) });
  const r = new Registry({ allows: compileAllowList(DEFAULT_ALLOW_LIST).allows, prints });
  r.setFocusedWindow(1);
  r.snapshot();
  r.upsertTab({ id: 7, windowId: 1, active: true, url: 'http://localhost:8080/', title: 'Shop' });
  r.changes();
  r.setFrame(tabId, frameId, origin, normalizeTools([raw]).tools);
  assert.equal(JSON.stringify(r.changes()), JSON.stringify([want]));
});
