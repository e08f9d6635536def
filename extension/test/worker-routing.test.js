// Call routing in the service worker (worker/routing.js, worker/frames.js):
// calls to frames, answers, cancels, frames and tabs that go away, a lost
// host link. Driven through the whole worker with a fake chrome and clock.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RECONNECT_MIN } from '../worker/hostlink.js';
import { COMPLETE_GRACE, NAV_WAIT } from '../worker/navanswers.js';
import { DIALOG_GRACE } from '../worker/routing.js';
import { ask } from './fakes/consent.js';
import { bootWorker, drain, frameWithTools, localTab } from './fakes/worker.js';
import { CALL_PATH_KEY } from '../worker/callpath.js';

async function withEcho(opts = {}) {
  const w = await bootWorker({ tabs: [localTab(3), localTab(4)], ...opts });
  const frame = await frameWithTools(w.chrome, 3, ['echo']);
  w.host.take();
  frame.take();
  return { ...w, frame };
}

const call = (id, extra = {}) => ({ type: 'call', id, tabId: 3, name: 'echo', arguments: { text: 'hi' }, ...extra });

test('a call goes to its frame, and the frame\'s result back to the host, once', async () => {
  const { host, frame } = await withEcho();
  host.deliver(call('s1.1'));
  assert.deepEqual(frame.take(), [{ type: 'call', id: 's1.1', name: 'echo', arguments: { text: 'hi' } }]);
  frame.deliver({ type: 'result', id: 's1.1', output: { echoed: 'hi' } });
  frame.deliver({ type: 'result', id: 's1.1', output: 'again' });
  assert.deepEqual(host.take(), [{ type: 'result', id: 's1.1', output: { echoed: 'hi' } }]);
});

test('a traced call: the worker adds its marks on the way to the frame and back; others carry none', async () => {
  const { host, frame } = await withEcho();
  const t0 = { hop: 'shim.in', at: 1 };
  host.deliver(call('s1.1', { trace: [t0] }));
  const [sent] = frame.take();
  assert.deepEqual(sent.trace.map((m) => m.hop), ['shim.in', 'worker.in', 'worker.out']);
  const now = performance.timeOrigin + performance.now();
  for (const m of sent.trace.slice(1)) assert.ok(m.at > now - 60000 && m.at <= now, `a mark in ms since the epoch: ${m.at}`);
  frame.deliver({ type: 'result', id: 's1.1', output: 1, trace: [...sent.trace, { hop: 'relay.back', at: 2 }] });
  const [answer] = host.take();
  assert.deepEqual(answer.trace.map((m) => m.hop), ['shim.in', 'worker.in', 'worker.out', 'relay.back', 'worker.back']);
  host.deliver(call('s1.2', { trace: [t0] }));
  frame.take();
  frame.deliver({ type: 'error', id: 's1.2', error: { code: 'tool_error', message: 'no' }, trace: [t0] });
  assert.deepEqual(host.take()[0].trace.map((m) => m.hop), ['shim.in', 'worker.back']);
  host.deliver(call('s1.3'));
  assert.equal(frame.take()[0].trace, undefined);
});

test('the user\'s choice of executeTool (the options page) rides on each call to the frame, and is kept', async () => {
  const { host, frame, chrome } = await withEcho();
  const page = { id: chrome.runtime.id, url: chrome.runtime.getURL('ui/options.html') };
  assert.deepEqual((await ask(chrome, { type: 'callPath.get' }, page)).value, { value: 'direct' });
  host.deliver(call('s1.1'));
  assert.equal(frame.take()[0].via, undefined, 'by default the frame picks the way (native mode: directly)');
  assert.deepEqual((await ask(chrome, { type: 'callPath.set', value: 'executeTool' }, page)).value, { value: 'executeTool' });
  host.deliver(call('s1.2'));
  assert.equal(frame.take()[0].via, 'executeTool');
  assert.equal((await chrome.storage.local.get([CALL_PATH_KEY]))[CALL_PATH_KEY], 'executeTool');
  assert.match((await ask(chrome, { type: 'callPath.set', value: 'fast' }, page)).error, /must be "direct" or "executeTool"/);
  const content = { id: chrome.runtime.id, url: 'http://localhost:8765/', tab: { id: 3 }, frameId: 0 };
  assert.equal((await ask(chrome, { type: 'callPath.set', value: 'direct' }, content)).ok, false, 'a page cannot change it');
  // A restarted worker reads it back.
  const again = await bootWorker({ tabs: [localTab(3)], storage: { instance: 'inst-1', [CALL_PATH_KEY]: 'executeTool' } });
  assert.equal(again.worker.callPaths.viaExecuteTool(), true);
});

