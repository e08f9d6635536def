import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileAllowList, DEFAULT_ALLOW_LIST } from '../lib/allowlist.js';
import { Code } from '../lib/protocol.js';
import { Registry } from '../lib/registry.js';
import { LOAD_WAIT, Opener, TOOLS_WAIT, pageURL } from '../worker/opener.js';
import { fakeChrome } from './fakes/chrome.js';
import { FakeClock, drain } from './fakes/clock.js';

// An opener over a fake chrome whose tabs.create makes a tab the test then
// loads; agents: s1 is pid 100, s2 pid 200.
function setup({ askOpen, agentOf = () => '' } = {}) {
  const chrome = fakeChrome();
  const clock = new FakeClock();
  const registry = new Registry({ allows: compileAllowList(DEFAULT_ALLOW_LIST).allows });
  // A site added from the consent window joins the allow list, as worker/sites.js makes it.
  const list = [...DEFAULT_ALLOW_LIST];
  chrome.sitesAdded = [];
  const allowSite = async (origin) => {
    chrome.sitesAdded.push(origin);
    list.push(origin);
    registry.setAllows(compileAllowList(list).allows);
  };
  let next = 50;
  chrome.tabs.created = [];
  const made = new Map();
  chrome.tabs.create = async (opts) => {
    const tab = { id: next++, windowId: opts.windowId, url: opts.url, title: '', active: opts.active, status: 'loading' };
    chrome.tabs.created.push({ ...opts, id: tab.id });
    made.set(tab.id, tab);
    registry.upsertTab(tab);
    return { ...tab };
  };
  const get = chrome.tabs.get;
  chrome.tabs.get = async (id) => (made.has(id) ? { ...made.get(id) } : get(id));
  chrome.tabs.updates = [];
  chrome.tabs.update = async (id, info) => chrome.tabs.updates.push([id, info]);
  chrome.tabs.removed = [];
  chrome.tabs.remove = async (id) => chrome.tabs.removed.push(id);
  const pids = { s1: 100, s2: 200 };
  const agents = {
    forCall: (id) => ({ session: id.split('.')[0], pid: pids[id.split('.')[0]], agent: agentOf(id) }),
    nameFor: (id) => `agent ${id.split('.')[0]}`,
  };
  const opener = new Opener({ chrome, registry, agents, askOpen, allowSite, clock: clock.api, log: { warn() {} } });
  // The page loads (at url: where it landed) and its frame reports tools.
  const load = async (tabId, tools = [], { url = 'http://localhost:8765/', title = 'Trace viewer' } = {}) => {
    for (let i = 0; i < 100 && !chrome.tabs.created.some((t) => t.id === tabId); i++) await drain();
    assert.ok(chrome.tabs.created.some((t) => t.id === tabId), `tab ${tabId} was not opened`);
    Object.assign(made.get(tabId), { status: 'complete', url, title });
    registry.upsertTab({ id: tabId, title, url });
    registry.setFrame(tabId, 0, new URL(url).origin, tools.map((name) => ({ name, description: name })));
    chrome.tabs.onUpdated.emit(tabId, { status: 'complete' }, { id: tabId, url, title, status: 'complete' });
    await drain();
  };
  // The tab navigates after its load (a script, a late redirect).
  const navigate = (tabId, url, title) => {
    Object.assign(made.get(tabId), { url, title });
    registry.upsertTab({ id: tabId, title, url });
    chrome.tabs.onUpdated.emit(tabId, { url }, { id: tabId, url, title });
  };
  return { chrome, clock, registry, opener, load, navigate };
}

test('pageURL takes http(s) only', () => {
  assert.equal(pageURL('http://localhost:8765/x').origin, 'http://localhost:8765');
  assert.equal(pageURL(' https://example.com ').url, 'https://example.com/');
  for (const bad of ['file:///etc/passwd', 'javascript:alert(1)', 'chrome://settings', 'data:text/html,hi', 'about:blank', 'nope', '', 42]) {
    const r = pageURL(bad);
    assert.equal(r.code, Code.badRequest, String(bad));
  }
});

test('openPage of an allowed site opens a new tab at once and answers with its tools', async () => {
  const { chrome, opener, load } = setup({ askOpen: async () => assert.fail('an allowed site must not ask') });
  const answer = opener.open('s1.7', { url: 'http://localhost:8765/' });
  await drain();
  assert.equal(chrome.tabs.created.length, 1);
  assert.equal(chrome.tabs.created[0].active, true);
  await load(50, ['select_slice', 'find_slices']);
  const { output } = await answer;
  assert.deepEqual(output, { tabId: 50, url: 'http://localhost:8765/', title: 'Trace viewer', tools: ['find_slices', 'select_slice'] });
});

