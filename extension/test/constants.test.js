// The values that cross languages (Go <-> JavaScript): each is defined once
// in the Go code and once in the extension, and both are checked against
// testdata/shared.json (Go: protocol/shared_test.go). Within the extension
// every value has one home, which every context imports (the content
// scripts are bundled), so nothing there needs checking for copies.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { MAX_RESULT, MAX_WHOLE } from '../lib/chunks.js';
import { HINTS, HOST_NAME } from '../lib/protocol.js';
import { MAX_PROVIDERS } from '../lib/snapshot.js';

const SHARED = JSON.parse(fs.readFileSync(new URL('../../testdata/shared.json', import.meta.url), 'utf8'));
const LIMITS = JSON.parse(fs.readFileSync(new URL('../../testdata/limits/uicontext.json', import.meta.url), 'utf8'));

test('MAX_PROVIDERS is the limit of testdata/limits/uicontext.json', () => {
  assert.equal(MAX_PROVIDERS, LIMITS.extension.providersPerDocument);
});

test('the hints are the fields of Go\'s protocol.Annotations, and the host name is protocol.HostName', () => {
  assert.deepEqual([...HINTS], SHARED.hints);
  assert.equal(HOST_NAME, SHARED.hostName);
});

test('MAX_RESULT and MAX_WHOLE are protocol.MaxResult and protocol.MaxBrowserChunk', () => {
  assert.equal(MAX_RESULT, SHARED.maxResult);
  assert.equal(MAX_WHOLE, SHARED.maxBrowserChunk);
});
