// The panel's requests (worker/panel.js) through the whole worker with a
// fake chrome and clock: what the panel is shown, and what a switch in it
// changes at the host (tools, context, pins).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UI_PORT } from '../lib/protocol.js';
import { FakePort } from './fakes/chrome.js';
import { LOCAL, bootWorker, drain, localTab } from './fakes/worker.js';

const SEL = 'trace.Timeline#selection';
const VIEW = 'trace.Timeline#viewport';
const ID = 'ofcjadafodbdmmpbkmmngnegabkmkjai';
const PAGE = { id: ID, url: `chrome-extension://${ID}/ui/panel.html?tab=3` };

/** Sends a request as the panel page does; resolves to its value or rejects with its error. */
function ask(chrome, msg, sender = PAGE) {
  return new Promise((resolve, reject) => {
    for (const fn of chrome.runtime.onMessage.listeners) {
      fn(msg, sender, (r) => (r.ok ? resolve(r.value) : reject(new Error(r.error))));
    }
  });
}

const snapshots = [
  { id: SEL, description: 'ids join the slice table', summary: 'Selected slice A', data: { id: 1, name: 'A' } },
  { id: VIEW, summary: 'Viewing 0–10 ms', data: { start: 0, end: 10 } },
];

// Tab 3 (localhost, focused) with two tools and two providers, sampled once.
async function demo(opts = {}) {
  const w = await bootWorker({ tabs: [localTab(3, { active: true })], ...opts });
  const frame = w.chrome.connectFrame({ tabId: 3, url: `${LOCAL}/page3` });
  frame.deliver({
    type: 'tools',
    tools: [
      { name: 'get_selection', description: 'Reads the selection', annotations: { readOnlyHint: true } },
      { name: 'select_slice', description: 'Selects a slice' },
    ],
  });
  frame.deliver({ type: 'providers', providers: [{ id: SEL, description: 'ids join the slice table' }, { id: VIEW }] });
  frame.deliver({ type: 'context', providers: snapshots, ambient: { selection: 'A', focused: { role: 'button', name: 'Zoom in' } } });
  await drain();
  // Sample requests from the panel or a shim are answered with the same snapshots.
  frame.onMessage.addListener(() => {});
  const answer = () => {
    for (const m of frame.take()) {
      if (m.type === 'sample') frame.deliver({ type: 'context', id: m.id, providers: snapshots, ambient: { selection: 'A' } });
    }
  };
  return { ...w, frame, answer };
}

// Runs a request while answering the frame's sample requests.
async function askSampled(w, msg) {
  const p = ask(w.chrome, msg);
  await drain();
  w.answer();
  await drain();
  return p;
}

test('panel/state shows the site, the tools marked read-only or acting, and one chip per provider with the raw JSON sent', async () => {
  const w = await demo();
  const s = await askSampled(w, { type: 'panel/state', tabId: 3, fresh: true });
  assert.deepEqual(s.site, { origin: LOCAL, allowed: true });
  assert.deepEqual(s.tab, { id: 3, url: `${LOCAL}/page3`, title: 'page 3', web: true });
  assert.equal(s.host.connected, true);
  assert.deepEqual(s.tools.map((t) => [t.name, t.readOnly, t.shared]), [['get_selection', true, true], ['select_slice', false, true]]);
  assert.deepEqual(s.leftOut, []);
  assert.deepEqual(s.chips.map((c) => [c.id, c.kind, c.included]), [[SEL, 'provider', true], [VIEW, 'provider', true], ['ambient', 'ambient', true]]);
  // The raw JSON is what get_ui_context gives the agent of the snapshot the host was sent.
  const sent = w.host.ofType('context').at(-1).context;
  const sel = sent.providers.find((p) => p.id === SEL);
  assert.deepEqual(JSON.parse(s.chips[0].raw), { id: SEL, summary: sel.summary, data: sel.data });
  assert.equal(s.chips[0].description, 'ids join the slice table');
  assert.equal(s.chips[2].summary, 'Selected text "A"');
  // Without a tab id: the focused tab.
  assert.equal((await ask(w.chrome, { type: 'panel/state' })).tab.id, 3);
  // A tab the worker does not know.
  assert.equal((await ask(w.chrome, { type: 'panel/state', tabId: 99 })).tab, null);
});

