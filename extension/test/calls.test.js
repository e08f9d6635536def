import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PendingCalls } from '../lib/calls.js';

test('each call is handed out once', () => {
  const p = new PendingCalls();
  const conn = {};
  assert.equal(p.add('s1.1', 3, 0, conn), true);
  assert.equal(p.add('s1.1', 3, 0, conn), false);
  assert.equal(p.size, 1);
  assert.equal(p.take('s1.1').tabId, 3);
  assert.equal(p.take('s1.1'), undefined);
  assert.equal(p.size, 0);
});

test('takeWhere hands out the calls of a frame or tab', () => {
  const p = new PendingCalls();
  const a = {};
  const b = {};
  p.add('1', 1, 0, a);
  p.add('2', 1, 4, b);
  p.add('3', 2, 0, {});
  assert.deepEqual(p.takeWhere((c) => c.conn === b).map((c) => c.id), ['2']);
  assert.deepEqual(p.takeWhere((c) => c.tabId === 1).map((c) => c.id), ['1']);
  assert.deepEqual(p.takeWhere(() => true).map((c) => c.id), ['3']);
  assert.equal(p.size, 0);
});

test('takeFrom hands a call out only to the frame it went to', () => {
  const p = new PendingCalls();
  const a = {};
  const b = {};
  p.add('1', 1, 0, a);
  assert.equal(p.takeFrom('1', b), undefined);
  assert.equal(p.has('1'), true);
  assert.equal(p.takeFrom('1', a).id, '1');
  assert.equal(p.has('1'), false);
  assert.equal(p.takeFrom('1', a), undefined);
});