test('a frame\'s error keeps not_found, internal and navigated, and is tool_error otherwise', async () => {
  const { host, frame } = await withEcho();
  for (const [id, error, want] of [
    ['a', { code: 'not_found', message: 'gone' }, { code: 'not_found', message: 'gone' }],
    ['b', { code: 'internal', message: 'oops' }, { code: 'internal', message: 'oops' }],
    ['c', { code: 'timeout', message: 'slow' }, { code: 'tool_error', message: 'slow' }],
    ['d', 'nonsense', { code: 'tool_error', message: 'the tool failed' }],
  ]) {
    host.deliver(call(id));
    frame.deliver({ type: 'error', id, error });
    assert.deepEqual(host.take(), [{ type: 'error', id, error: want }]);
  }
  // A result without output travels as null.
  host.deliver(call('e'));
  frame.deliver({ type: 'result', id: 'e' });
  assert.deepEqual(host.take(), [{ type: 'result', id: 'e', output: null }]);
});

// A call that navigated its frame (a declarative form's submission) is
// answered once the frame's next document has loaded, with that document's
// application/ld+json data, as Chromium answers it (issue FID item 2).
test('a navigated answer waits for the next document and carries its ld+json data', async () => {
  const { chrome, host, frame, clock } = await withEcho();
  host.deliver(call('n'));
  frame.deliver({ type: 'error', id: 'n', error: { code: 'navigated', message: 'the call navigated the page' } });
  await drain();
  assert.deepEqual(host.take().filter((m) => m.id === 'n'), [], 'held until the next document loads');
  const next = await frameWithTools(chrome, 3, ['track']);
  assert.deepEqual(next.take().filter((m) => m.type === 'whenLoaded'), [{ type: 'whenLoaded', id: 'n', jsonLd: true }]);
  next.deliver({ type: 'loaded', id: 'n', jsonLd: [{ '@type': 'Reservation' }, 'two'] });
  await drain();
  const sent = host.take();
  assert.deepEqual(sent.filter((m) => m.id === 'n'), [{ type: 'error', id: 'n', error: { code: 'navigated', message: 'the call navigated the page', ran: true }, output: [{ '@type': 'Reservation' }, 'two'] }]);
  assert.ok(sent.findIndex((m) => m.type === 'toolsAdded' || m.type === 'state') < sent.findIndex((m) => m.id === 'n'), 'the new tools go first');

  // A next document without a relay: the tab's "complete" answers it, without data.
  host.deliver({ ...call('m'), name: 'track' });
  next.deliver({ type: 'error', id: 'm', error: { code: 'navigated', message: 'away' } });
  await drain();
  assert.deepEqual(host.take().filter((m) => m.id === 'm'), []);
  chrome.tabs.onUpdated.emit(3, { status: 'complete' }, { id: 3, windowId: 1, status: 'complete' });
  await drain();
  assert.deepEqual(host.take().filter((m) => m.id === 'm'), [], 'its relay may still come');
  await clock.advance(COMPLETE_GRACE);
  assert.deepEqual(host.take().filter((m) => m.id === 'm'), [{ type: 'error', id: 'm', error: { code: 'navigated', message: 'away', ran: true } }]);

  // A subframe whose next document never says: the hang guard.
  const sub = await frameWithTools(chrome, 3, ['inner'], { frameId: 2 });
  host.deliver({ ...call('k'), name: 'inner', frameId: 2 });
  sub.deliver({ type: 'error', id: 'k', error: { code: 'navigated', message: 'sub' } });
  await drain();
  assert.deepEqual(host.take().filter((m) => m.id === 'k'), []);
  await clock.advance(NAV_WAIT);
  assert.deepEqual(host.take().filter((m) => m.id === 'k').map((m) => [m.error.code, m.output]), [['navigated', undefined]]);
});

