import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_PINS, addPin, checkPin, makePin, pinsFrom, removePins, storedPins } from '../lib/pinlist.js';

const snap = { id: 'trace.Timeline#selection', description: 'd', summary: 'Selected slice "CommitNavigation"', data: { type: 'slice', id: 3 } };
const ctx = { tabId: 7, url: 'http://localhost:1/', title: 'Trace viewer', providers: [snap] };

test('makePin freezes a snapshot with its tab', () => {
  assert.deepEqual(makePin(snap, ctx, 1000), {
    providerId: 'trace.Timeline#selection',
    description: 'd',
    summary: 'Selected slice "CommitNavigation"',
    data: { type: 'slice', id: 3 },
    tabId: 7,
    url: 'http://localhost:1/',
    title: 'Trace viewer',
    pinnedAt: 1000,
  });
  assert.deepEqual(makePin({ id: 'a' }, { tabId: 1 }, 5), { providerId: 'a', summary: '', tabId: 1, pinnedAt: 5 });
});

test('pinning the same provider again replaces the older pin', () => {
  const p1 = makePin(snap, ctx, 1);
  const p2 = makePin({ id: 'other' }, ctx, 2);
  const p3 = makePin({ ...snap, data: { type: 'slice', id: 5 } }, ctx, 3);
  let pins = addPin([], p1).pins;
  pins = addPin(pins, p2).pins;
  const before = pins;
  pins = addPin(pins, p3).pins;
  assert.deepEqual(pins, [p2, p3]);
  assert.deepEqual(before, [p1, p2], 'the input list is left alone');
});

test('at most MAX_PINS pins; replacing one is still allowed', () => {
  let pins = [];
  for (let i = 0; i < MAX_PINS; i++) pins = addPin(pins, makePin({ id: `p${i}` }, ctx, i)).pins;
  const r = addPin(pins, makePin({ id: 'one.more' }, ctx, 99));
  assert.match(r.error, /unpin some first/);
  assert.equal(addPin(pins, makePin({ id: 'p0' }, ctx, 100)).pins.length, MAX_PINS);
});

test('unpin one provider or all', () => {
  const pins = [makePin(snap, ctx, 1), makePin({ id: 'other' }, ctx, 2)];
  assert.deepEqual(removePins(pins, 'other'), { pins: [pins[0]], removed: 1 });
  assert.deepEqual(removePins(pins, 'missing'), { pins, removed: 0 });
  assert.deepEqual(removePins(pins, null), { pins: [], removed: 2 });
  assert.deepEqual(removePins(pins), { pins: [], removed: 2 });
});

test('stored pins: JSON text, read back as they were; garbage dropped', () => {
  const pins = [makePin(snap, ctx, 1), makePin({ id: 'other', summary: 's', data: { z: 1, a: 2 } }, ctx, 2)];
  const text = storedPins(pins);
  assert.equal(typeof text, 'string');
  assert.deepEqual(pinsFrom(text), pins);
  assert.equal(JSON.stringify(pinsFrom(text)), JSON.stringify(pins), 'keys keep their order');
  assert.deepEqual(pinsFrom(pins), pins, 'an array works too');
  for (const bad of [undefined, null, 5, '{', '{}', 'null']) assert.deepEqual(pinsFrom(bad), []);
  const mixed = [pins[0], { providerId: '' }, { providerId: 'x', tabId: 'one', pinnedAt: 1 }, 'str', { ...pins[0], pinnedAt: 9 }];
  assert.deepEqual(pinsFrom(mixed), [{ ...pins[0], pinnedAt: 9 }], 'the later pin of a provider wins');
});

test('checkPin caps what it keeps', () => {
  const p = checkPin({ providerId: 'a', summary: 's'.repeat(900), data: 'x'.repeat(9000), tabId: 1, pinnedAt: 2, url: 5 });
  assert.equal(p.summary.length, 500);
  assert.equal(p.data.truncated, true);
  assert.equal(p.url, undefined);
});