test('openPage waits, bounded, for tools that come after the load', async () => {
  const { opener, load, registry, clock } = setup();
  const answer = opener.open('s1.7', { url: 'http://localhost:8765/', background: true });
  await drain();
  await load(50, []);
  await clock.advance(300);
  registry.setFrame(50, 0, 'http://localhost:8765', [{ name: 'late', description: 'd' }]);
  await clock.advance(100);
  assert.deepEqual((await answer).output.tools, ['late']);

  const none = opener.open('s1.8', { url: 'http://localhost:8765/empty' });
  await drain();
  await load(51, []);
  await clock.advance(TOOLS_WAIT);
  assert.deepEqual((await none).output.tools, []);
});

test('openPage of a page that never loads answers after LOAD_WAIT', async () => {
  const { opener, clock } = setup();
  const answer = opener.open('s1.7', { url: 'http://localhost:8765/slow' });
  await drain();
  await clock.advance(LOAD_WAIT);
  await clock.advance(TOOLS_WAIT);
  assert.equal((await answer).output.tabId, 50);
});

test('a site not allowed asks the user: deny opens nothing, add allows the site', async () => {
  const asked = [];
  let reply = 'deny';
  const { chrome, opener, load, clock } = setup({ askOpen: async (q) => (asked.push(q), reply) });
  const denied = await opener.open('s2.1', { url: 'https://bank.example/transfer' });
  assert.equal(denied.code, Code.declined);
  assert.match(denied.message, /declined to open https:\/\/bank\.example/);
  assert.equal(chrome.tabs.created.length, 0);
  assert.deepEqual(asked, [{ id: 's2.1', agent: 'agent s2', origin: 'https://bank.example', url: 'https://bank.example/transfer' }]);

  reply = 'add';
  const added = opener.open('s2.2', { url: 'https://bank.example/' });
  await drain();
  assert.deepEqual(chrome.sitesAdded, ['https://bank.example']);
  await load(50, [], { url: 'https://bank.example/' });
  await clock.advance(TOOLS_WAIT);
  assert.equal((await added).output.tabId, 50);

  reply = 'once';
  const once = opener.open('s2.3', { url: 'https://other.example/' });
  await drain();
  await load(51, ['hidden_tool'], { url: 'https://other.example/' });
  const out = (await once).output;
  assert.deepEqual(out.tools, [], 'the tools of a site allowed once stay hidden');
  assert.deepEqual(chrome.sitesAdded, ['https://bank.example'], 'a site allowed once is not added');
});

test('without a consent window, a site not allowed is refused', async () => {
  const { chrome, opener } = setup();
  const r = await opener.open('s1.1', { url: 'https://bank.example/' });
  assert.equal(r.code, Code.notAllowed);
  assert.equal(chrome.tabs.created.length, 0);
});

test('focusTab brings an allowed tab to the front; closeTab closes only what the same agent opened', async () => {
  const { chrome, opener, registry, load } = setup();
  registry.upsertTab({ id: 9, windowId: 1, url: 'http://localhost:1/', title: 'mine' });
  registry.upsertTab({ id: 10, windowId: 1, url: 'https://bank.example/', title: 'bank' });
  assert.deepEqual(await opener.focus({ tabId: 9 }), { output: { tabId: 9 } });
  assert.deepEqual(chrome.tabs.updates, [[9, { active: true }]]);
  assert.equal((await opener.focus({ tabId: 10 })).code, Code.notAllowed);
  assert.equal((await opener.focus({ tabId: 77 })).code, Code.notFound);

  const answer = opener.open('s1.5', { url: 'http://localhost:8765/' });
  await drain();
  await load(50, ['t']);
  await answer;
  assert.equal((await opener.close('s1.6', { tabId: 9 })).code, Code.notAllowed, 'a tab the user opened');
  assert.equal((await opener.close('s2.1', { tabId: 50 })).code, Code.notAllowed, 'another agent\'s tab');
  assert.deepEqual(await opener.close('s1.9', { tabId: 50 }), { output: { tabId: 50 } });
  assert.deepEqual(chrome.tabs.removed, [50]);
});

