// The lines of testdata/envelopes.json, read as the extension reads a
// message from the host (JSON.parse, then checkHostMessage): every line
// that the host's router takes (protocol.PeekEnvelope, go test ./protocol)
// gives here the type and id the router saw. The host checks a shim's
// call, request and cancel by that id and forwards the line unchanged, so
// a difference would let one agent act under another's name.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';

import { checkHostMessage } from '../lib/protocol.js';

const { cases } = JSON.parse(fs.readFileSync(new URL('../../testdata/envelopes.json', import.meta.url), 'utf8'));

test('the extension reads the type and id that the host routed by', () => {
  let taken = 0;
  for (const c of cases) {
    if (c.refused) continue;
    taken++;
    const m = JSON.parse(c.line);
    assert.equal(m.type, c.type, c.name);
    assert.equal(m.id ?? '', c.id, c.name);
    const { msg, reply } = checkHostMessage(m);
    const passed = msg || reply;
    if (passed && typeof passed.id === 'string') assert.equal(passed.id, c.id, c.name);
  }
  assert.ok(taken >= 5, `only ${taken} lines are taken`);
});
