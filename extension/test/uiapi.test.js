import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UI_PORT } from '../lib/protocol.js';
import { UiApi } from '../worker/uiapi.js';
import { FakePort, fakeChrome } from './fakes/chrome.js';

const ID = 'ofcjadafodbdmmpbkmmngnegabkmkjai';
const page = { id: ID, url: `chrome-extension://${ID}/ui/panel.html?tab=3` };
const contentScript = { id: ID, url: 'https://evil.example/', tab: { id: 3 }, frameId: 0 };

function api() {
  const chrome = fakeChrome({ id: ID });
  const warnings = [];
  const ui = new UiApi({ chrome, log: { warn: (w) => warnings.push(w) } });
  ui.listen();
  return { chrome, ui, warnings };
}

function ask(chrome, msg, sender) {
  return new Promise((resolve) => {
    let answered = false;
    const listeners = chrome.runtime.onMessage.listeners;
    const async = listeners.some((fn) => fn(msg, sender, (r) => {
      answered = true;
      resolve(r);
    }) === true);
    if (!async && !answered) resolve(undefined);
  });
}

test('the extension\'s own pages are answered; content scripts never', async () => {
  const { chrome, ui, warnings } = api();
  let ran = 0;
  ui.on('site/set', async (msg) => {
    ran++;
    return { origin: msg.origin };
  });
  assert.deepEqual(await ask(chrome, { type: 'site/set', origin: 'https://a.example' }, page), { ok: true, value: { origin: 'https://a.example' } });
  const refused = await ask(chrome, { type: 'site/set', origin: 'https://evil.example' }, contentScript);
  assert.equal(refused.ok, false);
  assert.equal(ran, 1);
  assert.match(warnings[0], /only the extension's own pages/);
  // Types no part answers are left to other listeners.
  assert.equal(await ask(chrome, { type: 'unknown' }, page), undefined);
});

test('a failing handler answers with its error', async () => {
  const { chrome, ui } = api();
  ui.on('boom', () => {
    throw new Error('no such site');
  });
  assert.deepEqual(await ask(chrome, { type: 'boom' }, page), { ok: false, error: 'no such site' });
});

test('UI pages hear of changes on their Port; others are disconnected', () => {
  const { chrome, ui } = api();
  const own = new FakePort(chrome.runtime, UI_PORT, page);
  const foreign = new FakePort(chrome.runtime, UI_PORT, contentScript);
  chrome.runtime.onConnect.emit(own);
  chrome.runtime.onConnect.emit(foreign);
  assert.equal(foreign.closedByCode, true);
  ui.publish('sites');
  assert.deepEqual(own.posted, [{ type: 'changed', topic: 'sites' }]);
  assert.deepEqual(foreign.posted, []);
  own.close();
  ui.publish('sites');
  assert.equal(own.posted.length, 1);
});

test('a handler type is registered once', () => {
  const { ui } = api();
  ui.on('a', () => 1);
  assert.throws(() => ui.on('a', () => 2), /answered twice/);
});