test('closeTab: the tab is the agent\'s, not its shim\'s, and only until the user uses it or it leaves the site', async () => {
  // s1's calls ending in 1 are its agent a1's, the others a2's (two MCP
  // sessions of one HTTP shim).
  const { chrome, opener, load } = setup({ agentOf: (id) => (id.endsWith('1') ? 'a1' : 'a2') });
  const open = async (id, tabId) => {
    const answer = opener.open(id, { url: 'http://localhost:8765/' });
    await drain();
    await load(tabId, ['t']);
    return answer;
  };
  await open('s1.1', 50);
  assert.equal((await opener.close('s1.2', { tabId: 50 })).code, Code.notAllowed, 'another agent of the same shim');
  // A navigation within the site keeps it the agent's.
  chrome.tabs.onUpdated.emit(50, { url: 'http://localhost:8765/other' }, { id: 50, url: 'http://localhost:8765/other' });
  assert.deepEqual(await opener.close('s1.11', { tabId: 50 }), { output: { tabId: 50 } });

  await open('s1.21', 51);
  chrome.tabs.onUpdated.emit(51, { url: 'https://mail.example/inbox' }, { id: 51, url: 'https://mail.example/inbox' });
  const away = await opener.close('s1.31', { tabId: 51 });
  assert.equal(away.code, Code.notAllowed, 'a tab that went to another site');
  assert.match(away.message, /only the user closes it/);

  // Without the "tabs" permission the new URL comes from the page's top frame.
  await open('s1.61', 52);
  opener.topFrame(52, 'http://localhost:8765');
  opener.topFrame(52, 'https://mail.example');
  assert.equal((await opener.close('s1.71', { tabId: 52 })).code, Code.notAllowed, 'a tab whose top frame is of another site');

  await open('s1.41', 53);
  opener.used(53);
  assert.equal((await opener.close('s1.51', { tabId: 53 })).code, Code.notAllowed, 'a tab the user used');
  assert.deepEqual(chrome.tabs.removed, [50]);
});

// A redirect from an allowed site to one that is not: the page is where it
// landed, and that site is asked about before anything of it leaves.
const START = 'http://127.0.0.1:9999/r?to=https://mail.example/inbox';
const INBOX = { url: 'https://mail.example/inbox?token=SECRET', title: 'Inbox (3) — secret@mail.example' };
const leaks = (answer) => /SECRET|inbox|Inbox/.test(JSON.stringify(answer));

test('a redirect to a site not allowed asks; Deny closes the tab and tells nothing of the page', async () => {
  const asked = [];
  let answered;
  const { chrome, opener, load } = setup({ askOpen: (q) => (asked.push(q), new Promise((r) => { answered = r; })) });
  const answer = opener.open('s1.1', { url: START });
  await drain();
  await load(50, ['read_mail'], INBOX);
  let done = false;
  answer.then(() => { done = true; });
  await drain();
  assert.equal(done, false, 'nothing is answered before the user is asked');
  assert.deepEqual(asked.map((q) => [q.id, q.origin, q.url, q.from]), [['s1.1', 'https://mail.example', INBOX.url, 'http://127.0.0.1:9999']]);
  answered('deny');
  const r = await answer;
  assert.equal(r.code, Code.declined);
  assert.match(r.message, /redirected to https:\/\/mail\.example, a site the user has not allowed/);
  assert.ok(!leaks(r), JSON.stringify(r));
  assert.deepEqual(chrome.tabs.removed, [50], 'the tab open_page opened is closed');
});

test('without a consent window, a redirect to a site not allowed is refused and its tab closed', async () => {
  const { chrome, opener, load } = setup();
  const answer = opener.open('s1.1', { url: START });
  await drain();
  await load(50, ['read_mail'], INBOX);
  const r = await answer;
  assert.equal(r.code, Code.notAllowed);
  assert.ok(!leaks(r), JSON.stringify(r));
  assert.deepEqual(chrome.tabs.removed, [50]);
});

test('a redirect allowed once answers with the page but not its tools; one added brings them', async () => {
  let reply = 'once';
  const { chrome, opener, load, clock } = setup({ askOpen: async () => reply });
  const once = opener.open('s1.1', { url: START });
  await drain();
  await load(50, ['read_mail'], INBOX);
  assert.deepEqual((await once).output, { tabId: 50, url: INBOX.url, title: INBOX.title, tools: [] });

  reply = 'add';
  const added = opener.open('s1.2', { url: START });
  await drain();
  await load(51, ['read_mail'], INBOX);
  await clock.advance(TOOLS_WAIT);
  const out = (await added).output;
  assert.deepEqual([out.url, out.tools], [INBOX.url, ['read_mail']]);
  assert.deepEqual(chrome.sitesAdded, ['https://mail.example']);
  assert.deepEqual(chrome.tabs.removed, []);
});

