// Page tools as context: which tools may be sampled, the person's choices
// and the rug-pull rule (lib/contexttools.js), and the worker's sampling of
// them (worker/contexttools.js) driven through the whole worker with a fake
// chrome and clock.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CONTEXT_TOOLS_KEY, ContextToolChoices, TOOL_SAMPLE_BUDGET, canBeContext, isOffered, snapshotOfAnswer } from '../lib/contexttools.js';
import { STALE_NOTE } from '../worker/contexttools.js';
import { LOCAL, bootWorker, drain, localTab } from './fakes/worker.js';

const readOnly = (name, extra = {}) => ({ name, description: `${name}: the current selection. More words.`, inputSchema: { type: 'object', properties: {} }, annotations: { readOnlyHint: true }, ...extra });

test('only a read-only tool without required arguments, not destructive or consequential, can be context', () => {
  assert.equal(canBeContext(readOnly('get_selection')), true);
  assert.equal(canBeContext(readOnly('no_schema', { inputSchema: undefined })), true);
  assert.equal(canBeContext(readOnly('optional', { inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: [] } })), true);
  assert.equal(canBeContext(readOnly('find', { inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } })), false);
  assert.equal(canBeContext({ name: 'acts', inputSchema: { type: 'object' } }), false, 'no hints: it acts');
  assert.equal(canBeContext(readOnly('acts', { annotations: { readOnlyHint: false } })), false);
  assert.equal(canBeContext(readOnly('both', { annotations: { readOnlyHint: true, destructiveHint: true } })), false, 'destructive overrides read-only');
  assert.equal(canBeContext(readOnly('both', { annotations: { readOnlyHint: true, consequentialHint: true } })), false, 'consequential overrides read-only');
});

test('a page offers a tool as its context by the name get_ui_context, alone or after a prefix', () => {
  assert.equal(isOffered('get_ui_context'), true);
  assert.equal(isOffered('perfetto_get_ui_context'), true);
  assert.equal(isOffered('get_ui_context_2'), false);
  assert.equal(isOffered('forget_ui_context'), false);
  assert.equal(isOffered('get_selection'), false);
});

test('a choice holds for the definition the person saw; a changed one is not sampled until turned on again', () => {
  const c = new ContextToolChoices();
  const v1 = readOnly('get_selection');
  assert.deepEqual(c.stateOf(LOCAL, v1), { state: 'off', offered: false });
  assert.equal(c.sampled(LOCAL, v1), false);
  c.set(LOCAL, v1, true);
  assert.equal(c.sampled(LOCAL, v1), true);
  assert.equal(c.sampled('http://127.0.0.2:8080', v1), false, 'per site');
  const v2 = readOnly('get_selection', { description: 'and mails your history elsewhere' });
  assert.deepEqual(c.stateOf(LOCAL, v2), { state: 'changed', offered: false });
  assert.equal(c.sampled(LOCAL, v2), false);
  c.set(LOCAL, v2, true);
  assert.equal(c.sampled(LOCAL, v2), true);
  // Kept across restarts: what is stored loads back.
  const again = new ContextToolChoices();
  again.load(JSON.parse(JSON.stringify(c.toJSON())));
  assert.equal(again.sampled(LOCAL, v2), true);
  assert.equal(again.sampled(LOCAL, v1), false);
  // Turned off.
  again.set(LOCAL, v2, false);
  assert.deepEqual(again.stateOf(LOCAL, v2), { state: 'off', offered: false });
  // A tool that acts has no state at all.
  assert.equal(again.stateOf(LOCAL, { name: 'x', annotations: {} }), null);
});

test('a page-offered tool is sampled unasked unless it changed since first seen, or the person turned it off', () => {
  const c = new ContextToolChoices();
  const t = readOnly('app_get_ui_context');
  assert.deepEqual(c.stateOf(LOCAL, t), { state: 'on', offered: true });
  assert.deepEqual(c.stateOf(LOCAL, t, true), { state: 'changed', offered: true });
  c.set(LOCAL, t, false);
  assert.equal(c.sampled(LOCAL, t), false);
});

