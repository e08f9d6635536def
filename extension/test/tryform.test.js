import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formFields, initialText, readField, readForm } from '../lib/tryform.js';

const schema = {
  type: 'object',
  properties: {
    a: { type: 'number', description: 'the first' },
    n: { type: 'integer', default: 3 },
    on: { type: 'boolean', default: true },
    color: { type: 'string', enum: ['red', 'green'], default: 'green' },
    tags: { type: 'array', items: { type: 'string' } },
    q: { type: 'string' },
  },
  required: ['a', 'q'],
};

test('one field per property, with its kind, required mark and default', () => {
  const f = formFields(schema);
  assert.deepEqual(f.map((x) => [x.name, x.kind, x.required]), [
    ['a', 'number', true], ['n', 'integer', false], ['on', 'boolean', false], ['color', 'enum', false], ['tags', 'json', false], ['q', 'string', true],
  ]);
  assert.deepEqual(f.map(initialText), ['', '3', true, '1', '', '']);
  assert.deepEqual(formFields({ type: 'object' }), []);
});

test('numbers are sent as numbers, JSON checked, required fields asked for', () => {
  const f = formFields(schema);
  assert.deepEqual(readForm(f, { a: '20', n: '3', on: false, color: '0', tags: '["x"]', q: 'hi' }), { arguments: { a: 20, n: 3, on: false, color: 'red', tags: ['x'], q: 'hi' } });
  const r = readForm(f, { a: 'x', n: '2.5', tags: '[', q: '' });
  assert.deepEqual(r.errors.map((e) => e.name), ['a', 'n', 'tags', 'q']);
  assert.deepEqual(readField(f[1], ''), { skip: true });
});
