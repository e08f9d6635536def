// lib/link.js: batching, chunking and measuring on one link, and taking
// batches and chunks apart on the other end. The expectations are written
// out by hand.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLink } from '../lib/link.js';

// A fake task turn: later(fn) keeps fn until turn() runs what waits.
function fakeTurn() {
  let fns = [];
  return {
    later: (fn) => fns.push(fn),
    turn() {
      const now = fns;
      fns = [];
      for (const fn of now) fn();
    },
    get pending() {
      return fns.length;
    },
  };
}

function wire(opts = {}) {
  const posted = [];
  const link = createLink((m) => {
    posted.push(m);
  }, opts);
  return { link, posted };
}

test('a link with no limits posts each message at once, as it is, never writing its JSON', () => {
  const { link, posted } = wire();
  const msg = { type: 'result', id: 'a', output: 1n }; // no JSON for a BigInt: it is never written
  assert.equal(link.send(msg), true);
  assert.equal(posted.length, 1);
  assert.equal(posted[0], msg);
});

test('together: the messages of one task turn go as one batch; one alone goes as itself', () => {
  const t = fakeTurn();
  const { link, posted } = wire({ later: t.later });
  link.send({ type: 'result', id: 'a', output: 1 }, { together: true });
  link.send({ type: 'error', id: 'b', error: { code: 'tool_error', message: 'no' } }, { together: true });
  assert.deepEqual(posted, []);
  assert.equal(link.waiting, 2);
  assert.equal(t.pending, 1, 'one end-of-turn job for the turn');
  t.turn();
  assert.deepEqual(posted, [{ type: 'batch', messages: [
    { type: 'result', id: 'a', output: 1 },
    { type: 'error', id: 'b', error: { code: 'tool_error', message: 'no' } },
  ] }]);
  posted.length = 0;
  link.send({ type: 'result', id: 'c', output: 3 }, { together: true });
  t.turn();
  assert.deepEqual(posted, [{ type: 'result', id: 'c', output: 3 }]);
});

test('flush sends what waits now; a message sent without together goes at once, before those that wait', () => {
  const t = fakeTurn();
  const { link, posted } = wire({ later: t.later });
  link.send({ type: 'result', id: 'a', output: 1 }, { together: true });
  link.send({ type: 'tools', tools: [] });
  assert.deepEqual(posted, [{ type: 'tools', tools: [] }]);
  link.send({ type: 'result', id: 'b', output: 2 }, { together: true });
  assert.deepEqual(link.flush(), []);
  assert.deepEqual(posted.slice(1), [{ type: 'batch', messages: [{ type: 'result', id: 'a', output: 1 }, { type: 'result', id: 'b', output: 2 }] }]);
  t.turn(); // nothing waits any more
  assert.equal(posted.length, 2);
});

test('a peer that does not take batches gets every message at once, alone', () => {
  let takes = false;
  const t = fakeTurn();
  const { link, posted } = wire({ later: t.later, batches: () => takes });
  link.send({ type: 'result', id: 'a', output: 1 }, { together: true });
  link.hold();
  link.send({ type: 'result', id: 'b', output: 2 });
  assert.deepEqual(link.release(), []);
  assert.deepEqual(posted, [{ type: 'result', id: 'a', output: 1 }, { type: 'result', id: 'b', output: 2 }]);
  assert.equal(t.pending, 0);
  takes = true;
  link.send({ type: 'result', id: 'c', output: 3 }, { together: true });
  assert.equal(posted.length, 2);
});

test('hold and release: what is sent meanwhile goes as one batch; holds nest; release tells what did not go', () => {
  const posted = [];
  let open = true;
  const link = createLink((m) => {
    if (!open) return false;
    posted.push(m);
    return true;
  });
  link.hold();
  link.hold();
  link.send({ type: 'call', id: 's1' });
  link.send({ type: 'cancel', id: 's0' });
  assert.deepEqual(link.release(), []);
  assert.deepEqual(posted, [], 'the outer hold still keeps them');
  assert.deepEqual(link.release(), []);
  assert.deepEqual(posted, [{ type: 'batch', messages: [{ type: 'call', id: 's1' }, { type: 'cancel', id: 's0' }] }]);
  // One held message goes as itself.
  link.hold();
  link.send({ type: 'call', id: 's2' });
  link.release();
  assert.deepEqual(posted.at(-1), { type: 'call', id: 's2' });
  // The Port closed: release gives back what did not go.
  open = false;
  link.hold();
  link.send({ type: 'call', id: 's3' });
  link.send({ type: 'call', id: 's4' });
  assert.deepEqual(link.release(), [{ type: 'call', id: 's3' }, { type: 'call', id: 's4' }]);
  assert.equal(link.send({ type: 'call', id: 's5' }), false);
});

