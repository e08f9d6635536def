// What the panel says in words (ui/connection.js): checked here, where
// Node runs it; the panel itself is tested in real Chromium (e2e/panel_test.go).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NOT_CONNECTED } from '../ui/connection.js';

test('not connected: the panel names the per-profile install step, and no restart', () => {
  assert.match(NOT_CONNECTED, /\.\/install\.sh --user-data-dir DIR/);
  assert.match(NOT_CONNECTED, /connects by itself/);
  assert.match(NOT_CONNECTED, /webmcp-shim doctor/);
  assert.doesNotMatch(NOT_CONNECTED, /restart/i);
});
