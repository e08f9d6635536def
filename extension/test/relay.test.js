// The relay (content/isolated/relay.js) in a fake frame: the handover, the Port to the
// worker and its reconnects, relaying, and UI-context sampling.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { drain } from './fakes/clock.js';
import { relay, startRelay } from './fakes/page.js';
import { frameCase, frameProblem } from './golden.js';

const SEL = 'trace.Timeline#selection';

// A top frame whose page has the tool echo, connected to the worker: its
// main.js side, and the worker's Port with what it sent so far taken.
async function withEcho() {
  const frame = startRelay();
  frame.mainPort.postMessage({ type: 'tools', tools: [{ name: 'echo' }] });
  await drain();
  const worker = frame.chrome.runtime.connects[0];
  worker.take();
  return { ...frame, worker };
}

test('hands main.js one end of a channel, before anything else', () => {
  const { window, mainPort, chrome } = startRelay();
  assert.equal(window.handovers.length, 1);
  const data = window.handovers[0].data;
  assert.deepEqual(Object.keys(data).sort(), [relay.HANDOVER, relay.DIALOG_EVENT].sort());
  assert.equal(data[relay.HANDOVER], 1);
  // The dialog event's type is random: the page can neither listen for it nor forge it.
  assert.match(data[relay.DIALOG_EVENT], /^webmcp-dialog-[0-9a-z]{8,}$/);
  assert.notEqual(startRelay().window.handovers[0].data[relay.DIALOG_EVENT], data[relay.DIALOG_EVENT]);
  assert.equal(window.handovers[0].origin, '*');
  assert.ok(mainPort);
  assert.equal(chrome.runtime.connects.length, 0);
});

test('a subframe connects only once it has tools, and sends its latest lists', async () => {
  const { mainPort, chrome } = startRelay({ top: false });
  mainPort.postMessage({ type: 'tools', tools: [] });
  mainPort.postMessage({ type: 'providers', providers: [] });
  await drain();
  assert.equal(chrome.runtime.connects.length, 0);
  mainPort.postMessage({ type: 'tools', tools: [{ name: 'echo' }] });
  await drain();
  assert.equal(chrome.runtime.connects.length, 1);
  const worker = chrome.runtime.connects[0];
  assert.equal(worker.name, relay.PORT_NAME);
  assert.deepEqual(worker.take(), [{ type: 'tools', tools: [{ name: 'echo' }] }, { type: 'providers', providers: [] }]);
});

test('a tools message is taken in by the worker, or by the relay when no worker would take it', async () => {
  const { mainPort, chrome } = startRelay({ top: false });
  mainPort.postMessage({ type: 'tools', tools: [] });
  await drain();
  assert.deepEqual(mainPort.take(), [{ type: 'toolsTaken' }], 'no Port for an empty list: taken at once');
  mainPort.postMessage({ type: 'tools', tools: [{ name: 'echo' }] });
  await drain();
  const worker = chrome.runtime.connects[0];
  assert.deepEqual(worker.take(), [{ type: 'tools', tools: [{ name: 'echo' }] }]);
  assert.deepEqual(mainPort.take(), [], 'sent to the worker: the worker says when it is taken');
  worker.deliver({ type: 'toolsTaken' });
  await drain();
  assert.deepEqual(mainPort.take(), [{ type: 'toolsTaken' }]);
});

test('a top frame of a web page connects at once; one of another scheme does not', async () => {
  const web = startRelay();
  web.mainPort.postMessage({ type: 'tools', tools: [] });
  await drain();
  assert.equal(web.chrome.runtime.connects.length, 1);
  const file = startRelay({ protocol: 'file:' });
  file.mainPort.postMessage({ type: 'tools', tools: [] });
  await drain();
  assert.equal(file.chrome.runtime.connects.length, 0);
});

test('relays calls and cancels to the page and answers to the worker; nothing else', async () => {
  const { mainPort, worker } = await withEcho();
  worker.deliver({ type: 'call', id: 's1', name: 'echo', arguments: {} });
  worker.deliver({ type: 'cancel', id: 's1' });
  worker.deliver({ type: 'other', id: 'x' });
  await drain();
  assert.deepEqual(mainPort.take(), [{ type: 'call', id: 's1', name: 'echo', arguments: {} }, { type: 'cancel', id: 's1' }]);
  mainPort.postMessage({ type: 'result', id: 's1', output: 1 });
  mainPort.postMessage({ type: 'error', id: 's2', error: { code: 'tool_error', message: 'no' } });
  mainPort.postMessage({ type: 'call', id: 'forged' });
  mainPort.postMessage('junk');
  await drain();
  assert.deepEqual(worker.take(), [{ type: 'result', id: 's1', output: 1 }, { type: 'error', id: 's2', error: { code: 'tool_error', message: 'no' } }]);
});

