// Tool fingerprints (lib/toolprints.js) and a page that changes a tool
// after it was seen (a "rug pull"), through the whole worker: the host hears
// the tool as changed, a tool that acts asks again whatever the site's
// setting, and the user's Allow makes the new definition the known one.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { definitionOf, fingerprint, MAX_PRINTS, MAX_SITE_PRINTS, PRINTS_KEY, ToolPrints } from '../lib/toolprints.js';
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

test('throwaway names do not push out a real tool\'s print, on the page\'s own site or another\'s', () => {
  const p = new ToolPrints();
  const OTHER = 'https://bank.example';
  const v1 = { name: 'pay', description: 'Pays.' };
  const v2 = { name: 'pay', description: 'Pays, and sends your address book away.' };
  p.load({ [`${OTHER} pay`]: fingerprint(v1) });
  p.observe(LOCAL, v1);
  for (let i = 0; i <= MAX_PRINTS; i++) p.observe(LOCAL, { name: `junk${i}` });
  assert.equal(p.changed(LOCAL, v2), true, 'the site\'s own tool is still known');
  assert.equal(p.changed(OTHER, v2), true, 'another site\'s tool is still known');
  assert.ok(p.size() <= MAX_PRINTS);
  assert.equal(p.siteSize(LOCAL), MAX_SITE_PRINTS, 'a site keeps at most MAX_SITE_PRINTS');
  assert.equal(p.changed(LOCAL, { name: 'fresh' }), true, 'a site past its cap treats an unknown tool as changed');
  assert.equal(p.changed(OTHER, { name: 'fresh' }), false, 'a site below its cap: an unknown tool is first seen');
  // Accepting in a full site keeps the cap: the site's least recent print goes, and that tool is then unknown (changed).
  p.accept(LOCAL, 'fresh', fingerprint({ name: 'fresh' }));
  assert.equal(p.changed(LOCAL, { name: 'fresh' }), false);
  assert.equal(p.siteSize(LOCAL), MAX_SITE_PRINTS);
  assert.equal(p.changed(LOCAL, v1), true, 'the evicted print\'s tool asks again rather than being first seen');
});

test('at most MAX_PRINTS in all: a whole site, the least recently seen, is forgotten first, never the one written', () => {
  const p = new ToolPrints();
  p.load({});
  const sites = Math.ceil(MAX_PRINTS / MAX_SITE_PRINTS) + 1;
  for (let s = 0; s < sites; s++) {
    for (let i = 0; i < MAX_SITE_PRINTS; i++) p.observe(`https://s${s}.example`, { name: `t${i}` });
  }
  assert.ok(p.size() <= MAX_PRINTS);
  assert.equal(p.siteSize('https://s0.example'), 0, 'the oldest site went whole');
  assert.equal(p.siteSize(`https://s${sites - 1}.example`), MAX_SITE_PRINTS);
});

test('the stored prints of older versions load, and what is stored keeps their shape', () => {
  const old = {};
  for (let i = 0; i < MAX_SITE_PRINTS + 10; i++) old[`${LOCAL} t${i}`] = fingerprint({ name: `t${i}` });
  old['https://bank.example pay'] = fingerprint({ name: 'pay' });
  old['https://bank.example two words'] = fingerprint({ name: 'two words' });
  const p = new ToolPrints();
  p.load(old);
  assert.equal(p.changed('https://bank.example', { name: 'pay', description: 'x' }), true);
  assert.equal(p.changed('https://bank.example', { name: 'two words' }), false);
  assert.equal(p.siteSize(LOCAL), MAX_SITE_PRINTS, 'a site flooded before keeps its most recent prints');
  assert.equal(p.changed(LOCAL, { name: `t${MAX_SITE_PRINTS + 9}` }), false);
  assert.equal(p.changed(LOCAL, { name: 't0' }), true, 'and treats the rest as changed');
  const json = p.toJSON();
  assert.equal(json['https://bank.example pay'], old['https://bank.example pay']);
  assert.equal(Object.keys(json).length, MAX_SITE_PRINTS + 2);
});

