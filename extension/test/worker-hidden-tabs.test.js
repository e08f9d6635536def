// A tab that goes to a site the extension may not see (issue SEC2 item 1):
// Chromium leaves url and title out of the Tab objects of sites without the
// extension's grant (it has no "tabs" permission), so a Tab update without
// url means the tab left its allowed address, by a user's navigation, a
// script's or a redirect. The worker must forget the old address: no
// agent sees the tab at it, its frames of allowed sites get no calls as if
// it were there, and a tab an agent opened is the user's from then on.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LOCAL, bootWorker, drain, localTab } from './fakes/worker.js';

const request = (id, method, params) => ({ type: 'request', id, method, params });

// Tab 3 on localhost (allowed), focused, with an allowed frame that has a tool.
async function allowedTab() {
  const w = await bootWorker({ tabs: [localTab(3, { active: true })] });
  const frame = w.chrome.connectFrame({ tabId: 3, url: `${LOCAL}/page3` });
  frame.deliver({ type: 'tools', tools: [{ name: 'look', description: 'looks', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } }] });
  frame.deliver({ type: 'context', providers: [] });
  await drain();
  w.host.take();
  frame.take();
  return { ...w, frame };
}

for (const [how, change] of [
  ['a navigation (the user or a script)', { status: 'loading' }],
  ['a redirect, the page loaded', { status: 'complete' }],
]) {
  test(`a tab whose url the browser hides after ${how} is no longer at its allowed address`, async () => {
    const { chrome, host, frame, worker } = await allowedTab();
    // The tab goes to http://127.0.0.2:8080/: the browser hides url and title.
    chrome.tabs.onUpdated.emit(3, change, { id: 3, windowId: 1, active: true, status: change.status });
    await drain();
    const sent = host.take();
    assert.deepEqual(sent.map((m) => [m.type, m.tabId]), [['tabRemoved', 3]]);
    assert.doesNotMatch(JSON.stringify(sent), /page3/);
    assert.deepEqual(worker.registry.tabs.get(3), { id: 3, windowId: 1, active: true, url: '', title: '' });
    // Its frame of an allowed site (say, framed by the other site) gets no
    // calls under the old label, and its context stops.
    assert.deepEqual(frame.take(), [{ type: 'contextOn', on: false }]);
    host.deliver({ type: 'call', id: 'c1', tabId: 3, frameId: 0, name: 'look', arguments: {} });
    await drain();
    const [answer] = host.take();
    assert.equal(answer.type, 'error');
    assert.equal(answer.error.code, 'not_found');
    assert.deepEqual(frame.take(), []);
    host.deliver(request('r1', 'sampleContext', { tabId: 3 }));
    await drain();
    assert.equal(host.take()[0].error.code, 'not_found');
    // Back on an allowed address, it is seen again.
    chrome.navigateTab(3, `${LOCAL}/back`, 'Back');
    await drain();
    assert.deepEqual(host.take().filter((m) => m.type === 'tabUpdated').map((m) => [m.tab.url, m.tab.allowed]), [[`${LOCAL}/back`, true]]);
  });
}

test('a tab an agent opened on an allowed site is the user\'s once it goes where the extension cannot see', async () => {
  const { chrome, host } = await allowedTab();
  chrome.tabs.create = async (opts) => {
    const tab = { id: 80, windowId: 1, active: true, url: opts.url, title: 'Opened', status: 'complete' };
    chrome.openTab(tab);
    return { ...tab };
  };
  host.deliver(request('s1.1', 'openPage', { url: `${LOCAL}/opened` }));
  await drain();
  const frame = chrome.connectFrame({ tabId: 80, url: `${LOCAL}/opened` });
  frame.deliver({ type: 'tools', tools: [] });
  await drain();
  for (const m of frame.take()) {
    if (m.type === 'whenLoaded') frame.deliver({ type: 'loaded', id: m.id });
  }
  await drain();
  const opened = host.take().find((m) => m.id === 's1.1');
  assert.equal(opened.type, 'result', JSON.stringify(opened));
  // A script of the page sends it to a site not allowed.
  chrome.tabs.onUpdated.emit(80, { status: 'loading' }, { id: 80, windowId: 1, active: true, status: 'loading' });
  await drain();
  host.take();
  host.deliver(request('s1.2', 'closeTab', { tabId: 80 }));
  await drain();
  const closed = host.take().find((m) => m.id === 's1.2');
  assert.equal(closed.type, 'error');
  assert.match(closed.error.message, /only the user closes it/, closed.error.message);
});