test('batches: the worker\'s batch of calls and cancels goes to the page as one message; the page\'s batch of answers to the worker, but for big results', async () => {
  const { mainPort, worker } = await withEcho();
  worker.deliver({ type: 'batch', messages: [
    { type: 'call', id: 's1', name: 'echo', arguments: {}, trace: [] },
    { type: 'call', id: 's2', name: 'echo', arguments: {} },
    { type: 'cancel', id: 's1' },
    { type: 'batch', messages: [{ type: 'call', id: 'nested' }] },
    { type: 'indicator', text: 'an agent is using echo' },
  ] });
  await drain();
  const [toPage, ...more] = mainPort.take();
  assert.deepEqual(more, []);
  assert.equal(toPage.type, 'batch');
  assert.deepEqual(toPage.messages.map((m) => [m.type, m.id]), [['call', 's1'], ['call', 's2'], ['cancel', 's1']]);
  assert.deepEqual(toPage.messages[0].trace.map((m) => m.hop), ['relay.in']);
  const big = 'x'.repeat(70 << 10);
  mainPort.postMessage({ type: 'batch', messages: [
    { type: 'result', id: 's1', output: 1, trace: [] },
    { type: 'result', id: 's2', output: big },
    { type: 'call', id: 'forged' },
    { type: 'error', id: 's3', error: { code: 'tool_error', message: 'no' } },
  ] });
  await drain();
  const sent = worker.take();
  assert.deepEqual(sent.map((m) => m.type === 'batch' ? m.messages.map((a) => a.id) : m.id), ['s2', ['s1', 's3']]);
  assert.equal(sent[0].output, big);
  assert.deepEqual(sent[1].messages[0].trace.map((m) => m.hop), ['relay.back']);
});

test('a traced call and its answer get the relay\'s marks', async () => {
  const { mainPort, worker } = await withEcho();
  worker.deliver({ type: 'call', id: 's1', name: 'echo', arguments: {}, trace: [{ hop: 'worker.out', at: 1 }] });
  await drain();
  assert.deepEqual(mainPort.take().filter((m) => m.type === 'call')[0].trace.map((m) => m.hop), ['worker.out', 'relay.in']);
  mainPort.postMessage({ type: 'result', id: 's1', output: 1, trace: [{ hop: 'main.out', at: 2 }] });
  await drain();
  assert.deepEqual(worker.take().filter((m) => m.type === 'result')[0].trace.map((m) => m.hop), ['main.out', 'relay.back']);
});

test('reconnects at once after a long-lived Port, with backoff when it keeps failing', async () => {
  const { mainPort, chrome, clock } = startRelay({ top: false });
  mainPort.postMessage({ type: 'tools', tools: [{ name: 'echo' }] });
  await drain();
  await clock.advance(5001);
  chrome.runtime.connects.at(-1).close();
  await drain();
  assert.deepEqual(mainPort.take(), [{ type: 'cancelAll' }, { type: 'toolsTaken' }], 'a tools message under way counts as taken: the next Port sends the latest');
  assert.equal(chrome.runtime.connects.length, 2);
  assert.deepEqual(chrome.runtime.connects[1].take(), [{ type: 'tools', tools: [{ name: 'echo' }] }]);

  // It fails at once, again and again: 100 ms, then doubling.
  for (const wait of [100, 200, 400]) {
    chrome.runtime.connects.at(-1).close();
    const n = chrome.runtime.connects.length;
    await clock.advance(wait - 1);
    assert.equal(chrome.runtime.connects.length, n);
    await clock.advance(1);
    assert.equal(chrome.runtime.connects.length, n + 1);
  }
});

test('gives up when the extension went away', async () => {
  const { mainPort, chrome, clock } = startRelay({ top: false });
  mainPort.postMessage({ type: 'tools', tools: [{ name: 'echo' }] });
  await drain();
  chrome.runtime.id = undefined;
  chrome.runtime.connects[0].close();
  await clock.advance(relay.MAX_BACKOFF);
  assert.equal(chrome.runtime.connects.length, 1);
  mainPort.postMessage({ type: 'tools', tools: [{ name: 'other' }] });
  await drain();
  assert.equal(chrome.runtime.connects.length, 1);
});

