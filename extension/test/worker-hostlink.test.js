// The service worker's link to the host (worker/hostlink.js), driven through
// the whole worker with a fake chrome and clock.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HOST_NAME } from '../lib/protocol.js';
import { RECONNECT_MAX, RECONNECT_MIN, STABLE_LINK } from '../worker/hostlink.js';
import { SETTLE_MAX, SETTLE_QUIET } from '../worker/frames.js';
import { LOCAL, bootWorker, drain, frameWithTools, localTab } from './fakes/worker.js';
import { hostChunks } from './fakes/hostcut.js';

test('says hello at once, and sends the state once the frames settled', async () => {
  const { chrome, clock, host } = await bootWorker({ tabs: [localTab(3, { active: true })], settle: false });
  assert.equal(host.name, HOST_NAME);
  const [hello, ...rest] = host.take();
  assert.deepEqual(rest, []);
  assert.equal(hello.type, 'hello');
  assert.equal(hello.protocol, 1);
  assert.deepEqual(hello.browser, { name: 'Chromium', version: '156.0.1.2', instance: 'inst-1', extensionId: chrome.runtime.id, batch: true });

  // A frame that comes back keeps the state waiting until it is quiet.
  await clock.advance(SETTLE_QUIET - 50);
  const port = await frameWithTools(chrome, 3, ['echo']);
  await clock.advance(SETTLE_QUIET - 1);
  assert.deepEqual(host.ofType('state'), []);
  await clock.advance(1);
  const [state] = host.take();
  assert.equal(state.type, 'state');
  assert.deepEqual(state.state.tabs.map((t) => [t.id, t.allowed]), [[3, true]]);
  assert.deepEqual(state.state.tools.map((t) => t.name), ['echo']);
  assert.ok(port);

  // Later changes go out as incremental messages.
  port.deliver({ type: 'tools', tools: [] });
  await drain();
  assert.deepEqual(host.take(), [{ type: 'toolsRemoved', removed: [{ tabId: 3, frameId: 0, name: 'echo' }] }]);
});

test('a new profile gets an instance id, kept in storage', async () => {
  const { chrome, host } = await bootWorker({ storage: {} });
  assert.equal(host.posted[0].browser.instance, 'uuid-1');
  assert.equal(chrome.storage.local.peek('instance'), 'uuid-1');
});

test('frames that keep connecting delay the state at most SETTLE_MAX', async () => {
  const { chrome, clock, host } = await bootWorker({ tabs: [localTab(3)], settle: false });
  for (let t = 0; t < SETTLE_MAX; t += 100) {
    chrome.connectFrame({ tabId: 3, frameId: t / 100, url: `${LOCAL}/` });
    assert.deepEqual(host.ofType('state'), []);
    await clock.advance(100);
  }
  assert.equal(host.ofType('state').length, 1);
});

test('reconnects with backoff while the host keeps failing, at once after a stable link', async () => {
  const { chrome, clock, host, warnings } = await bootWorker();
  assert.equal(chrome.runtime.natives.length, 1);

  host.close('Native host has exited.');
  assert.match(warnings.at(-1), /native host dev\.webmcp\.bridge: Native host has exited; reconnecting with backoff/);
  await clock.advance(RECONNECT_MIN - 1);
  assert.equal(chrome.runtime.natives.length, 1);
  await clock.advance(1);
  assert.equal(chrome.runtime.natives.length, 2);

  // It fails again at once: the delay doubles; the same reason is not logged again.
  const logged = warnings.length;
  chrome.native.close('Native host has exited.');
  assert.equal(warnings.length, logged);
  assert.deepEqual(clock.pending(), [2 * RECONNECT_MIN]);
  await clock.advance(2 * RECONNECT_MIN);
  assert.equal(chrome.runtime.natives.length, 3);

  // The host is not installed: each attempt fails at once, and the backoff goes on up to RECONNECT_MAX.
  chrome.native.close('Specified native messaging host not found.');
  assert.match(warnings.at(-1), /not found; install webmcp-host with install\.sh/);
  assert.deepEqual(clock.pending(), [4 * RECONNECT_MIN]);
  for (let i = 0; i < 10; i++) {
    await clock.advance(clock.pending()[0]);
    chrome.native.close('Specified native messaging host not found.');
  }
  assert.deepEqual(clock.pending(), [RECONNECT_MAX]);

  // connectNative itself throws: it tries again later.
  chrome.runtime.nativeError = 'Error when communicating with the native messaging host.';
  const opened = chrome.runtime.natives.length;
  await clock.advance(RECONNECT_MAX);
  assert.equal(chrome.runtime.natives.length, opened);
  assert.match(warnings.at(-1), /Error when communicating/);
  assert.equal(clock.pending().length, 1);

  // The host is back; its link lives long, then ends: reconnect after RECONNECT_MIN.
  chrome.runtime.nativeError = null;
  await clock.advance(clock.pending()[0]);
  assert.equal(chrome.runtime.natives.length, opened + 1);
  await clock.advance(STABLE_LINK + 1);
  chrome.native.close();
  assert.match(warnings.at(-1), /the host exited/);
  assert.deepEqual(clock.pending(), [RECONNECT_MIN]);
});

