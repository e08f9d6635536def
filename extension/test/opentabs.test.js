// worker/opentabs.js: the open tabs of allowed sites without the bridge's
// scripts get the isolated-world relay where the browser has its own
// WebMCP, by document, and are counted for a reload elsewhere. The probe's
// answers are given here; e2e/opentabs_test.go runs it in Chromium.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OpenTabs } from '../worker/opentabs.js';

function fakeChrome(tabs, frames) {
  const injected = [];
  return {
    injected,
    tabs: { query: async () => tabs },
    scripting: {
      async executeScript({ target, func, files }) {
        if (func) return frames[target.tabId] || [];
        injected.push({ target, files });
        return [];
      },
    },
  };
}

test('native frames of allowed origins without the relay get it by document; a polyfill tab waits for a reload; others are left alone', async () => {
  const frame = (frameId, origin, { has = false, native = true } = {}) => ({ frameId, documentId: `d${frameId}-${origin}`, result: { has, native, origin } });
  const chrome = fakeChrome([
    { id: 1, url: 'https://shop.example/a' },
    { id: 2, url: 'https://shop.example/b' },
    { id: 3, url: 'https://other.example/' },
    { id: 4 }, // a tab the browser names no URL of
    { id: 5, url: 'https://shop.example/c' },
  ], {
    1: [frame(0, 'https://shop.example'), frame(1, 'https://ads.example'), frame(2, 'https://shop.example', { has: true })],
    2: [frame(0, 'https://shop.example', { native: false })],
    5: [frame(0, 'https://shop.example', { has: true })],
  });
  const allowed = new Set(['https://shop.example', 'https://other.example']);
  const open = new OpenTabs({ chrome, allows: (o) => allowed.has(o), log: { warn() {} } });
  const got = await open.join({ origin: 'https://shop.example' });
  assert.deepEqual(got, { joined: [1], needReload: [2] });
  assert.deepEqual(chrome.injected, [{ target: { tabId: 1, documentIds: ['d0-https://shop.example'] }, files: ['generated/isolated-world.js'] }]);
});

test('a browser without executeScript: null, for the caller to reload as before', async () => {
  const open = new OpenTabs({ chrome: { tabs: { query: async () => [] } }, allows: () => true, log: { warn() {} } });
  assert.equal(await open.join(), null);
});
