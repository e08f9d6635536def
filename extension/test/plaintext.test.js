// Tool descriptions in Markdown, as the panel shows them (ui/plaintext.js).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { plainText } from '../ui/plaintext.js';

test('Markdown marks are dropped, the words stay', () => {
  // The demo's find_slices and slow_task.
  assert.equal(plainText('Lists the trace slices whose name contains `name` (case-insensitive) and that last at least `minDur` milliseconds.'),
    'Lists the trace slices whose name contains name (case-insensitive) and that last at least minDur milliseconds.');
  assert.equal(plainText('Waits `ms` milliseconds, then returns {waited: ms}.'), 'Waits ms milliseconds, then returns {waited: ms}.');
  assert.equal(plainText('**Careful**: this *deletes* the __whole__ order.'), 'Careful: this deletes the whole order.');
  assert.equal(plainText('See [the docs](https://example.com/docs) or <https://x>.'), 'See the docs (https://example.com/docs) or <https://x>.');
  assert.equal(plainText('## Usage\n- first\n- second\n```js\nrun(1)\n```'), 'Usage\n• first\n• second\nrun(1)\n');
});

test('text that only looks like Markdown is left alone', () => {
  assert.equal(plainText('a_b_c and 2 * 3 * 4, min_dur, snake_case_name'), 'a_b_c and 2 * 3 * 4, min_dur, snake_case_name');
  assert.equal(plainText('<b>not html</b>'), '<b>not html</b>');
  assert.equal(plainText(undefined), '');
});