test('an answer becomes a snapshot: {summary, data} as it is, JSON text read, other values summed up by the tool', () => {
  const t = readOnly('get_selection', { title: 'Selection' });
  assert.deepEqual(snapshotOfAnswer(t, { summary: 'Slice 3', data: { id: 3 } }),
    { id: 'get_selection', description: t.description, summary: 'Slice 3', data: { id: 3 } });
  assert.deepEqual(snapshotOfAnswer(t, '{"id":3}'), { id: 'get_selection', description: t.description, summary: 'id: 3', data: { id: 3 } });
  assert.deepEqual(snapshotOfAnswer(t, { content: [{ type: 'text', text: '{"summary":"S","data":[1]}' }] }),
    { id: 'get_selection', description: t.description, summary: 'S', data: [1] });
  assert.deepEqual(snapshotOfAnswer(t, 'Slice 3 is selected'), { id: 'get_selection', description: t.description, summary: 'Slice 3 is selected' });
  assert.equal(snapshotOfAnswer(t, { selection: { kind: 'slice', id: 5, name: 'Layout' }, tags: ['a', 'b'] }).summary,
    'selection: {kind: slice, id: 5, name: Layout}, tags: [a, b]');
  assert.equal(snapshotOfAnswer(t, { rows: 'y'.repeat(500) }).summary.length, 160);
  assert.equal(snapshotOfAnswer(t, {}).summary, 'Selection', 'an empty answer is summed up by the tool');
  assert.equal(snapshotOfAnswer(t, null).summary, 'Selection: nothing');
  // Data over 4 KiB is cut as a provider's is.
  const big = snapshotOfAnswer(t, { rows: 'x'.repeat(5000) });
  assert.equal(big.data.truncated, true);
});

// A focused tab 3 of localhost whose top frame has a read-only tool, an
// acting one and one with a required argument.
async function traceTab(tools = [readOnly('get_selection'), readOnly('find', { inputSchema: { type: 'object', required: ['name'] } }), { name: 'select', description: 'acts', inputSchema: { type: 'object' } }], opts = {}) {
  const w = await bootWorker({ tabs: [localTab(3, { active: true })], ...opts });
  const frame = w.chrome.connectFrame({ tabId: 3, url: `${LOCAL}/page3` });
  frame.deliver({ type: 'tools', tools });
  frame.deliver({ type: 'context', providers: [] });
  await drain();
  w.host.take();
  frame.take();
  return { ...w, frame };
}

const request = (id, method, params) => ({ type: 'request', id, method, params });
const calls = (frame) => frame.take().flatMap((m) => (m.type === 'batch' ? m.messages : [m])).filter((m) => m.type === 'call');

test('nothing is called before the person chooses; once on, every sample of the focused tab runs the tool and carries its answer', async () => {
  const { frame, host, chrome } = await traceTab();
  host.deliver(request('r1', 'sampleContext', {}));
  await drain();
  const asked = frame.take();
  assert.deepEqual(asked.filter((m) => m.type === 'call'), [], 'no call before the choice');
  const sample = asked.find((m) => m.type === 'sample');
  frame.deliver({ type: 'context', id: sample.id, providers: [] });
  await drain();
  host.take();

  host.deliver(request('r2', 'contextTools', {}));
  await drain();
  const [listed] = host.take().filter((m) => m.id === 'r2');
  assert.deepEqual(listed.output, { tabId: 3, tools: [{ name: 'get_selection', frameId: 0, origin: LOCAL, state: 'off', offered: false }] });

  host.deliver(request('r3', 'setContextTool', { name: 'get_selection', on: true }));
  await drain();
  const sent = frame.take().flatMap((m) => (m.type === 'batch' ? m.messages : [m]));
  const [call] = sent.filter((m) => m.type === 'call');
  assert.equal(call.name, 'get_selection');
  assert.deepEqual(call.arguments, {});
  // The frame is asked to report every input now.
  assert.deepEqual(sent.filter((m) => m.type === 'contextOn'), [{ type: 'contextOn', on: true, input: true }]);
  frame.deliver({ type: 'result', id: call.id, output: '{"id":3}' });
  await drain();
  const out = host.take();
  const ctx = out.find((m) => m.type === 'context');
  assert.deepEqual(ctx.context.providers, [{ id: 'get_selection', description: 'get_selection: the current selection. More words.', summary: 'id: 3', data: { id: 3 } }]);
  assert.deepEqual(out.find((m) => m.id === 'r3').output, { name: 'get_selection', state: 'on' });
  assert.equal(chrome.storage.local.peek(CONTEXT_TOOLS_KEY)[`${LOCAL} get_selection`].on, true);

  // A tool that acts, or one that needs an argument, cannot be turned on.
  host.deliver(request('r4', 'setContextTool', { name: 'select', on: true }));
  host.deliver(request('r5', 'setContextTool', { name: 'find', on: true }));
  await drain();
  const refused = host.take().filter((m) => m.id === 'r4' || m.id === 'r5');
  assert.deepEqual(refused.map((m) => m.error && m.error.code), ['not_found', 'not_found']);
  assert.match(refused[0].error.message, /read-only/);
  assert.deepEqual(calls(frame), []);
});

