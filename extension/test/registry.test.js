import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_ALLOW_LIST, compileAllowList } from '../lib/allowlist.js';
import { normalizeFrameContext, normalizeProviderDefs } from '../lib/contexts.js';
import { normalizeTools } from '../lib/protocol.js';
import { MAX_FRAME_TOOLS, MAX_TAB_TOOL_BYTES, Registry } from '../lib/registry.js';
import { golden, goldenCase } from './golden.js';

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
    // not allowed: no url or title leaves the browser
    { id: 2, windowId: 1, active: false, url: '', title: '', origin: OTHER, allowed: false, focused: false },
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
  assert.equal(c[0].tab.origin, OTHER);
  assert.equal(c[0].tab.title, '', 'a tab of a site not allowed goes without its title');
  assert.equal(c[0].tab.url, '', 'a tab of a site not allowed goes without its url');
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

test('upsertTab keeps the window and activity a partial update leaves out, and forgets a hidden address', () => {
  const r = newRegistry();
  r.upsertTab(tab(1, LOCAL, { active: true, windowId: 9 }));
  assert.equal(r.upsertTab({ id: 1, url: LOCAL, title: 'new title' }), false, 'the same address');
  assert.deepEqual(r.tabs.get(1), { id: 1, windowId: 9, active: true, url: LOCAL, title: 'new title' });
  r.changes();
  // The browser leaves url and title out of a tab of a site the extension
  // has no grant for: the tab went there, whatever it showed before.
  assert.equal(r.upsertTab({ id: 1, status: 'loading' }), true);
  assert.deepEqual(r.tabs.get(1), { id: 1, windowId: 9, active: true, url: '', title: '' });
  assert.deepEqual(r.changes().map((m) => [m.type, m.tabId]), [['tabRemoved', 1]], 'agents no longer see it');
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

const selSnap = { id: 'trace.Timeline#selection', summary: 'Selected slice', data: { type: 'slice', id: 3 } };
const vpSnap = { id: 'trace.Timeline#viewport', summary: 'Viewing', data: { start: 0, end: 220 } };
const defs = [{ id: selSnap.id }, { id: vpSnap.id }];

test('context: a tab gets one once its top frame was sampled; only changes are sent', () => {
  const r = newRegistry();
  r.upsertTab(tab(1, `${LOCAL}/`));
  r.setFrame(1, 0, LOCAL, []);
  r.snapshot();
  assert.equal(r.tabContext(1), null);
  r.setFrameProviders(1, 0, defs);
  r.setFrameContext(1, 0, { providers: [vpSnap], ambient: { selection: 'hi' } }, 1000);
  assert.deepEqual(r.changes(), [{ type: 'context', context: { tabId: 1, url: `${LOCAL}/`, title: 'tab 1', ambient: { selection: 'hi' }, providers: [vpSnap], time: 1000 } }]);
  // The same context sampled later: nothing to send.
  r.setFrameContext(1, 0, { providers: [vpSnap], ambient: { selection: 'hi' } }, 2000);
  assert.deepEqual(r.changes(), []);
  r.setFrameContext(1, 0, { providers: [selSnap, vpSnap], ambient: { selection: 'hi' } }, 3000);
  const c = r.changes();
  assert.equal(c.length, 1);
  assert.deepEqual(c[0].context.providers, [selSnap, vpSnap]);
  assert.equal(c[0].context.time, 3000);
  // A provider the frame no longer lists is gone at once, before the next sample.
  r.setFrameProviders(1, 0, [{ id: vpSnap.id }]);
  assert.deepEqual(r.changes()[0].context.providers, [vpSnap]);
  // A title change is a change of the context too.
  r.upsertTab({ id: 1, url: `${LOCAL}/`, title: 'renamed' });
  assert.deepEqual(r.changes().map((m) => m.type === 'context' && m.context.title), [false, 'renamed']);
});

test('context: the state carries contexts of allowed tabs and the pins', () => {
  const r = newRegistry();
  r.upsertTab(tab(1, `${LOCAL}/`));
  r.upsertTab(tab(2, `${OTHER}/`));
  for (const id of [1, 2]) {
    r.setFrame(id, 0, id === 1 ? LOCAL : OTHER, []);
    r.setFrameProviders(id, 0, defs);
    r.setFrameContext(id, 0, { providers: [selSnap] }, 5);
  }
  const pin = { providerId: selSnap.id, summary: 's', tabId: 1, pinnedAt: 1 };
  const s = r.snapshot([pin]);
  assert.deepEqual(s.state.contexts, [{ tabId: 1, url: `${LOCAL}/`, title: 'tab 1', providers: [selSnap], time: 5 }]);
  assert.deepEqual(s.state.pins, [pin]);
  assert.deepEqual(r.changes(), [], 'what the state said counts as sent');
  assert.equal(r.snapshot().state.pins, undefined);
});

test('context: sub-frames add providers in frame order, only when their origin is allowed', () => {
  const r = newRegistry();
  r.upsertTab(tab(1, `${LOCAL}/`));
  r.setFrame(1, 0, LOCAL, []);
  r.setFrame(1, 3, OTHER, []);
  r.setFrame(1, 2, 'http://localhost:9', []);
  r.setFrameProviders(1, 0, [{ id: selSnap.id }]);
  r.setFrameProviders(1, 3, [{ id: 'other.P' }]);
  r.setFrameProviders(1, 2, [{ id: 'sub.P' }]);
  r.setFrameContext(1, 3, { providers: [{ id: 'other.P', summary: 'o' }] }, 1);
  r.setFrameContext(1, 2, { providers: [{ id: 'sub.P', summary: 's' }] }, 2);
  assert.equal(r.tabContext(1), null, 'the top frame has not been sampled');
  r.setFrameContext(1, 0, { providers: [selSnap] }, 3);
  assert.deepEqual(r.tabContext(1).providers.map((p) => p.id), [selSnap.id, 'sub.P']);
  assert.equal(r.tabContext(1).time, 3);
  assert.deepEqual(r.providerIds(1), [selSnap.id, 'sub.P']);
  assert.equal(r.contextAllowed(1, 3), false);
  assert.equal(r.contextAllowed(1, 2), true);
});

test('context: a navigation, a blocked site and a closed tab take the context away', () => {
  const r = newRegistry();
  r.upsertTab(tab(1, `${LOCAL}/`));
  r.setFrame(1, 0, LOCAL, []);
  r.setFrameProviders(1, 0, defs);
  r.setFrameContext(1, 0, { providers: [selSnap] }, 1);
  r.snapshot();
  // The new document of the frame: its old providers and sample go with the old one.
  r.removeFrame(1, 0);
  r.setFrame(1, 0, LOCAL, []);
  const [gone] = r.changes();
  assert.equal(gone.type, 'context');
  assert.deepEqual(Object.keys(gone.context), ['tabId', 'url', 'title', 'time']);
  r.setFrameContext(1, 0, { providers: [] }, 2);
  assert.deepEqual(r.changes().map((m) => m.context.providers), [undefined]);
  assert.deepEqual(r.changes(), []);
  // Tools come and go without touching the context.
  r.setFrameProviders(1, 0, defs);
  r.setFrameContext(1, 0, { providers: [selSnap] }, 3);
  r.changes();
  r.setFrame(1, 0, LOCAL, [echo]);
  assert.deepEqual(r.changes().map((m) => m.type), ['toolsAdded']);
  // The allow list drops the site: an empty context without the page's url.
  r.setAllows(compileAllowList([]).allows);
  const blocked = r.changes();
  assert.deepEqual(blocked.map((m) => m.type), ['tabUpdated', 'toolsRemoved', 'context']);
  assert.deepEqual(Object.keys(blocked[2].context), ['tabId', 'time']);
  r.setAllows(compileAllowList(DEFAULT_ALLOW_LIST).allows);
  assert.deepEqual(r.changes().at(-1).context.providers, [selSnap]);
  // A closed tab: tabRemoved says it all.
  r.removeTab(1);
  assert.deepEqual(r.changes(), [{ type: 'tabRemoved', tabId: 1 }]);
});

test('focusedTab is the active tab of the last focused window', () => {
  const r = newRegistry();
  r.upsertTab(tab(1, LOCAL, { active: true, windowId: 1 }));
  r.upsertTab(tab(2, LOCAL, { active: true, windowId: 2 }));
  assert.equal(r.focusedTab(), null);
  r.setFocusedWindow(2);
  assert.equal(r.focusedTab().id, 2);
  r.activate(2, 3);
  assert.equal(r.focusedTab(), null, 'tab 3 is not known yet');
});

// ---- the golden messages of testdata/protocol (shared with the Go tests) ----

// The registry behind the golden messages: tab 7 (an allowed, focused
// localhost tab) with a tool in its top frame and one in frame 3 (another
// allowed origin), tab 9 (a site that is not allowed), and the UI context
// of tab 7's top frame.
function goldenRegistry() {
  const state = goldenCase('state', 'tabs, tools of the top frame and of frame 3, a context, a pin').message.state;
  const r = newRegistry();
  r.setFocusedWindow(1);
  for (const t of state.tabs) {
    const url = t.allowed ? t.url : `${t.origin}/private`;
    r.upsertTab({ id: t.id, windowId: t.windowId, active: t.active, url, title: t.allowed ? t.title : 'Private' });
  }
  for (const frameId of [...new Set(state.tools.map((t) => t.frameId))]) {
    const tools = state.tools.filter((t) => t.frameId === frameId);
    // What the page reported, checked as the worker checks it.
    const raw = tools.map(({ tabId, frameId: f, origin, ...tool }) => ({ ...tool, execute() {} })); // eslint-disable-line no-unused-vars
    r.setFrame(7, frameId, tools[0].origin, normalizeTools(raw).tools);
  }
  const ctx = state.contexts[0];
  r.setFrameProviders(7, 0, normalizeProviderDefs(ctx.providers.map(({ id, description }) => ({ id, description }))));
  r.setFrameContext(7, 0, normalizeFrameContext({ providers: ctx.providers, ambient: ctx.ambient }, true), ctx.time);
  return { r, state };
}

test('golden: the registry\'s state message', () => {
  const { r, state } = goldenRegistry();
  const want = goldenCase('state', 'tabs, tools of the top frame and of frame 3, a context, a pin').message;
  assert.equal(JSON.stringify(r.snapshot(state.pins)), JSON.stringify(want));
  assert.deepEqual(r.changes(), []);
  assert.equal(JSON.stringify(newRegistry().snapshot([])), JSON.stringify(goldenCase('state', 'empty').message));
});

test('golden: the registry\'s incremental messages', (t) => {
  const { r } = goldenRegistry();
  const tools = goldenCase('toolsAdded', 'a top-frame tool with every field, and a tool of frame 3').message.tools;
  // Tabs and tools, step by step.
  const fresh = newRegistry();
  fresh.setFocusedWindow(1);
  fresh.snapshot();
  fresh.upsertTab({ id: 7, windowId: 1, active: true, url: 'http://localhost:8080/', title: 'Trace viewer' });
  assert.equal(JSON.stringify(fresh.changes()), JSON.stringify([goldenCase('tabUpdated', 'an allowed, focused tab').message]));
  fresh.upsertTab({ id: 9, windowId: 1, active: false, url: 'https://example.com/private', title: 'Private' });
  assert.equal(JSON.stringify(fresh.changes()), JSON.stringify([goldenCase('tabUpdated', 'a tab that is not allowed').message]));
  for (const frameId of [0, 3]) {
    const mine = tools.filter((x) => x.frameId === frameId);
    const raw = mine.map(({ tabId, frameId: f, origin, ...tool }) => tool); // eslint-disable-line no-unused-vars
    fresh.setFrame(7, frameId, mine[0].origin, normalizeTools(raw).tools);
  }
  assert.equal(JSON.stringify(fresh.changes()), JSON.stringify([goldenCase('toolsAdded', 'a top-frame tool with every field, and a tool of frame 3').message]));
  fresh.setFrame(7, 0, 'http://localhost:8080', []);
  fresh.setFrame(7, 3, 'http://127.0.0.1:9000', []);
  assert.equal(JSON.stringify(fresh.changes()), JSON.stringify([goldenCase('toolsRemoved', 'a top-frame tool and a tool of frame 3').message]));
  fresh.removeTab(7);
  assert.equal(JSON.stringify(fresh.changes()), JSON.stringify([goldenCase('tabRemoved', 'tab 7').message]));

  // Context: a change, then the page's providers go.
  r.snapshot();
  const ctx = goldenCase('context', 'providers, a left-out provider, ambient context').message;
  r.setFrameContext(7, 0, normalizeFrameContext({ providers: [], ambient: ctx.context.ambient }, true), 1);
  r.changes();
  r.setFrameContext(7, 0, normalizeFrameContext({ providers: ctx.context.providers, ambient: ctx.context.ambient }, true), ctx.context.time);
  assert.equal(JSON.stringify(r.changes()), JSON.stringify([ctx]));
  const gone = goldenCase('context', 'no providers any more').message;
  t.mock.method(Date, 'now', () => gone.context.time);
  r.removeFrame(7, 0);
  assert.equal(JSON.stringify(r.changes().filter((m) => m.type === 'context')), JSON.stringify([gone]));
  assert.ok(golden('context').length >= 2);
});

test('caps: at most MAX_FRAME_TOOLS tools per frame and MAX_TAB_TOOL_BYTES of tools per tab; what is left out is noted, other tabs are untouched', () => {
  const r = newRegistry();
  r.upsertTab(tab(1, `${LOCAL}/`));
  r.upsertTab(tab(2, `${LOCAL}/other`));
  // 1,200 small tools in one frame: the first 1,000 stay.
  const many = Array.from({ length: MAX_FRAME_TOOLS + 200 }, (_, i) => ({ name: `t${i}`, description: 'd' }));
  assert.deepEqual(r.setFrame(1, 0, LOCAL, many, ['tool bad: no name']), [
    'tool bad: no name',
    '200 tools past the first 1000 of this frame (at most 1000 tools per frame)',
  ]);
  // Another frame of the same tab: 12 tools of 1,000 KiB of JSON each (ü is 2 bytes); with the first
  // frame's 1,000 small tools counted first, 8 fit in 8 MiB.
  const big = Array.from({ length: 12 }, (_, i) => ({ name: `big${i}`, description: 'ü'.repeat(500 << 10) }));
  assert.deepEqual(r.setFrame(1, 3, LOCAL, big), [`4 tools that would take the tab's tools past ${MAX_TAB_TOOL_BYTES} bytes of JSON (at most 8 MiB of tools per tab)`]);
  assert.deepEqual(r.snapshot().state.tools.filter((t) => t.frameId === 3).map((t) => t.name), big.slice(0, 8).map((t) => t.name));
  assert.deepEqual(r.problems(1).map((p) => p.frameId), [0, 0, 3]);
  // Another tab has its own 8 MiB.
  assert.deepEqual(r.setFrame(2, 0, LOCAL, big.slice(0, 7)), []);
  assert.deepEqual(r.problems(2), []);
  // A frame that reports again within the caps has nothing left out.
  assert.deepEqual(r.setFrame(1, 0, LOCAL, many.slice(0, 10)), []);
  assert.deepEqual(r.problems(1).map((p) => p.frameId), [3]);
});