test('calls that cannot be routed are answered at once', async () => {
  const { chrome, host, frame } = await withEcho({ tabs: [localTab(3), { id: 5, windowId: 1, url: 'https://example.com/', title: 'x' }] });
  const other = await frameWithTools(chrome, 5, ['echo'], { url: 'https://example.com/' });
  host.take();
  host.deliver(call('a', { name: 'nope' }));
  host.deliver(call('b', { tabId: 99 }));
  host.deliver(call('c', { tabId: 5 }));
  host.deliver(call('d', { frameId: 7 }));
  assert.deepEqual(host.take().map((m) => [m.id, m.error.code]), [['a', 'not_found'], ['b', 'not_found'], ['c', 'not_allowed'], ['d', 'not_found']]);
  assert.deepEqual(frame.posted, []);
  assert.deepEqual(other.posted.filter((m) => m.type === 'call'), []);
});

test('a repeated call id is ignored while the first runs', async () => {
  const { host, frame, warnings } = await withEcho();
  host.deliver(call('s1.1'));
  host.deliver(call('s1.1'));
  assert.equal(frame.take().length, 1);
  assert.match(warnings.at(-1), /call s1\.1 is already under way/);
  assert.deepEqual(host.take(), []);
});

test('a frame cannot answer another frame\'s call', async () => {
  const { chrome, host, frame } = await withEcho();
  const sub = await frameWithTools(chrome, 3, ['echo'], { frameId: 2 });
  host.take();
  host.deliver(call('s1.1'));
  sub.deliver({ type: 'result', id: 's1.1', output: 'forged' });
  assert.deepEqual(host.take(), []);
  frame.deliver({ type: 'result', id: 's1.1', output: 'real' });
  assert.deepEqual(host.take(), [{ type: 'result', id: 's1.1', output: 'real' }]);
});

test('a cancel answers cancelled at once, stops the page, and drops its late answer', async () => {
  const { host, frame } = await withEcho();
  host.deliver(call('s1.1'));
  frame.take();
  host.deliver({ type: 'cancel', id: 's1.1' });
  assert.deepEqual(frame.take(), [{ type: 'cancel', id: 's1.1' }]);
  assert.deepEqual(host.take(), [{ type: 'error', id: 's1.1', error: { code: 'cancelled', message: 'the call was cancelled' } }]);
  frame.deliver({ type: 'result', id: 's1.1', output: 'late' });
  // A cancel after the answer does nothing.
  host.deliver({ type: 'cancel', id: 's1.1' });
  assert.deepEqual(host.take(), []);
  assert.deepEqual(frame.take(), []);
});

test('a new document in the frame ends its calls with navigated', async () => {
  const { chrome, host, frame } = await withEcho();
  host.deliver(call('s1.1'));
  const next = chrome.connectFrame({ tabId: 3, frameId: 0, url: 'http://localhost:8765/other' });
  assert.equal(frame.closedByCode, true);
  const msgs = host.take();
  assert.deepEqual(msgs[0], { type: 'error', id: 's1.1', error: { code: 'navigated', message: 'tab 3 frame 0 navigated while the call ran' } });
  await drain();
  assert.deepEqual(host.take(), [{ type: 'toolsRemoved', removed: [{ tabId: 3, frameId: 0, name: 'echo' }] }]);
  // The old document's late answer is dropped.
  frame.deliver({ type: 'result', id: 's1.1', output: 'late' });
  assert.deepEqual(host.take(), []);
  assert.ok(next);
});

