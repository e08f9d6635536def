import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Registry } from '../lib/registry.js';
import { DEFAULT_ALLOW_LIST, compileAllowList } from '../lib/sites.js';

const LOCAL = 'http://127.0.0.1:8080';
const OTHER = 'https://example.com';

function newRegistry(list = DEFAULT_ALLOW_LIST) {
  return new Registry({ allows: compileAllowList(list).allows });
}

function tab(id, url, extra = {}) {
  return { id, windowId: 1, active: false, url, title: `tab ${id}`, ...extra };
}

const echo = { name: 'echo', description: 'Echoes.', inputSchema: { type: 'object' } };
const find = { name: 'find', title: 'Find', description: 'Finds.', annotations: { readOnlyHint: true } };

test('state lists http(s) tabs with allowed and focused, and only allowed tools', () => {
  const r = newRegistry();
  r.setFocusedWindow(1);
  r.upsertTab(tab(1, `${LOCAL}/index.html`, { active: true }));
  r.upsertTab(tab(2, `${OTHER}/`));
  r.upsertTab(tab(3, 'chrome://newtab/'));
  r.setFrame(1, 0, LOCAL, [echo, find]);
  r.setFrame(1, 5, OTHER, [echo]); // an allowed tab, a frame that is not
  r.setFrame(2, 0, OTHER, [echo]); // a tab that is not allowed
  const s = r.snapshot();
  assert.deepEqual(s.state.tabs, [
    { id: 1, windowId: 1, active: true, url: `${LOCAL}/index.html`, title: 'tab 1', origin: LOCAL, allowed: true, focused: true },
    { id: 2, windowId: 1, active: false, url: `${OTHER}/`, title: 'tab 2', origin: OTHER, allowed: false, focused: false },
  ]);
  assert.deepEqual(s.state.tools, [
    { tabId: 1, frameId: 0, origin: LOCAL, name: 'echo', description: 'Echoes.', inputSchema: { type: 'object' } },
    { tabId: 1, frameId: 0, origin: LOCAL, name: 'find', title: 'Find', description: 'Finds.', annotations: { readOnlyHint: true } },
  ]);
  assert.deepEqual(r.changes(), []);
});

test('a frame of an allowed site inside a tab that is not allowed stays hidden', () => {
  const r = newRegistry();
  r.upsertTab(tab(4, `${OTHER}/embed`));
  r.setFrame(4, 3, LOCAL, [echo]);
  assert.deepEqual(r.snapshot().state.tools, []);
  assert.equal(r.route(4, 3, 'echo').code, 'not_allowed');
});

test('changes: tools added, changed and removed', () => {
  const r = newRegistry();
  r.upsertTab(tab(1, LOCAL));
  r.snapshot();
  r.setFrame(1, 0, LOCAL, [echo]);
  assert.deepEqual(r.changes(), [{ type: 'toolsAdded', tools: [{ tabId: 1, frameId: 0, origin: LOCAL, ...echo }] }]);
  r.setFrame(1, 0, LOCAL, [{ ...echo, description: 'Echoes, now better.' }, find]);
  const c = r.changes();
  assert.equal(c.length, 1);
  assert.deepEqual(c[0].tools.map((t) => [t.name, t.description]), [['echo', 'Echoes, now better.'], ['find', 'Finds.']]);
  r.setFrame(1, 0, LOCAL, [find]);
  assert.deepEqual(r.changes(), [{ type: 'toolsRemoved', removed: [{ tabId: 1, frameId: 0, name: 'echo' }] }]);
  r.removeFrame(1, 0);
  assert.deepEqual(r.changes(), [{ type: 'toolsRemoved', removed: [{ tabId: 1, frameId: 0, name: 'find' }] }]);
  assert.deepEqual(r.changes(), []);
});

test('changes: a closed tab is one tabRemoved, its tools go with it', () => {
  const r = newRegistry();
  r.upsertTab(tab(1, LOCAL));
  r.setFrame(1, 0, LOCAL, [echo, find]);
  r.snapshot();
  r.removeTab(1);
  assert.deepEqual(r.changes(), [{ type: 'tabRemoved', tabId: 1 }]);
});

