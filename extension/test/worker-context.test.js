// UI context, requests and pins in the service worker (worker/contextsampler.js,
// worker/requests.js, worker/pins.js, worker/tabs.js), driven through the
// whole worker with a fake chrome and clock.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SAMPLE_TIMEOUT } from '../worker/contextsampler.js';
import { startWorker } from '../worker/worker.js';
import { REQUIRED_ORIGINS, fakeChrome } from './fakes/chrome.js';
import { FakeClock } from './fakes/clock.js';
import { LOCAL, bootWorker, drain, localTab } from './fakes/worker.js';

const SEL = 'trace.Timeline#selection';

// A top frame of tab 3 with one context provider; the tab is the focused one.
async function withProvider(opts = {}) {
  const w = await bootWorker({ tabs: [localTab(3, { active: true })], ...opts });
  const frame = w.chrome.connectFrame({ tabId: 3, url: `${LOCAL}/page3` });
  frame.deliver({ type: 'providers', providers: [{ id: SEL, description: 'ids join the slice table' }] });
  await drain();
  w.host.take();
  return { ...w, frame };
}

const request = (id, method, params) => ({ type: 'request', id, method, params });

test('a frame of an allowed site is told to sample, and told to stop when the site is no longer allowed', async () => {
  const { chrome, frame, host } = await withProvider({ tabs: [localTab(3), { id: 5, windowId: 1, url: 'https://example.com/' }] });
  assert.deepEqual(frame.take(), [{ type: 'contextOn', on: true }]);
  const other = chrome.connectFrame({ tabId: 5, url: 'https://example.com/' });
  assert.deepEqual(other.posted, []);

  // In the browser's settings, the user takes localhost back and grants example.com.
  chrome.revoke(REQUIRED_ORIGINS);
  chrome.grant(['https://example.com/*']);
  await drain();
  assert.deepEqual(frame.take(), [{ type: 'contextOn', on: false }]);
  assert.deepEqual(other.take(), [{ type: 'contextOn', on: true }]);
  assert.deepEqual(host.take().map((m) => [m.type, m.tab?.id, m.tab?.allowed]), [['tabUpdated', 3, false], ['tabUpdated', 5, true]]);

  // A tab that navigates to another site: its frames stop.
  chrome.navigateTab(5, 'http://elsewhere.test/');
  assert.deepEqual(other.take(), [{ type: 'contextOn', on: false }]);
});

test('sampleContext samples the tab\'s frames and answers with its context', async () => {
  const { frame, host } = await withProvider();
  frame.take();
  host.deliver(request('r1', 'sampleContext', {}));
  const [ask] = frame.take();
  assert.equal(ask.type, 'sample');
  frame.deliver({ type: 'context', id: ask.id, providers: [{ id: SEL, description: 'ids join the slice table', summary: 'Selected slice A', data: { id: 1 } }], ambient: { selection: 'A' } });
  await drain();
  const [ctxMsg, result] = host.take();
  assert.equal(ctxMsg.type, 'context');
  assert.equal(result.type, 'result');
  assert.equal(result.id, 'r1');
  const { time, ...ctx } = result.output;
  assert.equal(typeof time, 'number');
  assert.deepEqual(ctx, {
    tabId: 3, url: `${LOCAL}/page3`, title: 'page 3',
    providers: [{ id: SEL, description: 'ids join the slice table', summary: 'Selected slice A', data: { id: 1 } }],
    ambient: { selection: 'A' },
  });
});

test('a frame that does not answer a sample counts with its last sample after SAMPLE_TIMEOUT', async () => {
  const { clock, frame, host } = await withProvider();
  frame.deliver({ type: 'context', providers: [{ id: SEL, summary: 'old' }] });
  await drain();
  host.take();
  host.deliver(request('r1', 'sampleContext', { tabId: 3 }));
  await clock.advance(SAMPLE_TIMEOUT - 1);
  assert.deepEqual(host.take(), []);
  await clock.advance(1);
  const [result] = host.take();
  assert.equal(result.id, 'r1');
  assert.deepEqual(result.output.providers.map((p) => p.summary), ['old']);
});

