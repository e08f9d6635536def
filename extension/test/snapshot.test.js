import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import * as A from '../content/isolated/ambient.js';
import { MAX_ELEMENT_FIELD, MAX_SELECTION, normalizeAmbient } from '../lib/contexts.js';
import { MAX_PINS } from '../lib/pinlist.js';
import * as S from '../lib/snapshot.js';
import { utf8Length } from '../lib/utf8.js';
// The limits of UI context, defined once for the extension and the shim
// (shim/uicontext checks the same file).
const LIMITS = JSON.parse(fs.readFileSync(new URL('../../testdata/limits/uicontext.json', import.meta.url), 'utf8'));

test('the limits are those of testdata/limits/uicontext.json', () => {
  const L = LIMITS.extension;
  assert.equal(S.MAX_DATA_BYTES, L.dataBytes);
  assert.equal(S.PREVIEW_BYTES, L.previewBytes);
  assert.equal(S.TRUNCATED_NOTE, L.cutNote);
  assert.equal(S.MAX_SUMMARY_CHARS, L.summaryChars);
  assert.equal(S.MAX_DESCRIPTION_CHARS, L.descriptionChars);
  assert.equal(S.MAX_NOTE_CHARS, L.noteChars);
  assert.equal(S.MAX_PROVIDER_ID_CHARS, L.providerIdChars);
  assert.ok(S.isValidProviderId('x'.repeat(L.providerIdChars)) && !S.isValidProviderId('x'.repeat(L.providerIdChars + 1)));
  assert.equal(S.MAX_PROVIDERS, L.providersPerDocument);
  assert.equal(A.MAX_SELECTION_CHARS, L.selectionChars);
  assert.equal(MAX_SELECTION, L.selectionChars, 'the worker checks the page\'s cut with the same number');
  assert.equal(A.MAX_NAME_CHARS, L.elementNameChars);
  assert.equal(MAX_ELEMENT_FIELD, L.elementFieldChars);
  assert.ok(L.elementNameChars <= L.elementFieldChars);
  assert.equal(MAX_PINS, L.pins);
});

test('the golden cuts of testdata/limits/uicontext.json', () => {
  for (const c of LIMITS.cuts) {
    const text = c.prefix + c.repeat.repeat(c.times) + c.suffix;
    const out = S.capData(text);
    if (!c.cut) {
      assert.deepEqual(out, JSON.parse(text), c.name);
      continue;
    }
    const preview = Buffer.from(text, 'utf8').subarray(0, c.previewBytes).toString('utf8');
    assert.deepEqual(out, { truncated: true, bytes: c.bytes, preview, note: LIMITS.extension.cutNote }, c.name);
  }
});

test("what the page cut passes the worker's check unchanged", () => {
  const sel = A.selectionFrom('😀'.repeat(1000));
  assert.equal(Array.from(sel.selection).length, LIMITS.extension.selectionChars);
  assert.deepEqual(normalizeAmbient(sel), sel);
  const name = '😀'.repeat(LIMITS.extension.elementNameChars);
  assert.deepEqual(normalizeAmbient({ focused: { role: 'button', name } }), { focused: { role: 'button', name } });
});

test('the data cap: 4 KiB of UTF-8 JSON travel as they are', () => {
  assert.equal(S.MAX_DATA_BYTES, 4096);
  const fits = JSON.stringify({ s: 'x'.repeat(4096 - 8) });
  assert.equal(utf8Length(fits), 4096);
  assert.deepEqual(S.capData(fits), JSON.parse(fits));
  assert.deepEqual(S.capData('{"type":"slice","id":3}'), { type: 'slice', id: 3 });
  assert.equal(S.capData('null'), null);
});

