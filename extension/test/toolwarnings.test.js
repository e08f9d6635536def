import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  LONG_DESCRIPTION, invalidSchema, librarySchema, longDescription, mismatch, nameClash, noDescription, outputMismatch, readOnlyActs, schemaProblems, toolWarnings,
} from '../lib/toolwarnings.js';

const ok = { name: 'sum_numbers', description: 'Adds two numbers.', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } };

test('a good tool has no warnings', () => {
  assert.deepEqual(toolWarnings(ok, { mcpName: 'sum_numbers' }), []);
});

test('invalid-schema: what MCP cannot carry, what the bridge refused, malformed keywords', () => {
  assert.equal(invalidSchema({ ...ok, inputSchema: { type: 'string' } }).level, 'error');
  assert.match(invalidSchema({ ...ok, inputSchema: { type: 'string' } }).message, /has type "string"; MCP tools take an object: agents are offered any object/);
  assert.match(invalidSchema({ ...ok, inputSchema: { type: 'object', 'x-webmcp-rejected': 'too deep' } }).message, /refused the inputSchema \(too deep\)/);
  assert.equal(invalidSchema({ ...ok, inputSchema: undefined }), null);
  const w = invalidSchema({ ...ok, inputSchema: { type: 'object', properties: { a: { type: 'float' }, b: 3 }, required: ['a', 'c'] } });
  assert.equal(w.level, 'warning');
  assert.match(w.message, /"required" names "c"/);
  assert.match(w.message, /"type" at \/properties\/a is "float"/);
  assert.match(w.message, /property "b" has 3 as its schema/);
  assert.deepEqual(schemaProblems({ type: 'object', properties: { x: { type: ['string', 'null'] } } }), []);
  assert.deepEqual(schemaProblems({ type: 'object', required: 'a' }), ['"required" must be an array of property names']);
});

test('library-schema: a zod object', () => {
  const w = librarySchema({ ...ok, inputSchema: { _def: { typeName: 'ZodObject' } } });
  assert.equal(w.rule, 'library-schema');
  assert.match(w.message, /internals of a zod schema object; the page must pass registerTool a JSON Schema \(convert it with z\.toJSONSchema\(\)/);
  assert.equal(librarySchema(ok), null);
});

test('no-description and long-description', () => {
  assert.equal(noDescription({ ...ok, description: '  ' }).rule, 'no-description');
  assert.equal(noDescription(ok), null);
  assert.equal(longDescription(ok), null);
  assert.match(longDescription({ ...ok, description: 'x'.repeat(LONG_DESCRIPTION + 1) }).message, /a few sentences/);
  assert.match(longDescription({ ...ok, description: 'é'.repeat(5000) }).message, /10000 bytes: agents get the first 8192/);
});

test('name-clash: what the agent sees instead, and why', () => {
  assert.equal(nameClash(ok, 'sum_numbers'), null);
  assert.match(nameClash(ok, 'sum_numbers_2', { sameNameTabs: [9] }).message, /^Agents see this tool as sum_numbers_2, not sum_numbers: another tab offers sum_numbers too \(tab 9\)\.$/);
  assert.match(nameClash({ ...ok, name: 'a.b' }, 'a_b').message, /MCP clients take only/);
  assert.match(nameClash({ ...ok, name: 'list_tabs' }, 'list_tabs_2').message, /the bridge has a tool of that name/);
});

test('read-only-acts: a read-only tool whose name or description says it changes things', () => {
  assert.match(readOnlyActs({ name: 'deleteItem', description: 'x', annotations: { readOnlyHint: true } }).message, /its name says "delete"/);
  assert.match(readOnlyActs({ name: 'cart', description: 'Adds an item to the cart.', annotations: { readOnlyHint: true } }).message, /its description says "Adds"/);
  assert.equal(readOnlyActs({ name: 'get_selection', description: 'Reads the selected slice.', annotations: { readOnlyHint: true } }), null);
  assert.equal(readOnlyActs({ name: 'delete_item', description: 'x' }), null);
});

test('output-mismatch: a result off the outputSchema', () => {
  const t = { ...ok, outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] } };
  assert.equal(outputMismatch(t, { sum: 42 }), null);
  assert.match(outputMismatch(t, { total: 42 }).message, /sum is missing \(required\)/);
  assert.match(outputMismatch(t, { sum: '42' }).message, /sum is string, the schema wants number/);
  assert.match(outputMismatch(t, undefined).message, /no JSON object/);
  assert.equal(outputMismatch(ok, 42), null);
  assert.equal(mismatch({ type: 'array', items: { type: 'integer' } }, [1, 2.5]), 'the result[1] is number, the schema wants integer');
});