test('the host\'s hello resets the backoff', async () => {
  const { chrome, clock, host } = await bootWorker();
  host.close('Native host has exited.');
  await clock.advance(RECONNECT_MIN);
  chrome.native.close('Native host has exited.');
  await clock.advance(2 * RECONNECT_MIN);
  chrome.native.deliver({ type: 'hello', protocol: 1, host: { version: 'test' } });
  chrome.native.close('Native host has exited.');
  assert.deepEqual(clock.pending(), [RECONNECT_MIN]);
});

test('a new link says hello and sends the whole state again', async () => {
  const { chrome, clock, host } = await bootWorker({ tabs: [localTab(3)] });
  await frameWithTools(chrome, 3, ['echo']);
  const sent = host.posted.length;
  host.close();
  await clock.advance(RECONNECT_MIN);
  const next = chrome.native;
  assert.notEqual(next, host);
  await clock.advance(SETTLE_QUIET);
  const msgs = next.take();
  assert.deepEqual(msgs.map((m) => m.type), ['hello', 'state']);
  assert.deepEqual(msgs[1].state.tools.map((t) => t.name), ['echo']);
  // Nothing went to the old Port any more.
  assert.equal(host.posted.length, sent);
});

test('a chunked call reaches the frame whole', async () => {
  const { chrome, host } = await bootWorker({ tabs: [localTab(3)] });
  const frame = await frameWithTools(chrome, 3, ['echo']);
  frame.take();
  const call = { type: 'call', id: 's1.1', tabId: 3, name: 'echo', arguments: { text: 'é'.repeat(3000) } };
  const pieces = hostChunks('c1', JSON.stringify(call), 1000);
  assert.ok(pieces.length > 2);
  for (const p of pieces.slice(0, -1)) host.deliver(p);
  assert.deepEqual(frame.posted, []);
  host.deliver(pieces.at(-1));
  assert.deepEqual(frame.take(), [{ type: 'call', id: 's1.1', name: 'echo', arguments: call.arguments }]);
});

test('bad chunks are dropped with a warning, and a link loss forgets pieces', async () => {
  const { chrome, clock, host, warnings } = await bootWorker({ tabs: [localTab(3)] });
  const frame = await frameWithTools(chrome, 3, ['echo']);
  frame.take();
  const call = JSON.stringify({ type: 'call', id: 's1.1', tabId: 3, name: 'echo' });

  // Out of order.
  const pieces = hostChunks('c1', call, 10);
  host.deliver(pieces[1]);
  assert.match(warnings.at(-1), /got piece 1, want 0/);

  // Not JSON.
  host.deliver({ type: 'chunk', id: 'c2', data: '{"type":', last: true });
  assert.match(warnings.at(-1), /chunked message c2 is not JSON/);

  // A chunk inside a chunk.
  host.deliver({ type: 'chunk', id: 'c3', data: JSON.stringify({ type: 'chunk', id: 'c4', data: call, last: true }), last: true });
  assert.match(warnings.at(-1), /ignored a chunk inside a chunked message/);

  // Pieces before a reconnect do not join pieces after it.
  host.deliver(pieces[0]);
  host.close();
  await clock.advance(RECONNECT_MIN);
  const before = warnings.length;
  for (const p of pieces.slice(1)) chrome.native.deliver(p);
  assert.match(warnings[before], /got piece 1, want 0/);
  assert.deepEqual(frame.ofType('call'), []);
});

test('the host\'s bad messages are answered or ignored', async () => {
  const { host, warnings } = await bootWorker();
  host.take();
  host.deliver({ type: 'call', id: 'x', tabId: 'three', name: 'echo' });
  assert.deepEqual(host.take(), [{ type: 'error', id: 'x', error: { code: 'bad_request', message: 'call: "tabId" and "frameId" must be integers' } }]);
  host.deliver({ type: 'request', id: 'r', method: 'dance' });
  assert.equal(host.take()[0].error.code, 'bad_request');
  host.deliver({ type: 'nonsense' });
  assert.match(warnings.at(-1), /ignored from the host: unknown message type "nonsense"/);
  host.deliver({ type: 'hello', protocol: 99 });
  assert.match(warnings.at(-1), /the host speaks protocol 99/);
  assert.deepEqual(host.take(), []);
});

