import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UI_PORT } from '../lib/protocol.js';
import { Agents } from '../worker/agents.js';
import { FakePort } from './fakes/chrome.js';
import { bootWorker, drain } from './fakes/worker.js';
import { golden } from './golden.js';

test('agents: the host\'s sessions, the agent behind a call', () => {
  let changes = 0;
  const agents = new Agents({ changed: () => changes++ });
  const { message } = golden('sessions').find((c) => c.name === 'an agent and a command');
  agents.apply(message.sessions);
  assert.deepEqual(agents.list(), [
    { session: 's3', agent: 'a1', name: 'claude-code', version: '2.1.0', pid: 777, command: false },
    { session: 's4', agent: '', name: 'webmcp-shim', version: '', pid: 778, command: true },
  ]);
  agents.noteCall('s3.17', 'a1');
  assert.equal(agents.forCall('s3.17').name, 'claude-code');
  assert.equal(agents.nameFor('s3.17'), 'claude-code 2.1.0');
  assert.equal(agents.nameFor('s4.1'), 'webmcp-shim');
  assert.equal(agents.nameFor('s9.1'), 'an agent');
  assert.equal(agents.forCall('nodot'), undefined);
  // A call of s3 that names no agent (or one s3 does not list) is its shim's.
  assert.equal(agents.nameFor('s3.18'), 'webmcp-shim');
  assert.equal(changes, 1);
  agents.apply(message.sessions); // the same list again: no change
  assert.equal(changes, 1);
  agents.clear();
  assert.deepEqual(agents.list(), []);
  assert.equal(changes, 2);
  agents.apply([{ session: '' }, null, { session: 's5', client: { name: 'x'.repeat(500) } }]);
  assert.equal(agents.list().length, 1);
  assert.equal(agents.list()[0].name.length, 100);
});

test('agents: one shim serving two MCP sessions lists both, and drops the one that leaves', () => {
  let changes = 0;
  const agents = new Agents({ changed: () => changes++ });
  const two = golden('client').find((c) => c.name === 'two agents over HTTP').message.client;
  agents.apply([{ session: 's7', client: two }]);
  assert.deepEqual(agents.list().map((a) => [a.agent, a.name, a.version]), [
    ['a1', 'claude-code', '2.1.0'],
    ['a3', 'mcp-inspector', '2.12.0'],
  ]);
  agents.noteCall('s7.1', 'a1');
  agents.noteCall('s7.2', 'a3');
  assert.equal(agents.nameFor('s7.1'), 'claude-code 2.1.0');
  assert.equal(agents.nameFor('s7.2'), 'mcp-inspector 2.12.0');
  assert.notEqual(agents.forCall('s7.1'), agents.forCall('s7.2'));
  agents.apply([{ session: 's7', client: { ...two, agents: two.agents.slice(0, 1) } }]);
  assert.deepEqual(agents.list().map((a) => a.agent), ['a1']);
  assert.equal(changes, 2);
  // The last one left: the shim stays, as one serving no agent.
  agents.apply([{ session: 's7', client: golden('client').find((c) => c.name === 'the last agent left').message.client }]);
  assert.deepEqual(agents.list().map((a) => [a.agent, a.name, a.command]), [['', 'webmcp-shim', true]]);
  // Many agents: at most MAX_AGENTS_PER_SHIM of one shim.
  const many = Array.from({ length: 100 }, (_, i) => ({ id: `a${i}`, name: 'n' }));
  agents.apply([{ session: 's8', client: { name: 'webmcp-shim', agents: many } }]);
  assert.equal(agents.list().length, 64);
});

test('the worker takes the host\'s sessions, tells its pages, and forgets them with the link', async () => {
  const { chrome, worker } = await bootWorker();
  const page = new FakePort(chrome.runtime, UI_PORT, { id: chrome.runtime.id, url: chrome.runtime.getURL('ui/panel.html') });
  chrome.runtime.onConnect.emit(page);
  const host = chrome.runtime.natives.at(-1);
  host.deliver(golden('sessions')[0].message);
  await drain();
  assert.deepEqual(worker.agents.list().map((a) => a.name), ['claude-code', 'webmcp-shim']);
  assert.deepEqual(page.posted, [{ type: 'changed', topic: 'agents' }]);
  host.close('Native host has exited.');
  await drain();
  assert.deepEqual(worker.agents.list(), []);
});