test('turning a site off takes its tools and context from the host at once; on brings them back', async () => {
  const w = await demo();
  w.host.take();
  const off = await ask(w.chrome, { type: 'site/set', origin: LOCAL, on: false });
  assert.deepEqual(off, { origin: LOCAL, allowed: false, reloaded: false });
  const msgs = w.host.take();
  const removed = msgs.find((m) => m.type === 'toolsRemoved');
  assert.deepEqual(removed.removed.map((r) => r.name).sort(), ['get_selection', 'select_slice']);
  const ctx = msgs.find((m) => m.type === 'context').context;
  assert.deepEqual(Object.keys(ctx).sort(), ['tabId', 'time']);
  const tab = msgs.find((m) => m.type === 'tabUpdated').tab;
  assert.equal(tab.url, '');
  assert.equal(tab.title, '');
  // localhost is a required grant, which the browser keeps: the origin is blocked, and its scripts no longer go there.
  assert.deepEqual(w.chrome.storage.local.peek('siteBlocks'), [LOCAL]);
  assert.deepEqual(w.chrome.scripting.registered.get('webmcp-main').excludeMatches, [`${LOCAL}/*`]);
  const s = await ask(w.chrome, { type: 'panel/state', tabId: 3 });
  assert.equal(s.site.allowed, false);
  assert.deepEqual(s.chips, []);
  assert.ok(s.tools.every((t) => !t.shared));

  const on = await ask(w.chrome, { type: 'site/set', origin: LOCAL, on: true, reload: 3 });
  assert.equal(on.reloaded, false, 'a tab whose frames are connected has the scripts already');
  const back = w.host.take();
  assert.deepEqual(back.find((m) => m.type === 'toolsAdded').tools.map((t) => t.name).sort(), ['get_selection', 'select_slice']);
  assert.deepEqual(w.chrome.storage.local.peek('siteBlocks'), []);
  assert.equal(w.chrome.scripting.registered.get('webmcp-main').excludeMatches, undefined);
});

test('a site outside the list is turned on, listed, and removed from the list', async () => {
  const other = 'http://127.0.0.2:9000';
  const w = await bootWorker({ tabs: [{ id: 4, windowId: 1, active: true, url: `${other}/`, title: 'other' }] });
  const f = w.chrome.connectFrame({ tabId: 4, url: `${other}/` });
  f.deliver({ type: 'tools', tools: [{ name: 'find', description: 'Finds' }] });
  await drain();
  assert.equal(w.host.ofType('toolsAdded').length, 0);
  // Not granted by the browser: refused, nothing changes.
  await assert.rejects(ask(w.chrome, { type: 'site/set', origin: other, on: true }), /the browser has not granted access to http:\/\/127\.0\.0\.2:9000/);
  // The panel asked the browser first (ui/sitegrant.js), on the user's click.
  await w.chrome.permissions.request({ origins: [`${other}/*`] });
  w.chrome.tabs.reloaded = [];
  w.chrome.tabs.reload = async (id) => w.chrome.tabs.reloaded.push(id);
  const on = await ask(w.chrome, { type: 'site/set', origin: other, on: true, reload: 5 });
  assert.deepEqual([on.allowed, on.reloaded, w.chrome.tabs.reloaded], [true, true, [5]], 'a tab without the scripts is reloaded');
  assert.ok(w.chrome.scripting.registered.get('webmcp-isolated').matches.includes(`${other}/*`));
  assert.deepEqual(w.host.ofType('toolsAdded').at(-1).tools.map((t) => t.name), ['find']);
  const { entries } = await ask(w.chrome, { type: 'sites/list' });
  assert.deepEqual(entries.at(-1), { entry: other, blocked: false, isDefault: false });
  assert.ok(entries[0].isDefault);
  w.host.take();
  await ask(w.chrome, { type: 'sites/remove', entry: other });
  assert.deepEqual(w.host.ofType('toolsRemoved').at(-1).removed.map((r) => r.name), ['find']);
  assert.equal((await w.chrome.permissions.getAll()).origins.includes(`${other}/*`), false, 'the grant went back to the browser');
  assert.equal(w.chrome.scripting.registered.get('webmcp-main').matches.includes(`${other}/*`), false);
  await assert.rejects(ask(w.chrome, { type: 'sites/remove', entry: other }), /not on the allow list/);
  await assert.rejects(ask(w.chrome, { type: 'site/set', origin: 'chrome://newtab', on: true }), /only web sites/);
});