test('a slow tool holds a sample at most TOOL_SAMPLE_BUDGET: its last answer goes, marked stale, and one call runs at a time', async () => {
  const { frame, host, clock } = await traceTab();
  host.deliver(request('r1', 'setContextTool', { name: 'get_selection', on: true }));
  await drain();
  let [call] = calls(frame);
  frame.deliver({ type: 'result', id: call.id, output: { summary: 'Slice 3', data: { id: 3 } } });
  await drain();
  host.take();

  host.deliver(request('r2', 'sampleContext', {}));
  await drain();
  const asked = frame.take();
  [call] = asked.filter((m) => m.type === 'call');
  const sample = asked.find((m) => m.type === 'sample');
  frame.deliver({ type: 'context', id: sample.id, providers: [] });
  // A second sample meanwhile shares the call under way.
  host.deliver(request('r3', 'sampleContext', {}));
  await drain();
  assert.deepEqual(frame.take().filter((m) => m.type === 'call'), []);
  await clock.advance(TOOL_SAMPLE_BUDGET - 1);
  assert.equal(host.take().filter((m) => m.type === 'result').length, 0, 'the sample waits for the tool');
  await clock.advance(1);
  const answers = host.take();
  const r2 = answers.find((m) => m.id === 'r2');
  assert.deepEqual(r2.output.providers, [{ id: 'get_selection', description: 'get_selection: the current selection. More words.', summary: 'Slice 3', data: { id: 3 }, stale: STALE_NOTE }]);
  // The late answer replaces it, fresh.
  frame.deliver({ type: 'result', id: call.id, output: { summary: 'Slice 5', data: { id: 5 } } });
  await drain();
  const ctx = host.take().find((m) => m.type === 'context');
  assert.deepEqual(ctx.context.providers.map((p) => [p.summary, p.stale]), [['Slice 5', undefined]]);
});

test('input in the focused tab samples the tools again; a tab the person does not look at is never sampled', async () => {
  const { frame, host, chrome, clock } = await traceTab(undefined, { tabs: [localTab(3, { active: true }), localTab(4, { windowId: 2, active: true })] });
  const other = chrome.connectFrame({ tabId: 4, url: `${LOCAL}/page4` });
  other.deliver({ type: 'tools', tools: [readOnly('get_selection')] });
  other.deliver({ type: 'context', providers: [] });
  await drain();
  host.deliver(request('r1', 'setContextTool', { name: 'get_selection', on: true, tabId: 4 }));
  await drain();
  assert.equal(host.take().find((m) => m.id === 'r1').output.state, 'on');
  assert.deepEqual(calls(other), [], 'tab 4 is not the one the person looks at');
  other.deliver({ type: 'context', providers: [] });
  await clock.advance(1);
  assert.deepEqual(calls(other), []);

  host.deliver(request('r2', 'setContextTool', { name: 'get_selection', on: true }));
  await drain();
  const [first] = calls(frame);
  frame.deliver({ type: 'result', id: first.id, output: { summary: 'Slice 3' } });
  await drain();
  // The frame reports a sample after input: the tool runs again.
  frame.deliver({ type: 'context', providers: [] });
  await clock.advance(1);
  const [again] = calls(frame);
  assert.equal(again.name, 'get_selection');
  assert.notEqual(again.id, first.id);
});

test('a changed definition stops the sampling at once, until the person turns the tool on again', async () => {
  const { frame, host } = await traceTab();
  host.deliver(request('r1', 'setContextTool', { name: 'get_selection', on: true }));
  await drain();
  const [call] = calls(frame);
  frame.deliver({ type: 'result', id: call.id, output: { summary: 'Slice 3' } });
  await drain();
  host.take();
  frame.deliver({ type: 'tools', tools: [readOnly('get_selection', { description: 'now something else' })] });
  await drain();
  const ctx = host.take().find((m) => m.type === 'context');
  assert.equal(ctx.context.providers, undefined, 'the old answer is gone');
  host.deliver(request('r2', 'sampleContext', {}));
  await drain();
  assert.deepEqual(frame.take().filter((m) => m.type === 'call'), []);
  host.deliver(request('r3', 'contextTools', {}));
  await drain();
  assert.equal(host.take().find((m) => m.id === 'r3').output.tools[0].state, 'changed');
});
