import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isValidToolName, toolNameProblem } from '../lib/names.js';

test('tool names follow the WebMCP draft', () => {
  for (const ok of ['a', 'find_slices', 'select-slice', 'v1.get', 'A.b-C_9', 'x'.repeat(128)]) {
    assert.equal(isValidToolName(ok), true, ok);
    assert.equal(toolNameProblem(ok), '', ok);
  }
  for (const bad of ['', 'x'.repeat(129), 'has space', 'slash/name', 'ümlaut', 'name\n', 'a:b', 'a@b']) {
    assert.equal(isValidToolName(bad), false, JSON.stringify(bad));
    assert.notEqual(toolNameProblem(bad), '', JSON.stringify(bad));
  }
  for (const notString of [undefined, null, 42, {}, ['a']]) {
    assert.equal(isValidToolName(notString), false);
    assert.match(toolNameProblem(notString), /must be a string/);
  }
});

test('toolNameProblem says what is wrong', () => {
  assert.match(toolNameProblem(''), /empty/);
  assert.match(toolNameProblem('x'.repeat(200)), /at most 128 characters, this one has 200/);
  assert.match(toolNameProblem('a b'), /not " "/);
});