test('waits for a prerendered page to be shown before it connects', async () => {
  const { mainPort, chrome, document, window } = startRelay({ prerendering: true });
  mainPort.postMessage({ type: 'tools', tools: [] });
  await drain();
  assert.equal(chrome.runtime.connects.length, 0);
  document.prerendering = false;
  document.dispatch('prerenderingchange');
  assert.equal(chrome.runtime.connects.length, 1);
  // Shown again from the back/forward cache with its Port still open: no second Port.
  window.dispatch('pageshow', { persisted: true });
  assert.equal(chrome.runtime.connects.length, 1);
});

// A top frame connected to the worker, with one provider that main.js samples.
async function sampling(opts) {
  const r = startRelay(opts);
  r.mainPort.postMessage({ type: 'tools', tools: [] });
  r.mainPort.postMessage({ type: 'providers', providers: [{ id: SEL }] });
  await drain();
  const worker = r.chrome.runtime.connects[0];
  worker.take();
  r.mainPort.take();
  return { ...r, worker };
}

// Plays main.js: answers every sample request with the given snapshots.
function answerSamples(mainPort, snaps) {
  const asks = mainPort.take().filter((m) => m.type === 'sample');
  for (const a of asks) mainPort.postMessage({ type: 'sampled', id: a.id, providers: snaps });
  return asks.length;
}

test('samples only while the worker allows it, after input, and sends only changes', async () => {
  const { worker, mainPort, document, clock } = await sampling();
  assert.deepEqual(document.types(), []);
  worker.deliver({ type: 'contextOn', on: true });
  assert.deepEqual(document.types(), ['click', 'focusin', 'focusout', 'keyup', 'selectionchange']);
  await drain();
  assert.equal(answerSamples(mainPort, [{ id: SEL, summary: 'A', json: '{"id":1}' }]), 1);
  await drain();
  assert.deepEqual(worker.take(), [{ type: 'context', providers: [{ id: SEL, summary: 'A', data: { id: 1 } }], ambient: { selection: 'picked' } }]);

  // A burst of input: one sample SAMPLE_DELAY after the first event; unchanged, so nothing is sent.
  document.dispatch('click');
  await clock.advance(relay.SAMPLE_DELAY / 2);
  document.dispatch('keyup');
  await clock.advance(relay.SAMPLE_DELAY / 2);
  assert.equal(answerSamples(mainPort, [{ id: SEL, summary: 'A', json: '{"id":1}' }]), 1);
  await drain();
  assert.deepEqual(worker.take(), []);

  // The page says its context changed.
  mainPort.postMessage({ type: 'contextChanged' });
  await clock.advance(relay.SAMPLE_DELAY);
  answerSamples(mainPort, [{ id: SEL, summary: 'B' }]);
  await drain();
  assert.deepEqual(worker.take().map((m) => m.providers[0].summary), ['B']);

  // After a quiet while, a click is sampled INPUT_DELAY later.
  await clock.advance(relay.SAMPLE_DELAY);
  document.dispatch('click');
  await clock.advance(relay.INPUT_DELAY - 1);
  assert.equal(answerSamples(mainPort, [{ id: SEL, summary: 'C' }]), 0);
  await clock.advance(1);
  assert.equal(answerSamples(mainPort, [{ id: SEL, summary: 'C' }]), 1);
  await drain();
  assert.deepEqual(worker.take().map((m) => m.providers[0].summary), ['C']);
  // and the next input of the burst at least SAMPLE_DELAY after that.
  document.dispatch('click');
  await clock.advance(relay.SAMPLE_DELAY - 1);
  assert.equal(answerSamples(mainPort, [{ id: SEL, summary: 'D' }]), 0);
  await clock.advance(1);
  assert.equal(answerSamples(mainPort, [{ id: SEL, summary: 'D' }]), 1);
  await drain();
  worker.take();

  // Off: no listeners, no samples.
  worker.deliver({ type: 'contextOn', on: false });
  assert.deepEqual(document.types(), []);
  mainPort.postMessage({ type: 'contextChanged' });
  await clock.advance(relay.SAMPLE_DELAY);
  assert.deepEqual(mainPort.take(), []);
});

