// Agent activity through the whole worker (worker/activity.js, badge.js,
// indicator.js): the log and its outcomes, kept in storage.session and
// clearable; the badge's tool count and its look while a call runs or
// waits; the in-page indicator and its per-site switch.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ACTIVITY_KEY, MAX_ENTRIES, WRITE_DELAY } from '../worker/activity.js';
import { Colors } from '../worker/badge.js';
import { FOLLOW_DELAY, SHOW_DELAY } from '../worker/indicator.js';
import { CALLS_DELAY } from '../worker/badge.js';
import { drain, LOCAL } from './fakes/worker.js';
import { ask, withTools } from './fakes/consent.js';

const call = (id, name, extra = {}) => ({ type: 'call', id, tabId: 3, frameId: 0, name, arguments: { n: 1 }, agent: 'a1', ...extra });
const log = async (chrome) => (await ask(chrome, { type: 'activity.list' })).value.entries;

test('the log lists each call with its agent, site, tool, arguments, outcome and duration, newest first', async () => {
  const { chrome, host, frame, clock, worker } = await withTools({ askMode: 'consequential' });
  host.deliver({ type: 'sessions', sessions: [{ session: 's1', client: { name: 'webmcp-shim', pid: 7, agents: [{ id: 'a1', name: 'claude-code', version: '2.1.0' }] } }] });
  host.deliver(call('s1.1', 'act'));
  await clock.advance(40);
  frame.deliver({ type: 'result', id: 's1.1', output: 'ok' });
  host.deliver(call('s1.2', 'act'));
  frame.deliver({ type: 'error', id: 's1.2', error: { code: 'tool_error', message: 'boom' } });
  host.deliver(call('s1.3', 'act'));
  host.deliver({ type: 'cancel', id: 's1.3' });
  host.deliver(call('s1.4', 'act', { timeout: 1000 }));
  await clock.advance(1000);
  host.deliver({ type: 'cancel', id: 's1.4' }); // the shim's timeout
  host.deliver(call('s1.5', 'commit'));
  await drain();
  assert.equal((await log(chrome))[0].outcome, 'waiting');
  await ask(chrome, { type: 'consent.answer', id: 's1.5', answer: 'deny' });
  host.deliver(call('s2.1', 'peek', { arguments: { big: 'x'.repeat(5000) } }));
  frame.deliver({ type: 'result', id: 's2.1', output: 1 });
  await drain();

  const entries = await log(chrome);
  assert.deepEqual(entries.map((e) => [e.id, e.agent, e.tool, e.outcome]), [
    ['s2.1', 'an agent', 'peek', 'result'],
    ['s1.5', 'claude-code 2.1.0', 'commit', 'declined'],
    ['s1.4', 'claude-code 2.1.0', 'act', 'timed out'],
    ['s1.3', 'claude-code 2.1.0', 'act', 'cancelled'],
    ['s1.2', 'claude-code 2.1.0', 'act', 'error'],
    ['s1.1', 'claude-code 2.1.0', 'act', 'result'],
  ]);
  const first = entries.at(-1);
  assert.equal(first.site, LOCAL);
  assert.equal(first.tabTitle, 'page 3');
  assert.equal(first.args, '{"n":1}');
  assert.equal(first.duration, 40);
  assert.equal(entries[4].detail, 'boom');
  // The user is told plainly what they did, not the words meant for the agent.
  assert.equal(entries[1].detail, 'You denied it.');
  assert.match(entries[0].args, /… \(1010 more characters\)$/);
  assert.deepEqual((await ask(chrome, { type: 'activity.list', tabId: 4 })).value.entries, []);

  await clock.advance(WRITE_DELAY);
  assert.equal(chrome.storage.session.peek(ACTIVITY_KEY).length, 6);
  assert.equal((await ask(chrome, { type: 'activity.clear' })).ok, true);
  assert.deepEqual(await log(chrome), []);
  assert.deepEqual(chrome.storage.session.peek(ACTIVITY_KEY), []);
  assert.ok(worker.activity);
});

test('the log keeps the last 200 calls, and a restarted worker reads it back', async () => {
  const { chrome, host, frame, clock, worker } = await withTools();
  for (let i = 0; i < MAX_ENTRIES + 5; i++) {
    host.deliver(call(`c${i}`, 'act'));
    frame.deliver({ type: 'result', id: `c${i}`, output: null });
  }
  await clock.advance(WRITE_DELAY);
  const stored = chrome.storage.session.peek(ACTIVITY_KEY);
  assert.equal(stored.length, MAX_ENTRIES);
  assert.equal(stored[0].id, 'c5');
  worker.activity.entries = [];
  await worker.activity.loadFromStorage();
  assert.equal((await log(chrome)).length, MAX_ENTRIES);
});