test('a big result: the frame\'s chunks are joined, and it goes to the host as chunks of at most 32 MiB; a small call beside it is answered', async () => {
  const { ChunkJoiner, MAX_WHOLE, cutMessage } = await import('../lib/chunks.js');
  const { utf8Length } = await import('../lib/utf8.js');
  const { chrome, host } = await bootWorker({ tabs: [localTab(3)] });
  const frame = await frameWithTools(chrome, 3, ['big', 'small']);
  frame.take();
  host.take();
  host.deliver({ type: 'call', id: 's1.1', tabId: 3, name: 'big', arguments: {} });
  host.deliver({ type: 'call', id: 's1.2', tabId: 3, name: 'small', arguments: {} });
  await drain();
  assert.deepEqual(frame.ofType('call').map((c) => c.id), ['s1.1', 's1.2']);

  // 40 MiB of JSON, cut by the relay's rule; the small answer comes between its pieces.
  const output = { rows: 'ü'.repeat(20 << 20) };
  const pieces = cutMessage({ type: 'result', id: 's1.1', output }, 'r1');
  assert.ok(pieces.length > 1);
  frame.deliver(pieces[0]);
  frame.deliver({ type: 'result', id: 's1.2', output: 'ok' });
  for (const p of pieces.slice(1)) frame.deliver(p);
  await drain();

  const sent = host.take();
  assert.deepEqual(sent[0], { type: 'result', id: 's1.2', output: 'ok' });
  const chunks = sent.slice(1);
  assert.ok(chunks.length > 1 && chunks.every((m) => m.type === 'chunk' && m.id === chunks[0].id));
  for (const m of chunks) assert.ok(utf8Length(JSON.stringify(m)) <= MAX_WHOLE, `piece ${m.seq} is over 32 MiB`);
  const joiner = new ChunkJoiner({ maxBytes: 100 << 20 });
  let text = null;
  for (const m of chunks) text = joiner.add(m);
  assert.deepEqual(JSON.parse(text), { type: 'result', id: 's1.1', output });
});

test('a frame\'s too_large answer reaches the host as too_large; other codes a frame invents are tool_error', async () => {
  const { chrome, host } = await bootWorker({ tabs: [localTab(3)] });
  const frame = await frameWithTools(chrome, 3, ['big']);
  frame.take();
  host.take();
  host.deliver({ type: 'call', id: 's1.1', tabId: 3, name: 'big', arguments: {} });
  host.deliver({ type: 'call', id: 's1.2', tabId: 3, name: 'big', arguments: {} });
  await drain();
  frame.deliver({ type: 'error', id: 's1.1', error: { code: 'too_large', message: 'the result is 67108865 bytes of JSON' } });
  frame.deliver({ type: 'error', id: 's1.2', error: { code: 'not_allowed', message: 'a page that lies' } });
  await drain();
  assert.deepEqual(host.take().map((m) => [m.id, m.error.code]), [['s1.1', 'too_large'], ['s1.2', 'tool_error']]);
});

test('a frame that reports more than 1,000 tools: the first 1,000 reach the host, and the worker warns', async () => {
  const { chrome, host, warnings } = await bootWorker({ tabs: [localTab(3)] });
  const names = Array.from({ length: 1005 }, (_, i) => `t${i}`);
  await frameWithTools(chrome, 3, names);
  const added = host.ofType('toolsAdded').flatMap((m) => m.tools.map((t) => t.name));
  assert.deepEqual(added, names.slice(0, 1000));
  assert.ok(warnings.some((w) => /tab 3 frame 0 .*left out 5 tools past the first 1000 of this frame/.test(w)), warnings.join('\n'));
});

test('a state over 32 MiB (five tabs of 8 MiB of tools) goes as the state without tools and toolsAdded parts, none over 32 MiB, that add up to it', async () => {
  const { MAX_WHOLE } = await import('../lib/chunks.js');
  const { utf8Length } = await import('../lib/utf8.js');
  const tabs = [1, 2, 3, 4, 5].map((id) => localTab(id));
  const { chrome, clock, host } = await bootWorker({ tabs, settle: false });
  for (const t of tabs) {
    const port = chrome.connectFrame({ tabId: t.id, frameId: 0, url: t.url });
    port.deliver({ type: 'tools', tools: Array.from({ length: 8 }, (_, i) => ({ name: `big${i}`, description: 'x'.repeat(1000 << 10) })) });
  }
  await drain();
  await clock.advance(1000);
  const [hello, state, ...parts] = host.take();
  assert.equal(hello.type, 'hello');
  assert.equal(state.type, 'state');
  assert.deepEqual(state.state.tabs.map((t) => t.id), [1, 2, 3, 4, 5]);
  assert.deepEqual(state.state.tools, []);
  assert.ok(parts.length >= 2 && parts.every((m) => m.type === 'toolsAdded'), parts.map((m) => m.type).join());
  for (const m of [state, ...parts]) assert.ok(utf8Length(JSON.stringify(m)) <= MAX_WHOLE, `a ${m.type} over 32 MiB`);
  const tools = parts.flatMap((m) => m.tools.map((t) => `${t.tabId}/${t.name}`));
  assert.deepEqual(tools, tabs.flatMap((t) => Array.from({ length: 8 }, (_, i) => `${t.id}/big${i}`)));
});