test('an excluded provider never leaves the browser: not in the context, a sample, nor a pin; the chip stays, switched off', async () => {
  const w = await demo();
  w.host.take();
  await ask(w.chrome, { type: 'provider/include', origin: LOCAL, providerId: SEL, include: false });
  await ask(w.chrome, { type: 'provider/include', origin: LOCAL, ambient: true, include: false });
  const ctx = w.host.ofType('context').at(-1).context;
  assert.deepEqual(ctx.providers.map((p) => p.id), [VIEW]);
  assert.equal(ctx.ambient, undefined);
  assert.deepEqual(w.chrome.storage.local.peek('contextExclusions'), { [LOCAL]: { providers: [SEL], ambient: true } });

  // A shim's sampleContext: left out as well.
  w.host.deliver({ type: 'request', id: 'r1', method: 'sampleContext', params: {} });
  await drain();
  w.answer();
  await drain();
  const res = w.host.ofType('result').find((m) => m.id === 'r1');
  assert.deepEqual(res.output.providers.map((p) => p.id), [VIEW]);
  assert.equal(JSON.stringify(res.output).includes('Selected slice A'), false);

  // A shim's pin and the panel's pin are refused.
  w.host.deliver({ type: 'request', id: 'r2', method: 'pin', params: { providerId: SEL } });
  await drain();
  const err = w.host.ofType('error').find((m) => m.id === 'r2');
  assert.equal(err.error.code, 'not_allowed');
  assert.match(err.error.message, /excluded/);
  await assert.rejects(ask(w.chrome, { type: 'pin', tabId: 3, providerId: SEL }), /excluded/);

  // The panel still shows the chip, switched off.
  const s = await ask(w.chrome, { type: 'panel/state', tabId: 3 });
  assert.deepEqual(s.chips.map((c) => [c.id, c.included]), [[SEL, false], [VIEW, true], ['ambient', false]]);

  // Included again: back in the context.
  await ask(w.chrome, { type: 'provider/include', origin: LOCAL, providerId: SEL, include: true });
  assert.deepEqual(w.host.ofType('context').at(-1).context.providers.map((p) => p.id), [SEL, VIEW]);
});

