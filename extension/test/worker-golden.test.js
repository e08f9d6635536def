// The golden exchanges of testdata/protocol (which the Go tests of webmcp
// and internal/fakeext read too), played through the whole service worker
// with a fake chrome: the cancel sequences and a chunked call.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SAMPLE_TIMEOUT } from '../worker/contextsampler.js';
import { SHOW_DELAY } from '../worker/indicator.js';
import { LOCAL, bootWorker, drain, frameWithTools, localTab } from './fakes/worker.js';
import { frameCase, frameProblem, golden, goldenSequence } from './golden.js';

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

// The golden messages of the relay's Port (testdata/frames/port.json,
// PROTOCOL.md): the worker takes each of the relay's in, and everything it
// posts to a frame is one of its own.
test('golden: the worker\'s end of the frames\' Port', async () => {
  const w = await bootWorker({ tabs: [localTab(7, { active: true })] });
  const frame = w.chrome.connectFrame({ tabId: 7, frameId: 0, url: `${LOCAL}/page7` });
  const toFrame = [];
  const take = () => {
    const got = frame.take();
    toFrame.push(...got);
    return got;
  };
  frame.deliver(frameCase('port', 'tools'));
  await drain();
  assert.deepEqual(take().filter((m) => m.type === 'toolsTaken'), [frameCase('port', 'toolsTaken')]);
  frame.deliver(frameCase('port', 'providers'));
  frame.deliver(frameCase('port', 'context'));
  frame.deliver(frameCase('port', 'userInput'));
  await drain();
  const hostCall = (id) => ({ type: 'call', id, tabId: 7, name: 'echo', arguments: { text: 'hi' } });
  w.host.take();
  // A call and its result; an error; a chunked result; a cancel.
  w.host.deliver(hostCall('s1.1'));
  await drain();
  assert.deepEqual(take().filter((m) => m.type === 'call'), [frameCase('port', 'call')]);
  frame.deliver(frameCase('port', 'result'));
  w.host.deliver(hostCall('s1.2'));
  await drain();
  frame.deliver(frameCase('port', 'error'));
  w.host.deliver(hostCall('s1.3'));
  await drain();
  frame.deliver(frameCase('port', 'chunk'));
  await drain();
  const answers = w.host.take().filter((m) => m.type === 'result' || m.type === 'error');
  assert.deepEqual(answers.map((m) => [m.type, m.id]), [['result', 's1.1'], ['error', 's1.2'], ['result', 's1.3']]);
  w.host.deliver(hostCall('s1.4'));
  await w.clock.advance(SHOW_DELAY); // the indicator shows a call that takes a while
  w.host.deliver({ type: 'cancel', id: 's1.4' });
  await drain();
  assert.deepEqual(take().filter((m) => m.type === 'cancel'), [frameCase('port', 'cancel')]);
  // A sample of the tab's context, answered by the frame.
  w.host.deliver({ type: 'request', id: 'r1', method: 'sampleContext', params: {} });
  await drain();
  const [ask] = take().filter((m) => m.type === 'sample');
  frame.deliver({ ...frameCase('port', 'context answering a sample'), id: ask.id });
  await drain();
  assert.ok(w.host.take().some((m) => m.type === 'result' && m.id === 'r1'), 'the sample is answered');
  take();
  assert.deepEqual(w.warnings, []);
  for (const m of toFrame) assert.equal(frameProblem('port', 'worker', m), '');
  assert.deepEqual(new Set(toFrame.map((m) => m.type)), new Set(['toolsTaken', 'contextOn', 'call', 'cancel', 'sample', 'indicator']));
});