test('changes: navigating to another site updates the tab and hides its tools', () => {
  const r = newRegistry();
  r.upsertTab(tab(1, LOCAL));
  r.setFrame(1, 0, LOCAL, [echo]);
  r.snapshot();
  r.upsertTab({ id: 1, url: `${OTHER}/page`, title: 'Other' });
  const c = r.changes();
  assert.equal(c.length, 2);
  assert.equal(c[0].type, 'tabUpdated');
  assert.equal(c[0].tab.allowed, false);
  assert.equal(c[0].tab.title, 'Other');
  assert.deepEqual(c[1], { type: 'toolsRemoved', removed: [{ tabId: 1, frameId: 0, name: 'echo' }] });
  // leaving the web altogether removes the tab
  r.upsertTab({ id: 1, url: 'chrome://settings/' });
  assert.deepEqual(r.changes(), [{ type: 'tabRemoved', tabId: 1 }]);
});

test('changes: focus and activation move between tabs', () => {
  const r = newRegistry();
  r.upsertTab(tab(1, LOCAL, { active: true, windowId: 1 }));
  r.upsertTab(tab(2, LOCAL, { active: false, windowId: 1 }));
  r.upsertTab(tab(3, LOCAL, { active: true, windowId: 2 }));
  r.setFocusedWindow(1);
  r.snapshot();
  r.activate(1, 2);
  const c = r.changes();
  assert.deepEqual(c.map((m) => [m.tab.id, m.tab.active, m.tab.focused]), [[1, false, false], [2, true, true]]);
  r.setFocusedWindow(2);
  assert.deepEqual(r.changes().map((m) => [m.tab.id, m.tab.focused]), [[2, false], [3, true]]);
  r.setFocusedWindow(-1); // focus left the browser: the last focused window stays
  assert.deepEqual(r.changes(), []);
});

test('changes: the allow list changing shows and hides tools', () => {
  const r = newRegistry();
  r.upsertTab(tab(1, `${OTHER}/`));
  r.setFrame(1, 0, OTHER, [echo]);
  r.snapshot();
  r.setAllows(compileAllowList([...DEFAULT_ALLOW_LIST, OTHER]).allows);
  const c = r.changes();
  assert.deepEqual(c.map((m) => m.type), ['tabUpdated', 'toolsAdded']);
  assert.equal(c[0].tab.allowed, true);
  r.setAllows(compileAllowList([]).allows);
  assert.deepEqual(r.changes().map((m) => m.type), ['tabUpdated', 'toolsRemoved']);
});

test('upsertTab keeps what a partial update leaves out', () => {
  const r = newRegistry();
  r.upsertTab(tab(1, LOCAL, { active: true, windowId: 9 }));
  r.upsertTab({ id: 1, title: 'new title' }); // e.g. sender.tab without url
  assert.deepEqual(r.tabs.get(1), { id: 1, windowId: 9, active: true, url: LOCAL, title: 'new title' });
  r.upsertTab({ id: 1, url: '', pendingUrl: `${LOCAL}/next` });
  assert.equal(r.tabs.get(1).url, `${LOCAL}/next`);
  r.upsertTab({ id: -1, url: LOCAL });
  r.upsertTab(null);
  assert.equal(r.tabs.size, 1);
});

test('route names the reason a call cannot go through', () => {
  const r = newRegistry();
  r.upsertTab(tab(1, LOCAL));
  r.upsertTab(tab(2, `${OTHER}/`));
  r.setFrame(1, 0, LOCAL, [echo]);
  r.setFrame(1, 7, 'null', [echo]);
  r.setFrame(2, 0, OTHER, [echo]);
  assert.equal(r.route(1, 0, 'echo'), null);
  assert.equal(r.route(9, 0, 'echo').code, 'not_found');
  assert.equal(r.route(1, 3, 'echo').code, 'not_found');
  assert.equal(r.route(1, 0, 'nope').code, 'not_found');
  assert.match(r.route(1, 0, 'nope').message, /no tool "nope"/);
  assert.equal(r.route(2, 0, 'echo').code, 'not_allowed');
  assert.match(r.route(2, 0, 'echo').message, /https:\/\/example.com is not on the bridge's allow list/);
  assert.equal(r.route(1, 7, 'echo').code, 'not_allowed');
});