test('a message over oneMax never waits: it goes at once, alone, ahead of the small ones', () => {
  const t = fakeTurn();
  const { link, posted } = wire({ later: t.later, oneMax: 40 });
  // {"type":"result","id":"a","output":1} is 37 units; with output "xxxxx" 43.
  link.hold();
  link.send({ type: 'result', id: 'a', output: 1 });
  link.send({ type: 'result', id: 'b', output: 'xxxxx' });
  link.send({ type: 'result', id: 'c', output: 3 });
  assert.deepEqual(posted, [{ type: 'result', id: 'b', output: 'xxxxx' }]);
  link.release();
  assert.deepEqual(posted.slice(1), [{ type: 'batch', messages: [{ type: 'result', id: 'a', output: 1 }, { type: 'result', id: 'c', output: 3 }] }]);
});

test('a batch holds at most batchMax units of JSON; the rest go in the next one', () => {
  const { link, posted } = wire({ batchMax: 80 });
  // Each {"type":"result","id":"a","output":1} is 37 units: two fit in 80, three do not.
  link.hold();
  for (const id of ['a', 'b', 'c', 'd', 'e']) link.send({ type: 'result', id, output: 1 });
  link.release();
  assert.deepEqual(posted.map((m) => (m.type === 'batch' ? m.messages.map((x) => x.id) : m.id)), [['a', 'b'], ['c', 'd'], 'e']);
});

test('a message over maxWhole bytes goes as chunks of at most units code units, numbered per link', () => {
  const { link, posted } = wire({ maxWhole: 30, units: 10, chunkPrefix: 'x' });
  // {"type":"r","data":"abcdefghij"}: 32 units, 32 bytes.
  link.send({ type: 'r', data: 'abcdefghij' });
  assert.deepEqual(posted, [
    { type: 'chunk', id: 'x1', seq: 0, last: false, data: '{"type":"r' },
    { type: 'chunk', id: 'x1', seq: 1, last: false, data: '","data":"' },
    { type: 'chunk', id: 'x1', seq: 2, last: false, data: 'abcdefghij' },
    { type: 'chunk', id: 'x1', seq: 3, last: true, data: '"}' },
  ]);
  posted.length = 0;
  // 30 bytes exactly: whole. {"type":"r","data":"abcdefgh"}
  link.send({ type: 'r', data: 'abcdefgh' });
  assert.deepEqual(posted, [{ type: 'r', data: 'abcdefgh' }]);
  posted.length = 0;
  // The bytes count, not the units: 13 units of which 2 are "é" (2 bytes each) is 15 bytes > 14.
  const small = wire({ maxWhole: 14, units: 100, chunkPrefix: 'x' });
  small.link.send({ type: 'éé' });
  assert.deepEqual(small.posted, [{ type: 'chunk', id: 'x1', seq: 0, last: true, data: '{"type":"éé"}' }]);
});

test('a cut never splits a surrogate pair; the caller\'s text is what is cut', () => {
  const { link, posted } = wire({ maxWhole: 3, units: 3 });
  link.send({ type: 'r' }, { text: 'ab😀c' });
  assert.deepEqual(posted.map((m) => m.data), ['ab', '😀c']);
  assert.deepEqual(posted.map((m) => [m.id, m.seq, m.last]), [['c1', 0, false], ['c1', 1, true]]);
});

test('each message\'s JSON is written once, and not at all when the caller gives it', () => {
  let writes = 0;
  const counted = (id) => ({ type: 'result', id, toJSON() {
    writes++;
    return { type: 'result', id };
  } });
  const t = fakeTurn();
  const { link } = wire({ later: t.later, maxWhole: 1000, oneMax: 500, batchMax: 900 });
  link.send(counted('a'), { together: true });
  link.send(counted('b'), { together: true });
  t.turn();
  link.send(counted('c'));
  assert.equal(writes, 3);
  link.send(counted('d'), { text: '{"type":"result","id":"d"}' });
  assert.equal(writes, 3);
});

test('what cannot be written as JSON, or posted, is told to unsent', () => {
  const told = [];
  const link = createLink(() => {
    throw new Error('port closed');
  }, { maxWhole: 100, unsent: (m, e) => told.push([m.id, e.message]) });
  assert.equal(link.send({ type: 'result', id: 'a', output: 1n }), false);
  assert.equal(link.send({ type: 'result', id: 'b', output: 2 }), false);
  assert.equal(told[0][0], 'a');
  assert.match(told[0][1], /BigInt/);
  assert.deepEqual(told[1], ['b', 'port closed']);
});