test('a frame that goes away ends its sample at once', async () => {
  const { frame, host } = await withProvider();
  host.deliver(request('r1', 'sampleContext', {}));
  frame.close();
  await drain();
  const result = host.take().find((m) => m.id === 'r1');
  assert.equal(result.type, 'result');
  assert.deepEqual(result.output.providers, undefined);
});

test('requests about tabs that are not there or not allowed are answered with errors', async () => {
  const { host } = await bootWorker({ tabs: [localTab(3), { id: 5, windowId: 1, url: 'https://example.com/' }] });
  host.take();
  host.deliver(request('a', 'sampleContext', {}));
  host.deliver(request('b', 'sampleContext', { tabId: 5 }));
  host.deliver(request('c', 'sampleContext', { tabId: 9 }));
  host.deliver(request('d', 'sampleContext', { tabId: 'x' }));
  host.deliver(request('e', 'pin', {}));
  await drain();
  assert.deepEqual(host.take().map((m) => [m.id, m.error.code]), [
    ['a', 'not_found'], ['b', 'not_allowed'], ['c', 'not_found'], ['d', 'bad_request'], ['e', 'bad_request'],
  ]);
});

test('pin samples the provider, stores the pin and announces it; unpin removes it', async () => {
  const { chrome, clock, frame, host } = await withProvider();
  frame.take();
  host.deliver(request('p1', 'pin', { providerId: SEL }));
  const [ask] = frame.take();
  frame.deliver({ type: 'context', id: ask.id, providers: [{ id: SEL, description: 'ids join the slice table', summary: 'Selected slice A', data: { b: 1, a: 2 } }] });
  await drain();
  const msgs = host.take();
  const pin = {
    providerId: SEL, description: 'ids join the slice table', summary: 'Selected slice A', data: { b: 1, a: 2 },
    tabId: 3, url: `${LOCAL}/page3`, title: 'page 3', pinnedAt: clock.now(),
  };
  assert.deepEqual(msgs.filter((m) => m.type !== 'context'), [{ type: 'pins', pins: [pin] }, { type: 'result', id: 'p1', output: pin }]);
  assert.equal(chrome.storage.local.peek('pins'), JSON.stringify([pin]));

  host.deliver(request('u1', 'unpin', { providerId: SEL }));
  await drain();
  assert.deepEqual(host.take(), [{ type: 'pins', pins: [] }, { type: 'result', id: 'u1', output: { removed: 1 } }]);
  host.deliver(request('u2', 'unpin', {}));
  await drain();
  assert.deepEqual(host.take(), [{ type: 'result', id: 'u2', output: { removed: 0 } }]);
});

test('pinning a provider that has nothing to show, or that the tab lacks, fails', async () => {
  const { clock, frame, host } = await withProvider();
  host.deliver(request('p1', 'pin', { providerId: SEL }));
  await clock.advance(SAMPLE_TIMEOUT);
  host.deliver(request('p2', 'pin', { providerId: 'other#x' }));
  await clock.advance(SAMPLE_TIMEOUT);
  const errors = host.take().filter((m) => m.type === 'error');
  assert.deepEqual(errors.map((m) => [m.id, m.error.code]), [['p1', 'not_found'], ['p2', 'not_found']]);
  assert.match(errors[0].error.message, /nothing to show right now/);
  assert.match(errors[1].error.message, /its providers are "trace\.Timeline#selection"/);
  assert.ok(frame);
});

test('a pin that cannot be stored changes nothing', async () => {
  const { chrome, frame, host, worker } = await withProvider();
  frame.take();
  chrome.storage.local.failWrites = 'QUOTA_BYTES quota exceeded';
  host.deliver(request('p1', 'pin', { providerId: SEL }));
  frame.deliver({ type: 'context', id: frame.take()[0].id, providers: [{ id: SEL, summary: 'A' }] });
  await drain();
  const [err] = host.take().filter((m) => m.type !== 'context');
  assert.deepEqual(err.error, { code: 'internal', message: 'the pins could not be stored (QUOTA_BYTES quota exceeded); nothing changed' });
  assert.deepEqual(worker.pins.pins, []);
  assert.equal(chrome.storage.local.peek('pins'), undefined);
});

