// lib/compat.js: what differs between Chromium's and Firefox's extension
// APIs, told from the browser's chrome object.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isFirefox, sidePanel, storageAccessGap } from '../lib/compat.js';

// The parts of each browser's chrome that compat.js looks at, as Chromium
// and Firefox 153 ESR have them.
function chromium(calls = []) {
  const setAccessLevel = async () => {};
  return {
    runtime: { id: 'x' },
    sidePanel: { open: async (o) => { calls.push(['sidePanel.open', o]); } },
    storage: { local: { setAccessLevel }, session: { setAccessLevel } },
  };
}
function firefox(calls = []) {
  return {
    runtime: { id: 'x', getBrowserInfo: async () => ({ name: 'Firefox', version: '153.0' }) },
    sidebarAction: { open: () => { calls.push(['sidebarAction.open']); return Promise.resolve(); } },
    storage: { local: {}, session: {} },
  };
}

test('isFirefox tells Firefox by runtime.getBrowserInfo', () => {
  assert.equal(isFirefox(chromium()), false);
  assert.equal(isFirefox(firefox()), true);
  assert.equal(isFirefox(undefined), false);
});

test('sidePanel: Chromium\'s side panel for the window, Firefox\'s sidebar, or none', async () => {
  const calls = [];
  const c = sidePanel(chromium(calls));
  assert.equal(c.name, 'side panel');
  await c.open(7);
  const f = sidePanel(firefox(calls));
  assert.equal(f.name, 'sidebar');
  // Firefox opens its sidebar only from a user's click: open calls it at once.
  const p = f.open(7);
  assert.deepEqual(calls, [['sidePanel.open', { windowId: 7 }], ['sidebarAction.open']]);
  await p;
  assert.equal(sidePanel({ runtime: {} }), null);
  assert.equal(sidePanel(undefined), null);
});

test('storageAccessGap: nothing where setAccessLevel is; Firefox\'s storage.local is open to content scripts, its storage.session never', () => {
  assert.equal(storageAccessGap(chromium(), 'local'), '');
  assert.equal(storageAccessGap(chromium(), 'session'), '');
  assert.match(storageAccessGap(firefox(), 'local'), /^Firefox has no chrome\.storage\.local\.setAccessLevel: content scripts can still use storage\.local/);
  assert.equal(storageAccessGap(firefox(), 'session'), '');
  const old = { runtime: {}, storage: { local: {}, session: {} } };
  assert.match(storageAccessGap(old, 'session'), /chrome\.storage\.session\.setAccessLevel is missing \(an older browser\)/);
});
