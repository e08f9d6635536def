// The golden cancel sequence of testdata/protocol/sequences/cancel-call.json,
// played against the pending-call table (lib/calls.js) the way the service
// worker uses it: internal/fakeext's Go test plays the same file through a
// real webmcp-host, so the fake extension and the real one answer a
// cancelled call alike.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PendingCalls } from '../lib/calls.js';
import { Code, T, checkHostMessage, errorMessage } from '../lib/protocol.js';
import { goldenSequence } from './golden.js';

test('golden: a cancelled call is answered "cancelled" at once, and the late answer is dropped', () => {
  const seq = goldenSequence('cancel-call');
  const pending = new PendingCalls();
  const frame = { posted: [] };
  const toHost = [];
  const dropped = [];
  for (const [i, st] of seq.steps.entries()) {
    const m = st.message;
    if (st.from === 'host') {
      const { msg } = checkHostMessage(m);
      assert.deepEqual(msg, m, `step ${i}: the extension takes the host's message as it is`);
      if (msg.type === T.call) {
        assert.equal(pending.add(msg.id, msg.tabId, msg.frameId, frame), true);
        frame.posted.push({ type: T.call, id: msg.id, name: msg.name, arguments: msg.arguments });
      } else if (msg.type === T.cancel) {
        const c = pending.take(msg.id);
        if (!c) {
          dropped.push(m); // answered already: nothing to do
          continue;
        }
        c.conn.posted.push({ type: T.cancel, id: msg.id });
        toHost.push(errorMessage(msg.id, Code.cancelled, 'the call was cancelled'));
      }
    } else if (st.from === 'page') {
      // The frame's answer: sent on only while its call is under way.
      if (pending.take(m.id)) toHost.push(m);
      else dropped.push(m);
    }
  }
  const want = (pred) => seq.steps.filter(pred).map((st) => st.message);
  assert.deepEqual(frame.posted, want((st) => st.to === 'page'));
  assert.deepEqual(toHost, want((st) => st.to === 'host' && !st.dropped));
  assert.deepEqual(dropped, want((st) => st.dropped));
  assert.equal(toHost.length, 1, 'exactly one answer');
  assert.equal(pending.size, 0);
});