test('receiving: a batch\'s messages one by one, in order, between the hooks; a joined message whole', () => {
  const log = [];
  const link = createLink(() => {}, { batchHooks: { hold: () => log.push('hold'), release: () => log.push('release') } });
  link.onMessage((m, inBatch) => log.push([m.id, inBatch]));
  link.receive({ type: 'call', id: 'a' });
  link.receive({ type: 'batch', messages: [{ type: 'call', id: 'b' }, { type: 'cancel', id: 'a' }] });
  link.receive({ type: 'chunk', id: 'c1', seq: 0, data: '{"type":"call",' });
  link.receive({ type: 'chunk', id: 'c1', seq: 1, data: '"id":"c"}', last: true });
  assert.deepEqual(log, [['a', false], 'hold', ['b', true], ['a', true], 'release', ['c', false]]);
});

test('receiving refuses a batch or chunk inside a batch or a chunked message, bad chunks and bad batches; junk is passed on', () => {
  const problems = [];
  const got = [];
  const link = createLink(() => {}, { problem: (t) => problems.push(t) });
  link.onMessage((m) => got.push(m));
  link.receive({ type: 'batch', messages: [
    { type: 'batch', messages: [{ type: 'call', id: 'n1' }] },
    { type: 'chunk', id: 'c1', data: '{}', last: true },
    { type: 'call', id: 'ok' },
  ] });
  link.receive({ type: 'chunk', id: 'c2', last: true, data: '{"type":"batch","messages":[{"type":"call","id":"n2"}]}' });
  link.receive({ type: 'chunk', id: 'c3', last: true, data: '{"type":"chunk","id":"c4","last":true,"data":"{}"}' });
  link.receive({ type: 'chunk', id: 'c5', last: true, data: '{"type":' });
  link.receive({ type: 'chunk', id: 'c6', seq: 1, data: 'x' });
  link.receive({ type: 'batch', messages: 'no' });
  link.receive('junk');
  assert.deepEqual(got, [{ type: 'call', id: 'ok' }, 'junk']);
  assert.deepEqual(problems.slice(0, 3), [
    'ignored a batch inside a batch or a chunked message',
    'ignored a chunk inside a chunked message or a batch',
    'ignored a batch inside a batch or a chunked message',
  ]);
  assert.equal(problems[3], 'ignored a chunk inside a chunked message or a batch');
  assert.match(problems[4], /^chunked message c5 is not JSON/);
  assert.match(problems[5], /got piece 1, want 0/);
  assert.equal(problems[6], 'ignored a batch without a "messages" list');
  assert.equal(problems.length, 7);
});

test('reset forgets the pieces under way and what waits to go', () => {
  const problems = [];
  const t = fakeTurn();
  const { link, posted } = wire({ later: t.later, problem: (p) => problems.push(p) });
  link.receive({ type: 'chunk', id: 'c1', seq: 0, data: '{"type":' });
  link.send({ type: 'result', id: 'a' }, { together: true });
  link.reset();
  link.receive({ type: 'chunk', id: 'c1', seq: 1, data: '"x"}', last: true });
  assert.match(problems[0], /got piece 1, want 0/);
  t.turn();
  assert.deepEqual(posted, []);
});

test('two links end to end: what one sends the other hands on as it was sent', () => {
  const got = [];
  const b = createLink(() => {});
  b.onMessage((m, inBatch) => got.push([m, inBatch]));
  const a = createLink((m) => b.receive(JSON.parse(JSON.stringify(m))), { maxWhole: 40, units: 7, oneMax: 60 });
  const big = { type: 'result', id: 'big', output: 'é'.repeat(30) };
  a.hold();
  a.send({ type: 'result', id: 'a', output: 1 });
  a.send(big);
  a.send({ type: 'error', id: 'b' });
  a.release();
  assert.deepEqual(got, [[big, false], [{ type: 'result', id: 'a', output: 1 }, true], [{ type: 'error', id: 'b' }, true]]);
});

test('now: a message goes at once even between hold and release; measure picks the messages whose JSON is written', () => {
  const { link, posted } = wire({ maxWhole: 30, oneMax: 20, measure: (m) => m.type === 'result' });
  link.hold();
  link.send({ type: 'call', id: 's1' });
  link.send({ type: 'indicator', text: 'on' }, { now: true });
  // Not measured: a tools message over every limit goes whole, and waits.
  link.send({ type: 'tools', tools: ['a very long tool name indeed, longer than the limits'] });
  assert.deepEqual(posted, [{ type: 'indicator', text: 'on' }]);
  link.release();
  assert.deepEqual(posted.slice(1), [{ type: 'batch', messages: [
    { type: 'call', id: 's1' },
    { type: 'tools', tools: ['a very long tool name indeed, longer than the limits'] },
  ] }]);
});
