// open_page through the whole worker (worker/opener.js, consent.js,
// requests.js, activity.js): a site not allowed waits for the user in the
// consent window; Allow and add opens the tab and allows the site, Deny
// opens nothing, a cancel ends the question; the activity log lists each.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TOOLS_WAIT } from '../worker/opener.js';
import { ask } from './fakes/consent.js';
import { bootWorker, drain } from './fakes/worker.js';

const open = (id, url) => ({ type: 'request', id, method: 'openPage', params: { url } });
const answers = (host) => host.take().filter((m) => (m.type === 'result' || m.type === 'error') && m.id.startsWith('s1.'))
  .map((m) => [m.id, m.type === 'result' ? 'result' : m.error.code]);

async function boot() {
  const w = await bootWorker();
  const host = w.chrome.runtime.natives.at(-1);
  host.take = () => host.posted.splice(0);
  host.take();
  let next = 70;
  w.chrome.tabs.created = [];
  w.chrome.tabs.create = async (opts) => {
    const tab = { id: next++, windowId: 1, url: opts.url, title: '', status: 'complete' };
    w.chrome.tabs.created.push(tab);
    return tab;
  };
  const get = w.chrome.tabs.get;
  w.chrome.tabs.get = async (id) => w.chrome.tabs.created.find((t) => t.id === id) || get(id);
  return { ...w, host };
}

test('a site not allowed asks in the consent window: Deny opens nothing, Allow and add opens it and allows the site', async () => {
  const { chrome, host, clock, worker } = await boot();
  host.deliver(open('s1.1', 'https://bank.example/'));
  await drain();
  const { requests } = (await ask(chrome, { type: 'consent.list' })).value;
  assert.equal(requests.length, 1);
  assert.equal(requests[0].kind, 'open');
  assert.equal(requests[0].origin, 'https://bank.example');
  assert.equal(chrome.windows.creates.length, 1);
  const wrong = await ask(chrome, { type: 'consent.answer', id: 's1.1', answer: 'allow' });
  assert.equal(wrong.ok, false);
  assert.equal((await ask(chrome, { type: 'consent.answer', id: 's1.1', answer: 'deny' })).ok, true);
  await drain();
  assert.deepEqual(answers(host), [['s1.1', 'declined']]);
  assert.equal(chrome.tabs.created.length, 0);

  host.deliver(open('s1.2', 'https://bank.example/'));
  await drain();
  // The consent window asks the browser for the site on the click (ui/consent-page.js), then answers.
  assert.equal(await chrome.permissions.request({ origins: ['https://bank.example/*'] }), true);
  assert.equal((await ask(chrome, { type: 'consent.answer', id: 's1.2', answer: 'add' })).ok, true);
  await drain();
  await clock.advance(3000);
  assert.deepEqual(answers(host), [['s1.2', 'result']]);
  assert.equal(chrome.tabs.created.length, 1);
  assert.equal(worker.registry.allows('https://bank.example'), true);
  // The tab opened once the content scripts were registered for the site.
  assert.ok(chrome.scripting.registered.get('webmcp-main').matches.includes('https://bank.example/*'));

  const log = (await ask(chrome, { type: 'activity.list' })).value.entries;
  assert.deepEqual(log.map((e) => [e.tool, e.site, e.outcome]), [
    ['open_page', 'https://bank.example', 'result'],
    ['open_page', 'https://bank.example', 'declined'],
  ]);
});

test('a cancel from the agent ends the question', async () => {
  const { chrome, host } = await boot();
  host.deliver(open('s1.3', 'https://shop.example/'));
  await drain();
  host.deliver({ type: 'cancel', id: 's1.3' });
  await drain();
  assert.deepEqual(answers(host), [['s1.3', 'cancelled']]);
  assert.deepEqual((await ask(chrome, { type: 'consent.list' })).value.requests, []);
  assert.equal(chrome.tabs.created.length, 0);
});

test('a redirect to a site not allowed asks in the consent window; Deny closes the tab, and nothing of the page reaches the host', async () => {
  const { chrome, host, clock } = await boot();
  chrome.tabs.removed = [];
  chrome.tabs.remove = async (id) => chrome.tabs.removed.push(id);
  // As in Chromium: without the "tabs" permission, tabs.get leaves url and title out.
  chrome.tabs.create = async () => {
    const tab = { id: 70, windowId: 1, status: 'loading' };
    chrome.tabs.created.push(tab);
    return { ...tab };
  };
  host.deliver(open('s1.4', 'http://127.0.0.1:9999/r?to=https://mail.example/inbox'));
  await drain();
  // The allowed site's request redirects (the browser reports requests to
  // granted sites only), and the tab loads the other site's page, whose URL
  // and title the browser hides.
  chrome.webRequest.onBeforeRedirect.emit({ tabId: 70, frameId: 0, url: 'http://127.0.0.1:9999/r', redirectUrl: 'https://mail.example/inbox?token=SECRET' });
  chrome.tabs.get = async (id) => ({ id, windowId: 1, status: chrome.tabs.created[0].status });
  chrome.tabs.created[0].status = 'complete';
  chrome.tabs.onUpdated.emit(70, { status: 'complete' }, { id: 70, windowId: 1, status: 'complete' });
  await clock.advance(TOOLS_WAIT); // no page of it reports tools: the extension does not run there
  const { requests } = (await ask(chrome, { type: 'consent.list' })).value;
  assert.deepEqual(requests.map((r) => [r.kind, r.origin, r.from]), [['open', 'https://mail.example', 'http://127.0.0.1:9999']]);
  assert.equal((await ask(chrome, { type: 'consent.answer', id: 's1.4', answer: 'deny' })).ok, true);
  await drain();
  const sent = host.take();
  assert.deepEqual(sent.filter((m) => m.id === 's1.4').map((m) => [m.type, m.error && m.error.code]), [['error', 'declined']]);
  assert.doesNotMatch(JSON.stringify(sent), /SECRET|Inbox/);
  assert.deepEqual(chrome.tabs.removed, [70]);
});