test('answers the worker\'s sample request always, with its id', async () => {
  const { worker, mainPort } = await sampling();
  for (const id of ['w1', 'w2']) {
    worker.deliver({ type: 'sample', id });
    await drain();
    answerSamples(mainPort, [{ id: SEL, summary: 'same' }]);
    await drain();
    assert.deepEqual(worker.take(), [{ type: 'context', providers: [{ id: SEL, summary: 'same' }], ambient: { selection: 'picked' }, id }]);
  }
});

test('when main.js does not answer, a sample keeps the providers it had', async () => {
  const { worker, mainPort, clock } = await sampling({ top: false });
  worker.deliver({ type: 'sample', id: 'w1' });
  await drain();
  answerSamples(mainPort, [{ id: SEL, summary: 'first' }]);
  await drain();
  assert.deepEqual(worker.take(), [{ type: 'context', providers: [{ id: SEL, summary: 'first' }], id: 'w1' }]);
  worker.deliver({ type: 'sample', id: 'w2' });
  await clock.advance(relay.MAIN_TIMEOUT - 1);
  assert.deepEqual(worker.take(), []);
  await clock.advance(1);
  assert.deepEqual(worker.take(), [{ type: 'context', providers: [{ id: SEL, summary: 'first' }], id: 'w2' }]);
  // A late answer is ignored.
  answerSamples(mainPort, [{ id: SEL, summary: 'late' }]);
  await drain();
  assert.deepEqual(worker.take(), []);
});

test('a frame without providers is sampled without asking main.js', async () => {
  const r = startRelay();
  r.mainPort.postMessage({ type: 'tools', tools: [] });
  await drain();
  const worker = r.chrome.runtime.connects[0];
  worker.take();
  worker.deliver({ type: 'sample', id: 'w1' });
  await drain();
  assert.deepEqual(r.mainPort.take(), []);
  assert.deepEqual(worker.take(), [{ type: 'context', providers: [], ambient: { selection: 'picked' }, id: 'w1' }]);
});

