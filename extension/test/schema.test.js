import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import {
  MAX_SCHEMA_BYTES, MAX_SCHEMA_DEPTH, MAX_SCHEMA_NODES, REJECTED_KEYWORD,
  checkSchema, rejectedSchema, schemaForReport, shapeProblem,
} from '../lib/schema.js';
import { utf8Length } from '../lib/utf8.js';

// The bounds and the cases the shim checks too (shim/schemas/limits_test.go).
const LIMITS = JSON.parse(fs.readFileSync(new URL('../../testdata/limits/schema.json', import.meta.url), 'utf8'));

// n objects inside each other: {"p":{"p":{}}} for 2.
function nested(n) {
  let s = {};
  for (let i = 1; i < n; i++) s = { p: s };
  return s;
}

// {"description":"…"} of exactly n bytes: copies of fill, then "a"s.
function described(n, fill) {
  const unit = utf8Length(JSON.stringify(fill)) - 2;
  const room = n - '{"description":""}'.length;
  const k = Math.floor(room / unit);
  return { description: fill.repeat(k) + 'a'.repeat(room - k * unit) };
}

// {"enum":[0,…]} holding n JSON values in all.
function enumOf(n) {
  return { enum: new Array(n - 2).fill(0) };
}

test('the bounds are those of testdata/limits/schema.json (and the shim\'s)', () => {
  assert.equal(MAX_SCHEMA_BYTES, LIMITS.maxBytes);
  assert.equal(MAX_SCHEMA_DEPTH, LIMITS.maxDepth);
  assert.equal(MAX_SCHEMA_NODES, LIMITS.maxNodes);
  assert.equal(REJECTED_KEYWORD, 'x-webmcp-rejected');
});

test('the shared cases', () => {
  for (const c of LIMITS.cases) {
    let schema;
    if (c.nest) schema = nested(c.nest);
    else if (c.bytes) {
      schema = described(c.bytes, c.fill);
      assert.equal(utf8Length(JSON.stringify(schema)), c.bytes, `${c.name}: built the wrong size`);
    } else schema = enumOf(c.values);
    const out = checkSchema(schema);
    assert.equal(!out.problem, c.ok, `${c.name}: ${out.problem || 'accepted'}`);
    if (c.ok) {
      assert.deepEqual(out.schema, schema, `${c.name}: the copy differs`);
      assert.notEqual(out.schema, schema, `${c.name}: not a copy`);
    }
  }
});

test('a deep schema is refused without recursion, and the report still goes', () => {
  // Deeper than JSON.stringify or a structured clone can go.
  const deep = nested(200000);
  assert.throws(() => JSON.stringify(deep), RangeError);
  const out = checkSchema(deep);
  assert.match(out.problem, /nested more than 64 levels deep; the bridge accepts at most 64/);
  const stand = schemaForReport(deep);
  assert.deepEqual(stand, { type: 'object', 'x-webmcp-rejected': out.problem });
  // The frame's report, with the stand-in, survives a structured clone.
  const report = { type: 'tools', tools: [{ name: 'deep', description: 'd', inputSchema: stand }, { name: 'ok', description: 'o', inputSchema: { type: 'object' } }] };
  assert.deepEqual(structuredClone(report), report);
});

test('cycles, shared objects and huge objects are bounded', () => {
  const cyc = { type: 'object', properties: {} };
  cyc.properties.self = cyc;
  assert.match(checkSchema(cyc).problem, /nested more than 64/);

  // A DAG, 61 levels deep, that JSON would write out 2^30 times over.
  let dag = { type: 'string' };
  for (let i = 0; i < 30; i++) dag = { allOf: [dag, dag] };
  assert.match(checkSchema(dag).problem, /more than 10000 JSON values/);

  const wide = { enum: new Array(5_000_000).fill(0) };
  assert.match(checkSchema(wide).problem, /more than 10000 JSON values/);

  const manyKeys = {};
  for (let i = 0; i < 20000; i++) manyKeys['k' + i] = i;
  assert.match(checkSchema({ properties: manyKeys }).problem, /more than 10000 JSON values/);
});

test('what JSON leaves out is not counted; the copy is what travels', () => {
  assert.equal(shapeProblem({ a: undefined, b: () => 1, c: Symbol('s'), d: 1 }), '');
  const withToJSON = { type: 'object', properties: { a: { toJSON: () => ({ type: 'string' }) } } };
  assert.deepEqual(checkSchema(withToJSON).schema, { type: 'object', properties: { a: { type: 'string' } } });
  // A toJSON that returns something deep is caught on the copy.
  const sneaky = { toJSON: () => nested(100) };
  assert.match(checkSchema({ properties: { a: sneaky } }).problem, /nested more than 64/);
  assert.match(checkSchema({ n: 10n }).problem, /cannot be written as JSON/);
  assert.equal(checkSchema([]).problem, 'it is not a JSON object');
  assert.equal(checkSchema('x').problem, 'it is not a JSON object');
  assert.equal(schemaForReport(undefined), undefined);
  assert.equal(schemaForReport(null), undefined);
  assert.equal(schemaForReport([1]), undefined, 'not an object: no schema, as before');
  assert.deepEqual(schemaForReport({ type: 'object' }), { type: 'object' });
  // The browser's own getTools() gives the schema as JSON text.
  assert.deepEqual(schemaForReport('{"type":"object"}'), { type: 'object' });
  assert.equal(schemaForReport('"s"'), undefined);
  assert.match(schemaForReport('{"type":')[REJECTED_KEYWORD], /^it is not valid JSON/);
  const deepText = '{"p":'.repeat(3000) + '{}' + '}'.repeat(3000);
  assert.match(schemaForReport(deepText)[REJECTED_KEYWORD], /nested more than 64 levels deep/);
});

test('utf8Length counts as UTF-8', () => {
  for (const s of ['', 'a', 'é', '漢', '😀', 'a\u0000"\\\n', '\ud800x']) {
    assert.equal(utf8Length(s), Buffer.byteLength(s.replace(/[\ud800-\udfff]/g, (c, i, all) => c), 'utf8'), JSON.stringify(s));
  }
  assert.equal(utf8Length(JSON.stringify('\ud800')), JSON.stringify('\ud800').length, 'a lone surrogate is escaped as ASCII');
});

test('rejectedSchema', () => {
  assert.deepEqual(rejectedSchema('why'), { type: 'object', 'x-webmcp-rejected': 'why' });
});
