import assert from 'node:assert/strict';
import { test } from 'node:test';
import { contextKey, mergeContext, normalizeAmbient, normalizeFrameContext, normalizeProviderDefs } from '../lib/contexts.js';

const sel = { id: 'trace.Timeline#selection', description: 'd', summary: 'Selected slice', data: { type: 'slice', id: 3 } };
const vp = { id: 'trace.Timeline#viewport', summary: 'Viewing', data: { start: 0, end: 220, unit: 'ms', visibleSlices: 32 } };

test('provider lists: valid, distinct ids, at most 64', () => {
  assert.deepEqual(normalizeProviderDefs([{ id: 'a', description: 'd' }, { id: '' }, 5, { id: 'a' }, { id: 'b', description: 7 }]),
    [{ id: 'a', description: 'd' }, { id: 'b' }]);
  assert.deepEqual(normalizeProviderDefs('nope'), []);
  assert.equal(normalizeProviderDefs(Array.from({ length: 100 }, (_, i) => ({ id: `p${i}` }))).length, 64);
});

test('a frame context: snapshots checked, ambient only from a top frame', () => {
  const m = {
    type: 'context',
    providers: [sel, { id: 'x', summary: 's', data: 'y'.repeat(5000) }, { id: 'x', summary: 'again' }, { nope: 1 }],
    ambient: { selection: 'hi', focused: { role: 'button', name: 'Zoom in', tag: 'button', extra: 1 }, other: 2 },
  };
  const top = normalizeFrameContext(m, true);
  assert.deepEqual(top.providers.map((p) => p.id), ['trace.Timeline#selection', 'x']);
  assert.equal(top.providers[1].data.truncated, true);
  assert.deepEqual(top.ambient, { selection: 'hi', focused: { role: 'button', name: 'Zoom in', tag: 'button' } });
  assert.equal(normalizeFrameContext(m, false).ambient, undefined);
  assert.deepEqual(normalizeFrameContext(null, true), { providers: [] });
});

test('ambient: cut and checked', () => {
  assert.equal(normalizeAmbient({}), undefined);
  assert.equal(normalizeAmbient({ selection: '', focused: {} }), undefined);
  const a = normalizeAmbient({ selection: 'x'.repeat(1000), focused: { name: 5, tag: 'div' } });
  assert.equal(a.selection.length, 300);
  assert.equal(a.selectionCut, true);
  assert.deepEqual(a.focused, { tag: 'div' });
});

test('merge: frames in order, top frame ambient, unregistered and repeated ids left out', () => {
  const tab = { id: 7, url: 'http://localhost:1/', title: 'T' };
  const frames = [
    { frameId: 4, providers: [{ id: 'frame.P' }, { id: sel.id }], context: { providers: [{ id: 'frame.P', summary: 'f' }, sel] } },
    { frameId: 0, providers: [{ id: sel.id }], context: { providers: [sel, vp], ambient: { selection: 'top' } } },
    { frameId: 2, providers: [], context: { providers: [], ambient: { selection: 'sub' } } },
    { frameId: 3, providers: [{ id: 'none' }], context: null },
  ];
  assert.deepEqual(mergeContext(tab, frames), {
    tabId: 7,
    url: 'http://localhost:1/',
    title: 'T',
    ambient: { selection: 'top' },
    providers: [sel, { id: 'frame.P', summary: 'f' }],
  });
  assert.deepEqual(mergeContext({ id: 8, url: '', title: '' }, []), { tabId: 8 });
});

test('contextKey ignores the time only', () => {
  const a = { tabId: 1, providers: [sel], time: 1 };
  assert.equal(contextKey(a), contextKey({ ...a, time: 2 }));
  assert.notEqual(contextKey(a), contextKey({ ...a, providers: [vp] }));
  assert.notEqual(contextKey(a), contextKey({ ...a, ambient: { selection: 'x' } }));
});