test('the data cap: bigger data becomes a preview of its first KiB and a note', () => {
  const big = JSON.stringify({ s: 'x'.repeat(4096 - 7) });
  assert.equal(utf8Length(big), 4097);
  const cut = S.capData(big);
  assert.deepEqual(Object.keys(cut), ['truncated', 'bytes', 'preview', 'note']);
  assert.equal(cut.truncated, true);
  assert.equal(cut.bytes, 4097);
  assert.equal(cut.note, "data over 4 KiB was cut: call the page's tools for the rest");
  assert.equal(cut.preview, big.slice(0, 1024));
  // Counted in UTF-8 bytes, and never half a character.
  const wide = JSON.stringify(['é'.repeat(2100)]); // 2 bytes each
  assert.ok(wide.length < 4096 && utf8Length(wide) > 4096);
  const w = S.capData(wide);
  assert.equal(w.truncated, true);
  assert.equal(utf8Length(w.preview), 1024);
  const emoji = JSON.stringify(['😀'.repeat(1100)]); // 4 bytes, 2 code units each
  const e = S.capData(emoji);
  assert.ok(utf8Length(e.preview) <= 1024);
  assert.doesNotMatch(e.preview, /[\ud800-\udbff]$/, 'no lone high surrogate at the end');
  assert.equal(e.preview, '["' + '😀'.repeat(255));
  assert.ok(JSON.stringify(e).length < 1200, 'what travels instead is small');
});

test('utf8Length and cutBytes agree with TextEncoder', () => {
  for (const s of ['', 'abc', 'é', '€', '😀', 'a😀b€é', '\ud800x', 'x\udc00']) {
    assert.equal(utf8Length(s), new TextEncoder().encode(s).length, JSON.stringify(s));
  }
  assert.equal(S.cutBytes('a😀b', 4), 'a');
  assert.equal(S.cutBytes('a😀b', 5), 'a😀');
  assert.equal(S.cutBytes('abc', 10), 'abc');
});

test('cutText ends with an ellipsis and keeps surrogate pairs whole', () => {
  assert.equal(S.cutText('short', 10), 'short');
  assert.equal(S.cutText('abcdefghij', 5), 'abcd…');
  assert.equal(S.cutText('abc😀def', 5), 'abc…');
  assert.equal(S.cutText('abc😀def', 6).length, 6);
});

test('provider ids: 1 to 200 characters, not blank, no control characters', () => {
  for (const id of ['trace.Timeline#selection', 'dev.perfetto.Flamegraph#panel:3', 'x', 'é#ü', 'a b', 'x'.repeat(200)]) {
    assert.equal(S.isValidProviderId(id), true, id);
  }
  for (const id of ['', ' ', '\t', 'x'.repeat(201), 'a\nb', 'a\u0000', 'a\u0085b', 5, null, undefined]) {
    assert.equal(S.isValidProviderId(id), false, JSON.stringify(id));
  }
});

test('fromSample builds a ProviderSnapshot from what the page sampled', () => {
  assert.deepEqual(S.fromSample({ id: 'a.B#c', description: 'd', summary: 'Selected', json: '{"id":3}' }),
    { id: 'a.B#c', description: 'd', summary: 'Selected', data: { id: 3 } });
  assert.deepEqual(S.fromSample({ id: 'a.B#c', summary: 'no data' }), { id: 'a.B#c', summary: 'no data' });
  assert.deepEqual(S.fromSample({ id: 'a.B#c', description: 'd', note: 'threw: provider exploded', summary: 'x', json: '1' }),
    { id: 'a.B#c', description: 'd', note: 'threw: provider exploded' });
  const long = S.fromSample({ id: 'a', summary: 's'.repeat(600), description: 'd'.repeat(3000), json: JSON.stringify('x'.repeat(5000)) });
  assert.equal(long.summary.length, S.MAX_SUMMARY_CHARS);
  assert.equal(long.description.length, S.MAX_DESCRIPTION_CHARS);
  assert.equal(long.data.truncated, true);
  assert.deepEqual(S.fromSample({ id: 'a', json: 'not json' }), { id: 'a', note: 'data is not JSON' });
  assert.equal(S.fromSample({ id: '' }), null);
  assert.equal(S.fromSample(null), null);
  assert.equal(S.fromSample('x'), null);
});

test('checkSnapshot re-caps what a frame sent', () => {
  assert.deepEqual(S.checkSnapshot({ id: 'a', summary: 's', data: { x: 1 }, extra: true }), { id: 'a', summary: 's', data: { x: 1 } });
  assert.equal(S.checkSnapshot({ id: 'a', summary: 's', data: 'y'.repeat(5000) }).data.truncated, true);
  assert.deepEqual(S.checkSnapshot({ id: 'a', note: 'timed out after 50 ms' }), { id: 'a', note: 'timed out after 50 ms' });
  assert.deepEqual(S.checkSnapshot({ id: 'a', summary: 5 }), { id: 'a', summary: '' });
  assert.equal(S.checkSnapshot({ summary: 's' }), null);
});