test('batches: each call of a host batch reaches its frame; answers of calls under way together go in one batch, a lone answer at once', async () => {
  const { chrome, clock, host, warnings } = await bootWorker({ tabs: [localTab(3)] });
  const frame = await frameWithTools(chrome, 3, ['echo']);
  const call = (id) => ({ type: 'call', id, tabId: 3, name: 'echo', arguments: { text: id } });
  // What the frame got: each Port message's calls (a batch's in a list).
  const calls = () => frame.take().filter((m) => m.type === 'call' || m.type === 'batch')
    .map((m) => (m.type === 'batch' ? m.messages.map((c) => c.id) : m.id));
  // The calls of a host batch reach the frame in one batch; a host that does not take batches gets every answer alone.
  host.deliver({ type: 'batch', messages: [call('s1.1'), call('s1.2')] });
  assert.deepEqual(calls(), [['s1.1', 's1.2']]);
  host.take();
  frame.deliver({ type: 'result', id: 's1.1', output: 1 });
  frame.deliver({ type: 'result', id: 's1.2', output: 2 });
  assert.deepEqual(host.take().map((m) => [m.type, m.id]), [['result', 's1.1'], ['result', 's1.2']]);

  // A host that does.
  host.deliver({ type: 'hello', protocol: 1, host: { pid: 1, batch: true } });
  host.deliver({ type: 'batch', messages: [call('s1.3'), call('s1.4'), call('s1.5')] });
  assert.deepEqual(calls(), [['s1.3', 's1.4', 's1.5']]);
  // A frame's batch of answers: each is routed (anything but an answer in it is ignored).
  frame.deliver({ type: 'batch', messages: [
    { type: 'result', id: 's1.3', output: 3 },
    { type: 'tools', tools: [] },
    { type: 'error', id: 's1.4', error: { code: 'tool_error', message: 'no' } },
  ] });
  assert.deepEqual(host.take(), [], 'the answers wait while s1.5 runs');
  await clock.advance(0);
  assert.deepEqual(host.take(), [{ type: 'batch', messages: [
    { type: 'result', id: 's1.3', output: 3 },
    { type: 'error', id: 's1.4', error: { code: 'tool_error', message: 'no' } },
  ] }]);
  // The last call under way: its answer goes at once, with any that wait.
  frame.deliver({ type: 'result', id: 's1.5', output: 5 });
  assert.deepEqual(host.take(), [{ type: 'result', id: 's1.5', output: 5 }]);
  host.deliver(call('s1.6'));
  host.deliver(call('s1.7'));
  frame.deliver({ type: 'result', id: 's1.6', output: 6 });
  frame.deliver({ type: 'result', id: 's1.7', output: 7 });
  assert.deepEqual(host.take(), [{ type: 'batch', messages: [{ type: 'result', id: 's1.6', output: 6 }, { type: 'result', id: 's1.7', output: 7 }] }]);
  // A big answer goes alone.
  host.deliver(call('s1.8'));
  host.deliver(call('s1.9'));
  host.deliver(call('s1.10'));
  frame.deliver({ type: 'result', id: 's1.8', output: 'x'.repeat(70 << 10) });
  frame.deliver({ type: 'result', id: 's1.9', output: 9 });
  frame.deliver({ type: 'result', id: 's1.10', output: 10 });
  assert.deepEqual(host.take().map((m) => m.type === 'batch' ? m.messages.map((x) => x.id) : m.id), ['s1.8', ['s1.9', 's1.10']]);
  // No batch or chunk inside a batch.
  host.deliver({ type: 'batch', messages: [{ type: 'batch', messages: [call('s1.11')] }, { type: 'chunk', id: 'c1', data: '{}', last: true }] });
  assert.deepEqual(calls(), ['s1.6', 's1.7', 's1.8', 's1.9', 's1.10']);
  assert.match(warnings.at(-2), /batch inside a batch/);
  assert.match(warnings.at(-1), /chunk inside a chunked message or a batch/);
});