test('a cancelled request answers cancelled at once and its late answer is dropped', async () => {
  const { frame, host } = await withProvider();
  frame.take();
  host.deliver(request('r1', 'sampleContext', {}));
  host.deliver({ type: 'cancel', id: 'r1' });
  assert.deepEqual(host.take(), [{ type: 'error', id: 'r1', error: { code: 'cancelled', message: 'the request was cancelled' } }]);
  frame.deliver({ type: 'context', id: frame.take()[0].id, providers: [] });
  await drain();
  assert.deepEqual(host.take().filter((m) => m.id === 'r1'), []);
});

test('a repeated request id is ignored while the first runs', async () => {
  const { clock, host, warnings } = await withProvider();
  host.deliver(request('r1', 'sampleContext', {}));
  host.deliver(request('r1', 'sampleContext', {}));
  assert.match(warnings.at(-1), /request r1 is already under way/);
  await clock.advance(SAMPLE_TIMEOUT);
  assert.equal(host.take().filter((m) => m.id === 'r1').length, 1);
});

test('pins come from storage at start, ride in the state, and follow changes the UI stores', async () => {
  const pin = { providerId: SEL, summary: 'kept', tabId: 3, pinnedAt: 1 };
  const { chrome, host } = await bootWorker({ storage: { instance: 'i', pins: JSON.stringify([pin]) } });
  assert.deepEqual(host.ofType('state')[0].state.pins, [pin]);
  host.take();
  await chrome.storage.local.set({ pins: '[]' });
  await drain();
  assert.deepEqual(host.take(), [{ type: 'pins', pins: [] }]);
  // Storing what it has already says nothing.
  await chrome.storage.local.set({ pins: '[]' });
  await drain();
  assert.deepEqual(host.take(), []);
});

test('a tab closed while the worker starts is not taken from the older list', async () => {
  const chrome = fakeChrome({ tabs: [localTab(3), localTab(4)], storage: { instance: 'i' } });
  const clock = new FakeClock();
  const worker = startWorker({ chrome, navigator: { userAgent: '' }, crypto: { randomUUID: () => 'u' }, clock: clock.api, log: { info() {}, warn() {} } });
  chrome.tabs.onRemoved.emit(4, {}); // before tabs.query answers
  await worker.started;
  await clock.advance(1000);
  assert.deepEqual(chrome.native.ofType('state')[0].state.tabs.map((t) => t.id), [3]);
});

test('the focused tab follows tab activation and window focus', async () => {
  const { chrome, host } = await bootWorker({ tabs: [localTab(3, { active: true }), localTab(4, { windowId: 2, active: true })] });
  assert.deepEqual(host.ofType('state')[0].state.tabs.map((t) => [t.id, t.focused]), [[3, true], [4, false]]);
  host.take();
  chrome.windows.onFocusChanged.emit(2);
  await drain();
  assert.deepEqual(host.take().map((m) => [m.tab.id, m.tab.focused]), [[3, false], [4, true]]);
  chrome.tabs.onActivated.emit({ tabId: 5, windowId: 2 });
  chrome.openTab(localTab(5, { windowId: 2, active: true }));
  await drain();
  assert.deepEqual(host.take().map((m) => [m.tab.id, m.tab.focused]), [[4, false], [5, true]]);
});

test('siteAccess tells doctor the allow list and the loopback sites the browser withholds', async () => {
  const { chrome, host } = await bootWorker({
    patch: (c) => {
      c.runtime.getManifest = () => ({ host_permissions: [...REQUIRED_ORIGINS] });
    },
  });
  host.take();
  host.deliver(request('r1', 'siteAccess', {}));
  await drain();
  const [all] = host.take().filter((m) => m.id === 'r1');
  assert.deepEqual(all.output.withheld, []);
  assert.ok(all.output.allowed.length > 0, JSON.stringify(all.output));
  // chrome://extensions → Details → Site access: "On specific sites".
  chrome.revoke(REQUIRED_ORIGINS);
  await drain();
  host.deliver(request('r2', 'siteAccess', {}));
  await drain();
  const [none] = host.take().filter((m) => m.id === 'r2');
  assert.deepEqual(none.output, { allowed: [], withheld: [...REQUIRED_ORIGINS] });
});