test('a frame whose Port closes ends its calls: navigated while its tab lives, tab_closed after', async () => {
  const { chrome, host, frame } = await withEcho();
  host.deliver(call('a'));
  frame.close();
  await drain();
  const msgs = host.take();
  assert.deepEqual(msgs.find((m) => m.id === 'a'), { type: 'error', id: 'a', error: { code: 'navigated', message: 'tab 3 frame 0 navigated away while the call ran' } });
  assert.deepEqual(msgs.find((m) => m.type === 'toolsRemoved').removed, [{ tabId: 3, frameId: 0, name: 'echo' }]);

  const again = await frameWithTools(chrome, 4, ['echo']);
  host.take();
  host.deliver(call('b', { tabId: 4 }));
  chrome.tabs.get = async () => {
    throw new Error('No tab');
  };
  again.close();
  await drain();
  assert.deepEqual(host.take().find((m) => m.id === 'b'), { type: 'error', id: 'b', error: { code: 'tab_closed', message: 'tab 4 closed while the call ran' } });
});

test('a closed tab ends its calls with tab_closed and leaves the registry', async () => {
  const { chrome, host, worker } = await withEcho();
  host.deliver(call('s1.1'));
  chrome.closeTab(3);
  assert.deepEqual(host.take(), [{ type: 'error', id: 's1.1', error: { code: 'tab_closed', message: 'tab 3 closed while the call ran' } }]);
  await drain();
  assert.deepEqual(host.take(), [{ type: 'tabRemoved', tabId: 3 }]);
  assert.equal(worker.frames.get(3, 0), undefined);
  host.deliver(call('s1.2'));
  assert.equal(host.take()[0].error.code, 'not_found');
});

test('a lost host link stops the calls under way in the pages', async () => {
  const { chrome, clock, host, frame } = await withEcho();
  host.deliver(call('s1.1'));
  frame.take();
  host.close('Native host has exited.');
  assert.deepEqual(frame.take(), [{ type: 'cancel', id: 's1.1' }]);
  frame.deliver({ type: 'result', id: 's1.1', output: 'late' });
  await clock.advance(RECONNECT_MIN);
  const next = chrome.native;
  next.take();
  next.deliver(call('s2.1'));
  assert.equal(frame.take()[0].id, 's2.1');
});

test('a call to a frame whose Port fails answers navigated', async () => {
  const { host, frame } = await withEcho();
  frame.closed = true; // the Port is gone, but its onDisconnect has not arrived yet
  host.deliver(call('s1.1'));
  assert.deepEqual(host.take(), [{ type: 'error', id: 's1.1', error: { code: 'navigated', message: 'tab 3 frame 0 went away before the call reached it' } }]);
});

test('only the extension\'s own relays with a tab and frame may connect', async () => {
  const { chrome, worker } = await bootWorker({ tabs: [localTab(3)] });
  const foreign = chrome.connectFrame({ tabId: 3, url: 'http://localhost:8765/', senderId: 'someone-else' });
  assert.equal(foreign.closedByCode, true);
  const other = chrome.connectFrame({ tabId: 3, url: 'http://localhost:8765/', name: 'other' });
  assert.equal(other.closedByCode, false);
  assert.equal(worker.frames.get(3, 0), undefined);
});