test('the badge counts the tab\'s tools, and shows a call that runs or waits', async () => {
  const { chrome, host, frame, clock } = await withTools({ askMode: 'consequential' });
  await clock.advance(0);
  assert.equal(await chrome.action.getBadgeText({ tabId: 3 }), '4');
  assert.equal(chrome.action.badge(3).color, Colors.idle);
  host.deliver(call('s1.1', 'act'));
  await clock.advance(CALLS_DELAY - 1);
  assert.equal(chrome.action.badge(3).text, '4', 'a call shows after CALLS_DELAY');
  await clock.advance(1);
  assert.equal(chrome.action.badge(3).text, '▶4');
  assert.equal(chrome.action.badge(3).title, 'an agent is using act');
  frame.deliver({ type: 'result', id: 's1.1', output: null });
  await clock.advance(CALLS_DELAY);
  assert.equal(chrome.action.badge(3).text, '4');
  host.deliver(call('s1.2', 'commit'));
  await clock.advance(CALLS_DELAY);
  assert.equal(chrome.action.badge(3).text, '?');
  assert.equal(chrome.action.badge(3).color, Colors.waiting);
  frame.deliver({ type: 'tools', tools: [{ name: 'only' }] });
  await ask(chrome, { type: 'consent.answer', id: 's1.2', answer: 'deny' });
  await clock.advance(CALLS_DELAY);
  assert.equal(chrome.action.badge(3).text, '1');

  // A quick call does not touch the badge; a stream of calls updates it a few times a second.
  const sets = chrome.action.textSets;
  host.deliver(call('s1.3', 'only'));
  frame.deliver({ type: 'result', id: 's1.3', output: null });
  await clock.advance(CALLS_DELAY);
  assert.equal(chrome.action.textSets, sets, 'a quick call leaves the badge alone');
  for (let round = 0; round < 20; round++) { // 200 calls in a second, in bursts of 10
    for (let i = 0; i < 10; i++) host.deliver(call(`s2.${round}.${i}`, 'only'));
    await clock.advance(25);
    for (let i = 0; i < 10; i++) frame.deliver({ type: 'result', id: `s2.${round}.${i}`, output: null });
    await clock.advance(25);
  }
  assert.ok(chrome.action.textSets - sets <= 6, `${chrome.action.textSets - sets} badge updates for 200 calls in a second`);
});

test('the page shows "<agent> is using <tool>" while a call runs, unless the user turned it off for the site', async () => {
  const { chrome, host, frame, clock } = await withTools();
  const shown = () => frame.take().filter((m) => m.type === 'indicator').map((m) => m.text);
  host.deliver(call('s1.1', 'act'));
  frame.deliver({ type: 'result', id: 's1.1', output: null });
  await clock.advance(SHOW_DELAY);
  assert.deepEqual(shown(), [], 'a quick call does not flash the page');
  host.deliver(call('s1.2', 'act'));
  await clock.advance(SHOW_DELAY);
  assert.deepEqual(shown(), ['an agent is using act']);
  frame.deliver({ type: 'result', id: 's1.2', output: null });
  assert.deepEqual(shown(), ['']);

  // A stream of calls: the text follows a few times a second, not at each call.
  host.deliver(call('s1.9', 'act'));
  await clock.advance(SHOW_DELAY);
  for (let round = 0; round < 20; round++) { // 200 calls in a second, beside the long one
    for (let i = 0; i < 10; i++) host.deliver(call(`s2.${round}.${i}`, 'act'));
    await clock.advance(25);
    for (let i = 0; i < 10; i++) frame.deliver({ type: 'result', id: `s2.${round}.${i}`, output: null });
    await clock.advance(25);
  }
  const texts = shown();
  assert.ok(texts.length <= 6, `${texts.length} indicator updates for 200 calls in a second`);
  frame.deliver({ type: 'result', id: 's1.9', output: null });
  await clock.advance(FOLLOW_DELAY);
  assert.deepEqual(shown().at(-1), '');

  assert.equal((await ask(chrome, { type: 'siteSettings.set', origin: LOCAL, indicator: false })).value.indicator, false);
  host.deliver(call('s1.3', 'act'));
  await clock.advance(SHOW_DELAY);
  frame.deliver({ type: 'result', id: 's1.3', output: null });
  assert.deepEqual(shown(), []);
});

test('a call declined by the window closing or by no answer says so to the user', async () => {
  const { chrome, host, clock } = await withTools({ askMode: 'acting' });
  host.deliver(call('s1.1', 'act'));
  await drain();
  chrome.closeWindow([...chrome.windows.created.keys()][0]);
  host.deliver(call('s1.2', 'act', { timeout: 2000 }));
  await clock.advance(2000);
  const entries = await log(chrome);
  assert.deepEqual(entries.map((e) => [e.id, e.outcome, e.detail]), [
    ['s1.2', 'declined', 'You did not answer before the agent stopped waiting.'],
    ['s1.1', 'declined', 'You closed the consent window.'],
  ]);
});

test('the page shows the indicator after the documented 0.25 s, a literal here (not SHOW_DELAY)', async () => {
  assert.equal(SHOW_DELAY, 250);
  const { frame, host, clock } = await withTools();
  const shown = () => frame.take().filter((m) => m.type === 'indicator').map((m) => m.text);
  host.deliver(call('s1.1', 'act'));
  await clock.advance(249);
  assert.deepEqual(shown(), [], 'before 0.25 s');
  await clock.advance(1);
  assert.deepEqual(shown(), ['an agent is using act'], 'at 0.25 s');
  frame.deliver({ type: 'result', id: 's1.1', output: null });
});