test('pin and unpin from the panel; a pin of a provider excluded later is withheld from the host', async () => {
  const w = await demo();
  w.host.take();
  const pin = await askSampled(w, { type: 'pin', tabId: 3, providerId: SEL });
  assert.equal(pin.providerId, SEL);
  assert.deepEqual(w.host.ofType('pins').at(-1).pins.map((p) => p.providerId), [SEL]);
  let s = await ask(w.chrome, { type: 'panel/state', tabId: 3 });
  assert.deepEqual(s.pins.map((p) => [p.providerId, p.shared]), [[SEL, true]]);
  const { pinnedAt, ...rest } = JSON.parse(s.pins[0].raw);
  assert.deepEqual(rest, { providerId: SEL, summary: 'Selected slice A', data: { id: 1, name: 'A' }, tabId: 3, url: `${LOCAL}/page3`, title: 'page 3' });
  assert.match(pinnedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

  await ask(w.chrome, { type: 'provider/include', origin: LOCAL, providerId: SEL, include: false });
  assert.deepEqual(w.host.ofType('pins').at(-1).pins, []);
  s = await ask(w.chrome, { type: 'panel/state', tabId: 3 });
  assert.deepEqual(s.pins.map((p) => [p.providerId, p.shared]), [[SEL, false]]);
  await ask(w.chrome, { type: 'provider/include', origin: LOCAL, providerId: SEL, include: true });
  assert.deepEqual(w.host.ofType('pins').at(-1).pins.map((p) => p.providerId), [SEL]);

  assert.deepEqual(await ask(w.chrome, { type: 'unpin', providerId: SEL }), { removed: 1 });
  assert.deepEqual(w.host.ofType('pins').at(-1).pins, []);
});

test('the panel\'s Port hears of changes: tab, pins, sites', async () => {
  const w = await demo();
  const port = new FakePort(w.chrome.runtime, UI_PORT, PAGE);
  w.chrome.runtime.onConnect.emit(port);
  await ask(w.chrome, { type: 'site/set', origin: LOCAL, on: false });
  await drain();
  const topics = port.take().map((m) => m.topic);
  assert.ok(topics.includes('sites') && topics.includes('tab'), topics.join());
  w.frame.deliver({ type: 'tools', tools: [] });
  await drain();
  assert.deepEqual(port.take().map((m) => m.topic), ['tab']);
});

test('a content script is refused', async () => {
  const w = await demo();
  const cs = { id: ID, url: `${LOCAL}/page3`, tab: { id: 3 }, frameId: 0 };
  await assert.rejects(ask(w.chrome, { type: 'site/set', origin: 'https://evil.example', on: true }, cs), /own pages/);
  assert.equal(w.chrome.storage.local.peek('allowList'), undefined);
  assert.equal(w.chrome.storage.local.peek('siteBlocks'), undefined);
});

test('a failed write undoes the change', async () => {
  const w = await demo();
  w.chrome.storage.local.failWrites = 'quota exceeded';
  await assert.rejects(ask(w.chrome, { type: 'site/set', origin: LOCAL, on: false }), /could not be stored \(quota exceeded\); nothing changed/);
  assert.equal(w.worker.registry.allows(LOCAL), true);
  await assert.rejects(ask(w.chrome, { type: 'provider/include', origin: LOCAL, providerId: SEL, include: false }), /nothing changed/);
  assert.equal(w.worker.registry.isExcluded(LOCAL, SEL), false);
});

test('panel/state lists the tools the extension left out, and why', async () => {
  const w = await demo();
  w.frame.deliver({ type: 'tools', tools: [{ name: 'ok_tool', description: 'Fine' }, { name: 'bad name!', description: 'Invalid' }] });
  await drain();
  const s = await ask(w.chrome, { type: 'panel/state', tabId: 3 });
  assert.deepEqual(s.tools.map((t) => t.name), ['ok_tool']);
  assert.equal(s.leftOut.length, 1);
  assert.match(s.leftOut[0].problem, /bad name!/);
});

test('a tab of a site not allowed: the panel names it only while the browser lets the extension see it (activeTab)', async () => {
  const other = 'http://127.0.0.2:9000';
  let visible = false;
  const w = await bootWorker({
    tabs: [{ id: 4, windowId: 1, active: true, url: `${other}/`, title: 'other' }],
    patch: (chrome) => {
      // The browser hides url and title of a site without a grant, but for
      // the tab the user clicked the toolbar button on.
      const get = chrome.tabs.get;
      const hide = (t) => (visible ? t : { id: t.id, windowId: t.windowId, active: t.active });
      chrome.tabs.get = async (id) => hide(await get(id));
      chrome.tabs.query = async () => [{ id: 4, windowId: 1, active: true }];
    },
  });
  let s = await ask(w.chrome, { type: 'panel/state' });
  assert.equal(s.site, null, 'nothing known of the tab');
  assert.deepEqual(s.tab, { id: 4, url: '', title: '', web: false, hidden: true });
  assert.equal(w.host.take().some((m) => JSON.stringify(m).includes('127.0.0.2')), false, 'nor sent to the host');
  visible = true;
  s = await ask(w.chrome, { type: 'panel/state' });
  assert.deepEqual(s.site, { origin: other, allowed: false });
  assert.equal(s.tab.id, 4);
});
