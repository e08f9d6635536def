import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_ALLOW_LIST, compileAllowList } from '../lib/allowlist.js';
import { Registry } from '../lib/registry.js';
import { pinFromContext, pinParams, resolveTab, tabIdParam, unpinParams } from '../lib/requestparams.js';

test('params: tabId, providerId', () => {
  assert.deepEqual(tabIdParam('sampleContext', {}), { tabId: null });
  assert.deepEqual(tabIdParam('sampleContext', { tabId: 0 }), { tabId: null });
  assert.deepEqual(tabIdParam('sampleContext', { tabId: 12 }), { tabId: 12 });
  assert.equal(tabIdParam('sampleContext', { tabId: '12' }).code, 'bad_request');
  assert.equal(tabIdParam('sampleContext', { tabId: 1.5 }).code, 'bad_request');
  assert.deepEqual(pinParams({ providerId: 'a.B#c', tabId: 3 }), { providerId: 'a.B#c', tabId: 3 });
  assert.equal(pinParams({}).code, 'bad_request');
  assert.equal(pinParams({ providerId: 'a', tabId: 'x' }).code, 'bad_request');
  assert.deepEqual(unpinParams({}), { providerId: null });
  assert.deepEqual(unpinParams({ providerId: 'a' }), { providerId: 'a' });
  assert.equal(unpinParams({ providerId: 3 }).code, 'bad_request');
});

test('resolveTab: the focused tab, or a tab by id', () => {
  const r = new Registry({ allows: compileAllowList(DEFAULT_ALLOW_LIST).allows });
  assert.match(resolveTab(r, null).message, /no focused tab/);
  r.upsertTab({ id: 1, windowId: 1, active: true, url: 'http://localhost:1/', title: 'T' });
  r.upsertTab({ id: 2, windowId: 2, active: true, url: 'https://example.com/', title: 'E' });
  r.upsertTab({ id: 3, windowId: 3, active: true, url: 'chrome://newtab/', title: 'N' });
  assert.equal(resolveTab(r, null).code, 'not_found', 'no window focused yet');
  r.setFocusedWindow(1);
  assert.equal(resolveTab(r, null).tab.id, 1);
  r.setFocusedWindow(2);
  const blocked = resolveTab(r, null);
  assert.equal(blocked.code, 'not_found');
  assert.match(blocked.message, /not on the bridge's allow list/);
  r.setFocusedWindow(3);
  assert.equal(resolveTab(r, null).code, 'not_found');
  assert.equal(resolveTab(r, 1).tab.id, 1);
  assert.equal(resolveTab(r, 2).code, 'not_allowed');
  assert.equal(resolveTab(r, 3).code, 'not_found');
  assert.equal(resolveTab(r, 99).code, 'not_found');
});

test('pinFromContext: the pin, or why not', () => {
  const ctx = {
    tabId: 7,
    url: 'http://localhost:1/',
    title: 'T',
    providers: [
      { id: 'trace.Timeline#selection', summary: 'Selected', data: { id: 3 } },
      { id: 'test.Broken', note: 'threw: provider exploded' },
    ],
  };
  const ids = ['trace.Timeline#selection', 'trace.Timeline#viewport', 'test.Broken'];
  assert.deepEqual(pinFromContext(ctx, 'trace.Timeline#selection', ids, 5).pin, {
    providerId: 'trace.Timeline#selection', summary: 'Selected', data: { id: 3 }, tabId: 7, url: 'http://localhost:1/', title: 'T', pinnedAt: 5,
  });
  const unknown = pinFromContext(ctx, 'nope', ids, 5);
  assert.equal(unknown.code, 'not_found');
  assert.match(unknown.message, /"trace.Timeline#selection", "trace.Timeline#viewport", "test.Broken"/);
  assert.match(pinFromContext({ tabId: 1 }, 'nope', [], 5).message, /has no context providers/);
  const empty = pinFromContext(ctx, 'trace.Timeline#viewport', ids, 5);
  assert.equal(empty.code, 'not_found');
  assert.match(empty.message, /nothing to show right now/);
  const broken = pinFromContext(ctx, 'test.Broken', ids, 5);
  assert.equal(broken.code, 'tool_error');
  assert.match(broken.message, /provider exploded/);
});
