// The golden exchanges of testdata/protocol (which the Go tests of webmcp
// and internal/fakeext read too), played through the whole service worker
// with a fake chrome: the cancel sequences and a chunked call.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SAMPLE_TIMEOUT } from '../worker/context.js';
import { bootWorker, drain, frameWithTools, localTab } from './fakes/worker.js';
import { golden, goldenSequence } from './golden.js';

// Records, in order, what the worker posts to the host and to the page
// from now on: {to: "host" | "page", message}.
function record(host, frame) {
  const log = [];
  for (const [port, to] of [[host, 'host'], [frame, 'page']]) {
    const post = port.postMessage.bind(port);
    port.postMessage = (m) => {
      post(m);
      log.push({ to, message: JSON.parse(JSON.stringify(m)) });
    };
  }
  return log;
}

// Plays a golden sequence: the host's and the page's steps are delivered to
// the worker; what the worker sent must be exactly its steps that are not
// dropped. Sample requests to the frame are not part of the exchange.
async function play(name, w) {
  const seq = goldenSequence(name);
  const log = record(w.host, w.frame);
  for (const st of seq.steps) {
    if (st.from === 'host') w.host.deliver(st.message);
    else if (st.from === 'page') w.frame.deliver(st.message);
    await drain();
  }
  await w.clock.advance(SAMPLE_TIMEOUT); // anything still under way ends
  const sent = log.filter((e) => !(e.to === 'page' && e.message.type === 'sample'));
  const want = seq.steps.filter((st) => st.from === 'extension' && !st.dropped).map((st) => ({ to: st.to, message: st.message }));
  assert.deepEqual(sent, want);
}

async function tab7(tools) {
  const w = await bootWorker({ tabs: [localTab(7, { active: true })] });
  const frame = await frameWithTools(w.chrome, 7, tools);
  w.host.take();
  frame.take();
  return { ...w, frame };
}

test('golden: a cancelled call is answered "cancelled" at once, and the late answer is dropped', async () => {
  await play('cancel-call', await tab7(['slow_query']));
});

test('golden: a cancelled request is answered "cancelled" at once, and the late answer is dropped', async () => {
  await play('cancel-request', await tab7([]));
});

test('golden: the frames of a chunked call join into the call the frame gets', async () => {
  for (const c of golden('chunk')) {
    const j = c.joined;
    const w = await tab7([j.name]);
    for (const f of c.frames) w.host.deliver(f);
    assert.deepEqual(w.frame.take(), [{ type: 'call', id: j.id, name: j.name, arguments: j.arguments }]);
    assert.deepEqual(w.warnings, []);
  }
});
