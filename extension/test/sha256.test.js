import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';

import { sha256 } from '../lib/sha256.js';

test('sha256 is the SHA-256 of the UTF-8 bytes', () => {
  for (const text of ['', 'abc', 'a'.repeat(55), 'a'.repeat(56), 'a'.repeat(64), 'é漢😀'.repeat(100), 'x'.repeat(100000)]) {
    assert.equal(sha256(text), crypto.createHash('sha256').update(text, 'utf8').digest('hex'), `${text.length} characters`);
  }
});