test('a site allowed once that redirects to another site not allowed asks again for that one', async () => {
  const asked = [];
  const { chrome, opener, load } = setup({ askOpen: async (q) => (asked.push(q.origin), asked.length === 1 ? 'once' : 'deny') });
  const answer = opener.open('s1.1', { url: 'https://news.example/go' });
  await drain();
  await load(50, [], INBOX);
  const r = await answer;
  assert.deepEqual(asked, ['https://news.example', 'https://mail.example']);
  assert.equal(r.code, Code.declined);
  assert.ok(!leaks(r));
  assert.deepEqual(chrome.tabs.removed, [50]);
});

test('a tab that moves on to a site not allowed while its tools are awaited asks before the answer tells of it', async () => {
  const asked = [];
  const { chrome, opener, load, navigate, clock } = setup({ askOpen: async (q) => (asked.push(q.origin), 'deny') });
  const answer = opener.open('s1.1', { url: 'http://localhost:8765/' });
  await drain();
  await load(50, []);
  navigate(50, INBOX.url, INBOX.title);
  await clock.advance(TOOLS_WAIT);
  const r = await answer;
  assert.deepEqual(asked, ['https://mail.example']);
  assert.equal(r.code, Code.declined);
  assert.ok(!leaks(r), JSON.stringify(r));
  assert.deepEqual(chrome.tabs.removed, [50]);
});

test('a new tab\'s empty first document is no load: the answer waits for the page', async () => {
  const { chrome, opener, load } = setup();
  const answer = opener.open('s1.1', { url: 'http://localhost:8765/' });
  let done = false;
  answer.then(() => { done = true; });
  await drain();
  chrome.tabs.onUpdated.emit(50, { status: 'complete' }, { id: 50, url: '', pendingUrl: 'http://localhost:8765/', status: 'complete' });
  chrome.tabs.onUpdated.emit(50, { status: 'complete' }, { id: 50, url: 'about:blank', status: 'complete' });
  await drain();
  assert.equal(done, false);
  await load(50, ['t']);
  assert.deepEqual((await answer).output, { tabId: 50, url: 'http://localhost:8765/', title: 'Trace viewer', tools: ['t'] });
});

// What the browser really shows: a tab on a site without the extension's
// grant has no url, and its page no script; the redirect that took it
// there was reported for the allowed site's request.
test('a redirect to a site the extension cannot see is known by its webRequest report, asked about, and reloaded once added', async () => {
  const asked = [];
  let reply = 'deny';
  const { chrome, opener, clock } = setup({ askOpen: async (q) => (asked.push([q.origin, q.url, q.from]), reply) });
  chrome.tabs.reloaded = [];
  const hiddenLoad = async (tabId, redirectUrl) => {
    for (let i = 0; i < 100 && !chrome.tabs.created.some((t) => t.id === tabId); i++) await drain();
    chrome.webRequest.onBeforeRedirect.emit({ tabId, frameId: 0, url: 'http://localhost:8765/r', redirectUrl });
    const tab = await chrome.tabs.get(tabId);
    // The browser hides url and title of a site without a grant.
    chrome.tabs.get = async (id) => (id === tabId ? { id, windowId: 1, status: 'complete' } : tab);
    chrome.tabs.onUpdated.emit(tabId, { status: 'complete' }, { id: tabId, status: 'complete' });
    await drain();
  };
  const denied = opener.open('s1.1', { url: 'http://localhost:8765/r' });
  await hiddenLoad(50, 'https://mail.example/inbox?token=SECRET');
  await clock.advance(TOOLS_WAIT);
  const r = await denied;
  assert.equal(r.code, Code.declined);
  assert.match(r.message, /redirected to https:\/\/mail\.example/);
  assert.doesNotMatch(r.message, /SECRET/);
  assert.deepEqual(asked, [['https://mail.example', 'https://mail.example/inbox?token=SECRET', 'http://localhost:8765']]);
  assert.deepEqual(chrome.tabs.removed, [50]);

  reply = 'add';
  chrome.tabs.reload = async (id) => chrome.tabs.reloaded.push(id);
  const added = opener.open('s1.2', { url: 'http://localhost:8765/r' });
  await hiddenLoad(51, 'https://mail.example/inbox');
  await clock.advance(LOAD_WAIT);
  await clock.advance(TOOLS_WAIT);
  await clock.advance(TOOLS_WAIT);
  const out = await added;
  assert.equal(out.output.tabId, 51);
  assert.deepEqual(chrome.sitesAdded, ['https://mail.example']);
  assert.deepEqual(chrome.tabs.reloaded, [51], 'loaded again, now with the scripts');
});