test('a result over 32 MiB of JSON goes as chunks that join into it, surrogate pairs whole; one over 64 MiB is too_large', async () => {
  const { ChunkJoiner, MAX_RESULT } = await import('../lib/chunks.js');
  const { mainPort, chrome } = startRelay();
  mainPort.postMessage({ type: 'tools', tools: [{ name: 'big' }] });
  await drain();
  const worker = chrome.runtime.connects[0];
  worker.take();

  // 18 Mi UTF-16 units, 36 MiB of UTF-8: chunks, and a cut at 8 Mi units
  // would fall inside a pair (the envelope before it is odd).
  const emoji = '😀'.repeat(9 << 20);
  mainPort.postMessage({ type: 'result', id: 's1.1', output: { text: emoji } });
  // Exactly 64 MiB of JSON: the most that travels.
  const most = 'a'.repeat(MAX_RESULT - 2);
  mainPort.postMessage({ type: 'result', id: 's1.2', output: most });
  // One byte more: refused, and the next small answer is untouched.
  mainPort.postMessage({ type: 'result', id: 's1.3', output: most + 'a' });
  mainPort.postMessage({ type: 'result', id: 's1.4', output: 'small' });
  await drain();

  const sent = worker.take();
  const joiner = new ChunkJoiner({ maxBytes: MAX_RESULT + (1 << 20) });
  const whole = [];
  for (const m of sent) {
    if (m.type !== 'chunk') {
      whole.push(m);
      continue;
    }
    assert.ok(m.data.isWellFormed(), `chunk ${m.id} piece ${m.seq} cuts a surrogate pair`);
    const text = joiner.add(m);
    if (text !== null) whole.push(JSON.parse(text));
  }
  assert.equal(sent.filter((m) => m.type === 'chunk').length, 3 + 9, 'the 36 MiB result in 3 chunks, the 64 MiB one in 9');
  assert.deepEqual(whole.map((m) => m.id), ['s1.1', 's1.2', 's1.3', 's1.4']);
  assert.equal(whole[0].output.text, emoji);
  assert.equal(whole[1].output, most);
  assert.equal(whole[2].type, 'error');
  assert.equal(whole[2].error.code, 'too_large');
  assert.match(whole[2].error.message, /67108865 bytes of JSON, over the bridge's limit of 64 MiB \(67108864 bytes\): ask the tool for less/);
  assert.deepEqual(whole[3], { type: 'result', id: 's1.4', output: 'small' });
});

test('a top frame tells the worker of the user\'s first click or key, once; not of a script\'s', async () => {
  const { window, chrome, mainPort } = startRelay();
  mainPort.postMessage({ type: 'tools', tools: [] });
  await drain();
  const worker = chrome.runtime.connects[0];
  worker.take();
  window.dispatch('pointerdown', { isTrusted: false }); // a page script's, or a page tool's
  window.dispatch('keydown', { isTrusted: false });
  assert.deepEqual(worker.take(), []);
  window.dispatch('keydown', { isTrusted: true });
  window.dispatch('pointerdown', { isTrusted: true });
  assert.deepEqual(worker.take(), [{ type: 'userInput' }]);
  // A subframe says nothing: the tab's top frame speaks for it.
  const sub = startRelay({ top: false });
  sub.mainPort.postMessage({ type: 'tools', tools: [{ name: 'echo' }] });
  await drain();
  sub.chrome.runtime.connects[0].take();
  sub.window.dispatch('pointerdown', { isTrusted: true });
  assert.deepEqual(sub.chrome.runtime.connects[0].take(), []);
});

// The golden messages of both of the relay's links (testdata/frames,
// PROTOCOL.md): the relay passes each on as the other link's golden
// message, and everything it sends is a message of its links.
test('golden: the relay between the page\'s world (channel) and the worker (port)', async () => {
  const indicator = { shown: [], create: () => ({ show: (t) => indicator.shown.push(t) }) };
  const { mainPort, chrome } = startRelay({ indicator, ambient: { selection: 'picked', focused: { role: 'button', name: 'Go', tag: 'button' } } });
  const fromMain = [];
  const toWorker = [];
  // From the page's world to the worker, unchanged (a top frame of a web
  // page connects at its first message).
  for (const name of ['tools', 'providers', 'result', 'error']) {
    mainPort.postMessage(frameCase('channel', name));
    await drain();
    const sent = chrome.runtime.connects[0].take();
    toWorker.push(...sent);
    assert.deepEqual(sent, [frameCase('port', name)], name);
  }
  const worker = chrome.runtime.connects[0];
  // From the worker to the page's world, unchanged.
  for (const name of ['call', 'cancel', 'toolsTaken']) {
    worker.deliver(frameCase('port', name));
    await drain();
    const got = mainPort.take();
    fromMain.push(...got);
    assert.deepEqual(got, [frameCase('channel', name)], name);
  }
  // contextOn and sample: the relay asks the page's world (sample), takes
  // its answer (sampled) and sends the worker a context sample.
  worker.deliver(frameCase('port', 'contextOn'));
  await drain();
  const ask = mainPort.take();
  fromMain.push(...ask);
  assert.deepEqual(ask.map((m) => m.type), ['sample']);
  mainPort.postMessage({ ...frameCase('channel', 'sampled'), id: ask[0].id });
  await drain();
  worker.deliver(frameCase('port', 'sample'));
  await drain();
  for (const m of mainPort.take()) {
    fromMain.push(m);
    if (m.type === 'sample') mainPort.postMessage({ ...frameCase('channel', 'sampled'), id: m.id });
  }
  await drain();
  const samples = worker.take();
  toWorker.push(...samples);
  assert.deepEqual(samples.map((m) => m.type), ['context', 'context']);
  assert.equal(samples[1].id, frameCase('port', 'sample').id, 'the worker\'s sample is answered with its id');
  // The page says its context changed; the indicator shows what the worker says.
  mainPort.postMessage(frameCase('channel', 'contextChanged'));
  worker.deliver(frameCase('port', 'indicator'));
  await drain();
  assert.deepEqual(indicator.shown, [frameCase('port', 'indicator').text]);
  // The Port is lost: calls under way are cancelled.
  worker.close();
  await drain();
  fromMain.push(...mainPort.take());
  for (const m of fromMain) assert.equal(frameProblem('channel', 'relay', m), '');
  for (const m of toWorker) assert.equal(frameProblem('port', 'relay', m), '');
  assert.deepEqual(new Set(fromMain.map((m) => m.type)), new Set(['call', 'cancel', 'toolsTaken', 'sample', 'cancelAll']));
});

// The page's world says that a dialog opens by a DOM event of the
// handover's type, synchronously (content/main/dialogs.js): the relay tells
// the worker at once, with the page's tools when they are not the ones it
// last sent (a report on the channel waits for the dialog to close).
test('a dialog: the worker hears of it at once, with the tools the channel has not brought yet', async () => {
  const { window, mainPort, chrome } = startRelay();
  const type = window.handovers[0].data[relay.DIALOG_EVENT];
  const tools = [{ name: 'echo', description: 'e' }];
  window.dispatch(type, { detail: JSON.stringify({ open: true, kind: 'alert', text: 'Hello', tools }) });
  // No promise job ran: the page's thread is blocked from here on.
  const worker = chrome.runtime.connects.at(-1);
  assert.ok(worker, 'the relay connected with the tools it heard of');
  const sent = worker.take();
  assert.deepEqual(sent.filter((m) => m.type === 'tools'), [{ type: 'tools', tools }]);
  assert.deepEqual(sent.at(-1), { type: 'dialog', open: true, kind: 'alert', text: 'Hello' });
  window.dispatch(type, { detail: JSON.stringify({ open: false }) });
  assert.deepEqual(worker.take(), [{ type: 'dialog', open: false }]);
  // The same tools again: no tools message; a long text is cut; nonsense is ignored.
  window.dispatch(type, { detail: JSON.stringify({ open: true, kind: 'confirm', text: 'x'.repeat(5000), tools }) });
  assert.deepEqual(worker.take(), [{ type: 'dialog', open: true, kind: 'confirm', text: 'x'.repeat(relay.MAX_DIALOG_TEXT) }]);
  window.dispatch(type, { detail: 'not json' });
  window.dispatch(type, { detail: JSON.stringify({ open: true, kind: 'print', text: 1 }) });
  assert.deepEqual(worker.take(), [{ type: 'dialog', open: true, kind: 'alert', text: '1' }]);
  await drain();
  // The page's world's later report of the same tools goes on as usual.
  mainPort.postMessage({ type: 'tools', tools });
  await drain();
  assert.deepEqual(worker.take(), [{ type: 'tools', tools }]);
});

// A <form toolname> of the fake page.
const form = (attrs) => ({ getAttribute: (n) => (n in attrs ? attrs[n] : null) });
const navigated = (id, name) => ({ type: 'error', id, error: { code: 'navigated', message: `tool "${name}" navigated the page (it submitted a form or followed a link): the new page is its answer` } });

test('a form tool whose submission navigates here is answered "navigated" by the relay as the document goes, when the page\'s own answer has not left yet', async () => {
  const { mainPort, worker, window } = await withEcho();
  worker.deliver({ type: 'call', id: 's1', name: 'book', arguments: {} });
  worker.deliver({ type: 'call', id: 's2', name: 'echo', arguments: {} });
  await drain();
  mainPort.take();
  window.dispatch('submit', { target: form({ toolname: 'book', method: 'post' }), submitter: null, defaultPrevented: false });
  window.dispatch('pagehide', { persisted: false });
  assert.deepEqual(worker.take(), [navigated('s1', 'book')], 'the call whose form submitted, and only it');
  window.dispatch('pagehide', { persisted: false });
  assert.deepEqual(worker.take(), [], 'once');
});

test('the relay answers no form call that its page answered, or whose submission does not navigate here', async () => {
  const { mainPort, worker, window } = await withEcho();
  const cases = [
    ['answered', { toolname: 'book' }, null, false],
    ['prevented', { toolname: 'book' }, null, true],
    ['to another window', { toolname: 'book', target: '_blank' }, null, false],
    ['its button to another window', { toolname: 'book' }, form({ formtarget: 'result' }), false],
    ['a dialog form', { toolname: 'book', method: 'dialog' }, null, false],
    ['another tool\'s form', { toolname: 'pay' }, null, false],
  ];
  for (const [id, attrs, submitter, defaultPrevented] of cases) {
    worker.deliver({ type: 'call', id, name: 'book', arguments: {} });
    await drain();
    window.dispatch('submit', { target: form(attrs), submitter, defaultPrevented });
  }
  mainPort.postMessage({ type: 'result', id: 'answered', output: [] });
  await drain();
  assert.deepEqual(worker.take(), [{ type: 'result', id: 'answered', output: [] }]);
  window.dispatch('pagehide', { persisted: false });
  assert.deepEqual(worker.take(), []);
});