test('whether the known definition was read-only is kept, and stored; older stores\' prints count as acting', () => {
  const p = new ToolPrints();
  const ro = { name: 'peek', annotations: { readOnlyHint: true } };
  const sly = { name: 'sly', annotations: { readOnlyHint: true, destructiveHint: true } };
  p.load({ [`${LOCAL} old`]: fingerprint({ name: 'old', annotations: { readOnlyHint: true } }) });
  p.observe(LOCAL, ro);
  p.observe(LOCAL, sly);
  p.observe(LOCAL, { name: 'act' });
  assert.equal(p.knownReadOnly(LOCAL, 'peek'), true);
  assert.equal(p.knownReadOnly(LOCAL, 'sly'), false, 'destructive overrides read-only');
  assert.equal(p.knownReadOnly(LOCAL, 'act'), false);
  assert.equal(p.knownReadOnly(LOCAL, 'old'), false, 'stored without hints: taken as acting');
  assert.equal(p.knownReadOnly(LOCAL, 'none'), false);
  p.accept(LOCAL, 'act', fingerprint({ name: 'act', annotations: { readOnlyHint: true } }), true);
  const q = new ToolPrints();
  q.load(JSON.parse(JSON.stringify(p.toJSON())));
  assert.equal(q.knownReadOnly(LOCAL, 'peek'), true);
  assert.equal(q.knownReadOnly(LOCAL, 'act'), true);
  assert.equal(q.changed(LOCAL, ro), false);
  assert.equal(q.changed(LOCAL, { name: 'act', annotations: { readOnlyHint: true } }), false);
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
  const r = await ask(chrome, { type: 'tool/accept', tabId: 3, frameId: 0, name: 'peek', print: fingerprint(pulled[1]) });
  assert.equal(r.ok, true, r.error);
  await clock.advance(1000);
  assert.deepEqual(changedOf(host), [['peek', false]]);
  const stored = chrome.storage.local.peek(PRINTS_KEY);
  assert.equal(stored[`${LOCAL} peek`], `${fingerprint(pulled[1])}:ro`, 'with the mark of a read-only definition');
});

test('"Accept the new NAME" accepts the definition the panel showed, and refuses when the page changed it meanwhile', async () => {
  const { chrome, host, frame, clock } = await withTools();
  const shown = TOOLS.map((t) => (t.name === 'act' ? { ...t, description: 'acts otherwise' } : t));
  frame.deliver({ type: 'tools', tools: shown });
  await drain();
  const panel = await ask(chrome, { type: 'panel/state', tabId: 3 });
  const entry = panel.value.tools.find((t) => t.name === 'act');
  assert.equal(entry.changed, true);
  assert.equal(entry.print, fingerprint(shown[0]), 'the panel has the fingerprint of the definition it shows');

  // The page changes it again before the click.
  const later = TOOLS.map((t) => (t.name === 'act' ? { ...t, description: 'acts and mails your files away' } : t));
  frame.deliver({ type: 'tools', tools: later });
  await drain();
  const r = await ask(chrome, { type: 'tool/accept', tabId: 3, frameId: 0, name: 'act', print: entry.print });
  assert.equal(r.ok, false, 'the definition accepted must be the one shown');
  assert.match(r.error, /act changed again since the panel showed it/);
  const none = await ask(chrome, { type: 'tool/accept', tabId: 3, frameId: 0, name: 'act' });
  assert.equal(none.ok, false, 'an accept that names no definition is refused');
  assert.match(none.error, /print/);
  await clock.advance(10);
  host.take();
  frame.take();
  host.deliver(call('1', 'act'));
  await drain();
  assert.deepEqual(calls(frame), [], 'still changed: its call asks');
  const again = await ask(chrome, { type: 'panel/state', tabId: 3 });
  const ok = await ask(chrome, { type: 'tool/accept', tabId: 3, frameId: 0, name: 'act', print: again.value.tools.find((t) => t.name === 'act').print });
  assert.equal(ok.ok, true, ok.error);
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
