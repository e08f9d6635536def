import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChunkJoiner } from '../lib/chunks.js';
import { hostChunks } from './fakes/hostcut.js';

test('joins the pieces of a message in order', () => {
  const msg = JSON.stringify({ type: 'call', id: 's1.1', tabId: 3, name: 'echo', arguments: { text: 'é'.repeat(5000) + '"\\' } });
  const j = new ChunkJoiner();
  const pieces = hostChunks('c1', msg, 700);
  assert.ok(pieces.length > 5);
  for (const p of pieces.slice(0, -1)) assert.equal(j.add(JSON.parse(JSON.stringify(p))), null);
  assert.equal(j.add(pieces.at(-1)), msg);
  assert.equal(j.pending.size, 0);
  assert.equal(j.size, 0);
});

test('interleaved messages do not mix', () => {
  const a = JSON.stringify({ type: 'call', id: 'a', arguments: { x: 'a'.repeat(100) } });
  const b = JSON.stringify({ type: 'call', id: 'b', arguments: { x: 'b'.repeat(100) } });
  const pa = hostChunks('ca', a, 30);
  const pb = hostChunks('cb', b, 30);
  const j = new ChunkJoiner();
  const done = [];
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    for (const p of [pa[i], pb[i]]) {
      if (!p) continue;
      const r = j.add(p);
      if (r !== null) done.push(r);
    }
  }
  assert.deepEqual(done.sort(), [a, b].sort());
});

test('a single piece with last is a whole message', () => {
  assert.equal(new ChunkJoiner().add({ type: 'chunk', id: 'x', last: true, data: '{}' }), '{}');
});

test('a piece out of order drops the message', () => {
  const j = new ChunkJoiner();
  j.add({ id: 'c', data: 'ab' });
  assert.throws(() => j.add({ id: 'c', seq: 2, data: 'cd' }), /got piece 2, want 1; the message is dropped/);
  assert.equal(j.pending.size, 0);
  // a fresh start of the same id works again
  assert.equal(j.add({ id: 'c', data: '{"a":1}', last: true }), '{"a":1}');
  assert.throws(() => j.add({ id: 'd', seq: 1, data: 'x' }), /got piece 1, want 0/);
});

test('malformed pieces are refused', () => {
  const j = new ChunkJoiner();
  assert.throws(() => j.add(null), /not an object/);
  assert.throws(() => j.add({ seq: 0, data: 'x' }), /missing "id"/);
  assert.throws(() => j.add({ id: 'x', data: 5 }), /"data" is not a string/);
});

test('too much pending text drops the message', () => {
  const j = new ChunkJoiner({ maxBytes: 10 });
  j.add({ id: 'a', data: '123456' });
  assert.throws(() => j.add({ id: 'a', seq: 1, data: '123456' }), /more than 10 bytes pending/);
  assert.equal(j.size, 0);
  j.add({ id: 'b', data: '1234' });
  j.reset();
  assert.equal(j.size, 0);
  assert.equal(j.pending.size, 0);
});