// While an alert, confirm or prompt is up, the page runs no script: the
// worker answers calls to the frame (and to same-origin frames of its tab)
// itself, at once, with the dialog's text, and the call never reaches the
// page (issue FID part B).
test('a call to a frame blocked by a dialog waits DIALOG_GRACE for it to close, then is answered blocked and never reaches the page', async () => {
  const { host, frame, chrome, clock } = await withEcho();
  const sub = await frameWithTools(chrome, 3, ['sub_tool'], { frameId: 5 });
  const other = await frameWithTools(chrome, 3, ['other_tool'], { frameId: 6, url: 'http://127.0.0.1:9/x' });
  sub.take();
  other.take();
  host.take();
  frame.deliver({ type: 'dialog', open: true, kind: 'confirm', text: 'Delete "everything"?' });
  host.deliver(call('d1'));
  // A same-origin frame of the tab shares the page's thread: blocked too.
  host.deliver(call('d2', { frameId: 5, name: 'sub_tool' }));
  assert.deepEqual(frame.take().filter((m) => m.type === 'call'), [], 'the call does not go to the blocked page');
  assert.deepEqual(host.take().filter((m) => m.type === 'error'), [], 'nor is it answered before the grace');
  // A cross-origin frame runs on its own: its call goes through.
  host.deliver(call('d3', { frameId: 6, name: 'other_tool' }));
  assert.equal(other.take()[0].id, 'd3');
  // Another tab is not blocked.
  const four = await frameWithTools(chrome, 4, ['echo']);
  four.take();
  host.take();
  host.deliver(call('d4', { tabId: 4 }));
  assert.equal(four.take()[0].id, 'd4');
  await clock.advance(DIALOG_GRACE);
  const answers = host.take().filter((m) => m.type === 'error');
  assert.deepEqual(answers.map((m) => [m.id, m.error.code]), [['d1', 'blocked'], ['d2', 'blocked']]);
  assert.match(answers[0].error.message, /^the page is blocked by a dialog \(confirm: "Delete \\"everything\\"\?"\): the user must answer it in the browser/);
  assert.deepEqual([...frame.take(), ...sub.take()].filter((m) => m.type === 'call'), [], 'they never reach the page');
  // Closed: calls go to the page again.
  frame.deliver({ type: 'dialog', open: false });
  host.deliver(call('d5'));
  assert.deepEqual(frame.take(), [{ type: 'call', id: 'd5', name: 'echo', arguments: { text: 'hi' } }]);
});

test('a call that comes while a dialog is up goes to the page once the user closes it within the grace', async () => {
  const { host, frame, clock } = await withEcho();
  frame.deliver({ type: 'dialog', open: true, kind: 'alert', text: 'Saved' });
  host.deliver(call('g1'));
  host.deliver(call('g2'));
  host.deliver({ type: 'cancel', id: 'g2' });
  assert.deepEqual(host.take().map((m) => [m.id, m.error && m.error.code]), [['g2', 'cancelled']]);
  await clock.advance(DIALOG_GRACE / 2);
  frame.deliver({ type: 'dialog', open: false });
  assert.deepEqual(frame.take(), [{ type: 'call', id: 'g1', name: 'echo', arguments: { text: 'hi' } }]);
  await clock.advance(DIALOG_GRACE);
  assert.deepEqual(host.take(), [], 'no blocked answer after it went');
});

test('a call under way when the dialog opened waits for its answer (the user answers the dialog)', async () => {
  const { host, frame } = await withEcho();
  host.deliver(call('u1'));
  frame.take();
  frame.deliver({ type: 'dialog', open: true, kind: 'alert', text: 'hi' });
  assert.deepEqual(host.take(), []);
  frame.deliver({ type: 'dialog', open: false });
  frame.deliver({ type: 'result', id: 'u1', output: 'alert closed' });
  assert.deepEqual(host.take(), [{ type: 'result', id: 'u1', output: 'alert closed' }]);
});

test('a new document of the frame has no dialog', async () => {
  const { host, frame, chrome } = await withEcho();
  frame.deliver({ type: 'dialog', open: true, kind: 'prompt', text: 'Name?' });
  const next = await frameWithTools(chrome, 3, ['echo']);
  next.take();
  host.take();
  host.deliver(call('n1'));
  assert.equal(next.take()[0].id, 'n1');
});
