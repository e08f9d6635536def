// Ask-before-acting through the whole worker (worker/consent.js, routing.js):
// which calls wait for the user, the one consent window, Allow, Deny,
// "until the browser closes", no answer in time, the window closed, and
// calls that end while they wait. Fake chrome and clock.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_ALLOW_LIST } from '../lib/allowlist.js';
import { GRANTS_KEY } from '../lib/askpolicy.js';
import { ask, ID, TOOLS, withTools } from './fakes/consent.js';
import { drain, LOCAL, localTab } from './fakes/worker.js';

const call = (id, name, extra = {}) => ({ type: 'call', id, tabId: 3, frameId: 0, name, arguments: { n: 1 }, ...extra });
const calls = (frame) => frame.take().filter((m) => m.type === 'call' || m.type === 'cancel');
const codes = (host) => host.take().filter((m) => m.type === 'result' || m.type === 'error').map((m) => [m.id, m.type === 'result' ? 'result' : m.error.code]);

test('the loopback defaults never ask; a site the user set to ask holds acting calls for the user', async () => {
  const plain = await withTools();
  plain.host.deliver(call('a', 'act'));
  assert.deepEqual(calls(plain.frame).map((m) => m.id), ['a']);
  assert.equal(plain.chrome.windows.creates.length, 0);
  assert.deepEqual((await ask(plain.chrome, { type: 'siteSettings.get', origin: LOCAL })).value,
    { origin: LOCAL, ask: 'never', indicator: true, loopback: true });
  assert.equal((await ask(plain.chrome, { type: 'siteSettings.get', origin: 'https://shop.example' })).value.ask, 'acting');

  const { chrome, host, frame } = await withTools({ askMode: 'acting' });
  host.deliver(call('b', 'act'));
  await drain();
  assert.deepEqual(calls(frame), [], 'the page sees nothing before the user answers');
  assert.equal(chrome.windows.creates.length, 1);
  assert.equal(chrome.windows.creates[0].type, 'popup');
  assert.equal(chrome.windows.creates[0].url, `chrome-extension://${ID}/ui/consent.html`);
  const { requests } = (await ask(chrome, { type: 'consent.list' })).value;
  assert.equal(requests.length, 1);
  assert.equal(requests[0].tool, 'act');
  assert.equal(requests[0].origin, LOCAL);
  assert.equal(requests[0].agent, 'an agent');
  assert.equal(requests[0].tabTitle, 'page 3', 'the window names the tab by its title, not its id');
  assert.match(requests[0].args.text, /"n": 1/);
});

test('Allow sends the call to the page once; the window closes when nothing waits', async () => {
  const { chrome, host, frame } = await withTools({ askMode: 'acting' });
  host.deliver(call('s1.1', 'act'));
  await drain();
  assert.equal((await ask(chrome, { type: 'consent.answer', id: 's1.1', answer: 'allow' })).ok, true);
  await drain();
  assert.deepEqual(calls(frame), [{ type: 'call', id: 's1.1', name: 'act', arguments: { n: 1 } }]);
  assert.equal(chrome.windows.created.size, 0);
  frame.deliver({ type: 'result', id: 's1.1', output: 'done' });
  assert.deepEqual(codes(host), [['s1.1', 'result']]);
  const again = await ask(chrome, { type: 'consent.answer', id: 's1.1', answer: 'allow' });
  assert.match(again.error, /no longer waiting/);
});

test('Deny answers declined, and the page never sees the call', async () => {
  const { chrome, host, frame } = await withTools({ askMode: 'acting' });
  host.deliver(call('s1.1', 'act'));
  await drain();
  await ask(chrome, { type: 'consent.answer', id: 's1.1', answer: 'deny' });
  await drain();
  const [m] = host.take();
  assert.equal(m.error.code, 'declined');
  assert.match(m.error.message, /the user declined the call of act on http:\/\/localhost:8765 \(the user denied it\); the page's tool did not run/);
  assert.deepEqual(calls(frame), []);
  assert.equal(chrome.windows.created.size, 0);
});

test('read-only tools never ask; "consequential" asks only for tools marked consequential or destructive', async () => {
  const acting = await withTools({ askMode: 'acting' });
  acting.host.deliver(call('r', 'peek'));
  assert.deepEqual(calls(acting.frame).map((m) => m.id), ['r']);

  const { chrome, host, frame } = await withTools({ askMode: 'consequential' });
  for (const [id, name] of [['a', 'act'], ['p', 'peek'], ['c', 'commit'], ['w', 'wipe']]) host.deliver(call(id, name));
  await drain();
  assert.deepEqual(calls(frame).map((m) => m.id), ['a', 'p']);
  const { requests } = (await ask(chrome, { type: 'consent.list' })).value;
  assert.deepEqual(requests.map((r) => r.tool), ['commit', 'wipe']);
  assert.equal(chrome.windows.creates.length, 1, 'several calls wait in one window');
});

test('a tool marked read-only and also consequential or destructive asks as a consequential tool does', async () => {
  const sly = [
    { name: 'slyWipe', description: 'reads, it says', annotations: { readOnlyHint: true, destructiveHint: true } },
    { name: 'slyCommit', description: 'reads, it says', annotations: { readOnlyHint: true, consequentialHint: true } },
  ];
  for (const askMode of ['consequential', 'acting']) {
    const { chrome, host, frame } = await withTools({ askMode });
    frame.deliver({ type: 'tools', tools: [...TOOLS, ...sly] });
    await drain();
    frame.take();
    host.deliver(call('1', 'slyWipe'));
    host.deliver(call('2', 'slyCommit'));
    await drain();
    assert.deepEqual(calls(frame), [], `${askMode}: the page sees nothing before the user answers`);
    const { requests } = (await ask(chrome, { type: 'consent.list' })).value;
    assert.deepEqual(requests.map((r) => r.tool), ['slyWipe', 'slyCommit'], askMode);
  }
});

test('a tool that acted and changed into a read-only one asks once, whatever the site\'s setting', async () => {
  const { chrome, host, frame, clock } = await withTools(); // the loopback default: never asks
  const now = TOOLS.map((t) => (t.name === 'act' ? { ...t, annotations: { readOnlyHint: true } } : t));
  frame.deliver({ type: 'tools', tools: now });
  await drain();
  await clock.advance(10);
  host.take();
  frame.take();
  host.deliver(call('1', 'act'));
  await drain();
  assert.deepEqual(calls(frame), [], 'the page sees nothing before the user answers');
  const { requests } = (await ask(chrome, { type: 'consent.list' })).value;
  assert.deepEqual(requests.map((r) => [r.tool, r.changed]), [['act', true]]);
  await ask(chrome, { type: 'consent.answer', id: '1', answer: 'allow' });
  await drain();
  assert.deepEqual(calls(frame).map((m) => m.id), ['1']);
  host.deliver(call('2', 'act'));
  await drain();
  assert.deepEqual(calls(frame).map((m) => m.id), ['2'], 'accepted: the read-only tool no longer asks');

  // A read-only tool that changes and stays read-only does not ask.
  frame.deliver({ type: 'tools', tools: now.map((t) => (t.name === 'act' ? { ...t, description: 'reads more' } : t)) });
  await drain();
  host.deliver(call('3', 'act'));
  await drain();
  assert.deepEqual(calls(frame).map((m) => m.id), ['3']);
});

test('"until the browser closes" stops asking for that tool on that site only, and is kept in storage.session', async () => {
  const { chrome, host, frame } = await withTools({ askMode: 'acting' });
  host.deliver(call('1', 'act'));
  host.deliver(call('2', 'act'));
  await drain();
  await ask(chrome, { type: 'consent.answer', id: '1', answer: 'always' });
  await drain();
  assert.deepEqual(calls(frame).map((m) => m.id), ['1', '2'], 'the same tool\'s waiting call goes too');
  const [grant] = chrome.storage.session.peek(GRANTS_KEY);
  assert.match(grant, new RegExp(`^${LOCAL} act [0-9a-f]{64}$`), 'the site, the tool and its definition\'s fingerprint');
  host.deliver(call('3', 'act'));
  host.deliver(call('4', 'commit'));
  await drain();
  assert.deepEqual(calls(frame).map((m) => m.id), ['3']);
  assert.deepEqual((await ask(chrome, { type: 'consent.list' })).value.requests.map((r) => r.id), ['4']);
});

test('a grant of this session survives a worker restart', async () => {
  const first = await withTools({ askMode: 'acting' });
  first.host.deliver(call('1', 'act'));
  await drain();
  await ask(first.chrome, { type: 'consent.answer', id: '1', answer: 'always' });
  await drain();
  const grants = first.chrome.storage.session.peek(GRANTS_KEY);
  const { worker } = first;
  const act = [...worker.registry.frames.values()][0].tools.get('act');
  worker.consent.load(worker.consent.stored, []);
  assert.equal(worker.consent.needs(LOCAL, act), true);
  worker.consent.load(worker.consent.stored, grants);
  assert.equal(worker.consent.needs(LOCAL, act), false);
});

test('no answer before the caller\'s timeout is a decline, a little before it', async () => {
  const { chrome, host, frame, clock } = await withTools({ askMode: 'acting' });
  host.deliver(call('t', 'act', { timeout: 3000 }));
  await drain();
  const [r] = (await ask(chrome, { type: 'consent.list' })).value.requests;
  assert.equal(r.deadline - r.since, 2700);
  await clock.advance(2699);
  assert.deepEqual(codes(host), []);
  await clock.advance(1);
  const [m] = host.take();
  assert.equal(m.error.code, 'declined');
  assert.match(m.error.message, /did not answer within 2\.7 s/);
  assert.deepEqual(calls(frame), []);
  assert.equal(chrome.windows.created.size, 0);
});

test('closing the consent window declines every call in it', async () => {
  const { chrome, host, frame } = await withTools({ askMode: 'acting' });
  host.deliver(call('1', 'act'));
  host.deliver(call('2', 'commit'));
  await drain();
  const [id] = chrome.windows.created.keys();
  chrome.closeWindow(id);
  await drain();
  const msgs = host.take();
  assert.deepEqual(msgs.map((m) => [m.id, m.error.code]), [['1', 'declined'], ['2', 'declined']]);
  assert.match(msgs[0].error.message, /closed the consent window/);
  assert.deepEqual(calls(frame), []);
  // The next call opens a new window.
  host.deliver(call('3', 'act'));
  await drain();
  assert.equal(chrome.windows.creates.length, 2);
});

test('a consent window closed before it finished opening declines its calls', async () => {
  const { chrome, host, frame } = await withTools({ askMode: 'acting' });
  host.deliver(call('1', 'act'));
  // The user closes it at once: onRemoved comes before create() answers.
  const [id] = chrome.windows.created.keys();
  chrome.closeWindow(id);
  await drain();
  assert.deepEqual(codes(host), [['1', 'declined']]);
  assert.deepEqual(calls(frame), []);
  host.deliver(call('2', 'act'));
  await drain();
  assert.equal(chrome.windows.creates.length, 2, 'the next call opens a new window');
});

test('a consent window that vanished without onRemoved is opened anew for the next call', async () => {
  const { chrome, host } = await withTools({ askMode: 'acting' });
  host.deliver(call('1', 'act'));
  await drain();
  const [id] = chrome.windows.created.keys();
  chrome.windows.created.delete(id); // gone, and the worker was never told
  host.deliver(call('2', 'act'));
  await drain();
  assert.equal(chrome.windows.creates.length, 2);
  assert.equal(chrome.windows.created.size, 1);
  assert.deepEqual((await ask(chrome, { type: 'consent.list' })).value.requests.map((r) => r.id), ['1', '2']);
});

test('a cancel or a closed tab ends the wait: the request leaves the window, and the page hears nothing', async () => {
  const { chrome, host, frame } = await withTools({ askMode: 'acting' });
  host.deliver(call('1', 'act'));
  host.deliver(call('2', 'act'));
  await drain();
  host.deliver({ type: 'cancel', id: '1' });
  await drain();
  assert.deepEqual(codes(host), [['1', 'cancelled']]);
  assert.deepEqual((await ask(chrome, { type: 'consent.list' })).value.requests.map((r) => r.id), ['2']);
  assert.equal(chrome.windows.created.size, 1, 'the window stays for the call still waiting');
  chrome.closeTab(3);
  await drain();
  assert.deepEqual(codes(host), [['2', 'tab_closed']]);
  assert.deepEqual(calls(frame), []);
  assert.equal(chrome.windows.created.size, 0);
});

test('a window that cannot open declines the call and says why', async () => {
  const { chrome, host, warnings } = await withTools({ askMode: 'acting' });
  chrome.windows.createError = 'no display';
  host.deliver(call('1', 'act'));
  await drain();
  const [m] = host.take();
  assert.equal(m.error.code, 'declined');
  assert.match(m.error.message, /consent window could not be opened \(no display\)/);
  assert.match(warnings.at(-1), /no display/);
});

test('bad settings are refused with what to do', async () => {
  const { chrome } = await withTools();
  assert.match((await ask(chrome, { type: 'siteSettings.set', origin: LOCAL, ask: 'sometimes' })).error, /ask must be one of acting, consequential, never/);
  assert.match((await ask(chrome, { type: 'siteSettings.set', origin: 'chrome://settings', ask: 'never' })).error, /not the origin of an http\(s\) site/);
  const content = { id: ID, url: 'http://localhost:8765/', tab: { id: 3 }, frameId: 0 };
  assert.equal((await ask(chrome, { type: 'siteSettings.set', origin: LOCAL, ask: 'never' }, content)).ok, false, 'a page cannot change it');
});

test('when the consent window closes, the tab the user was on is the focused tab again', async () => {
  const { chrome, worker, frame } = await withTools({ askMode: 'acting', tabs: [localTab(3, { active: true })] });
  assert.equal(worker.registry.focusedTab()?.id, 3);
  // Answered: the worker closes the window.
  const host = chrome.native;
  host.deliver(call('s1.1', 'act'));
  await drain();
  const [win] = chrome.windows.created.keys();
  chrome.focusWindow(win); // the consent window takes the focus, as in Chrome
  await drain();
  assert.equal(worker.registry.focusedTab(), null, 'while the consent window has the focus, no web page has it');
  await ask(chrome, { type: 'consent.answer', id: 's1.1', answer: 'allow' });
  await drain();
  assert.equal(chrome.windows.created.size, 0);
  assert.equal(worker.registry.focusedTab()?.id, 3, 'no focus change came: the last focused normal window is asked for');
  assert.deepEqual(chrome.windows.lastFocusedAsks.at(-1), { windowTypes: ['normal'] });
  assert.deepEqual(calls(frame).map((m) => m.id), ['s1.1']);

  // Closed by the user: the same.
  host.deliver(call('s1.2', 'act'));
  await drain();
  const [win2] = chrome.windows.created.keys();
  chrome.focusWindow(win2);
  await drain();
  assert.equal(worker.registry.focusedTab(), null);
  chrome.closeWindow(win2);
  await drain();
  assert.equal(worker.registry.focusedTab()?.id, 3);
});

// A site that asks, framed by a loopback page that never asks: the frame's
// site decides (the stricter of the frame's and the tab's settings), and a
// grant is the frame's site's.
const BANK = 'https://bank.example';
const HOME = 'http://localhost:8080';
async function framedBank() {
  const w = await withTools({
    origins: [`${BANK}/*`],
    tabs: [localTab(3), { id: 5, windowId: 1, url: `${BANK}/`, title: 'bank' }, { id: 6, windowId: 1, url: `${HOME}/`, title: 'home' }],
  });
  const top = w.chrome.connectFrame({ tabId: 5, frameId: 0, url: `${BANK}/` });
  top.deliver({ type: 'tools', tools: TOOLS });
  const framed = w.chrome.connectFrame({ tabId: 6, frameId: 4, url: `${BANK}/embed` });
  framed.deliver({ type: 'tools', tools: TOOLS });
  const home = w.chrome.connectFrame({ tabId: 6, frameId: 0, url: `${HOME}/` });
  home.deliver({ type: 'tools', tools: [{ name: 'home_act', description: 'acts' }] });
  await drain();
  w.host.take();
  for (const f of [top, framed, home]) f.take();
  return { ...w, top, framed, home };
}

test('a framed site that asks asks, whatever the tab\'s site says; the window names both sites', async () => {
  const { chrome, host, top, framed } = await framedBank();
  host.deliver(call('s1.1', 'act', { tabId: 5 }));
  await drain();
  assert.deepEqual(calls(top), [], 'bank.example as the top frame asks');
  assert.equal(chrome.windows.creates.length, 1);
  await ask(chrome, { type: 'consent.answer', id: 's1.1', answer: 'deny' });
  await drain();

  host.deliver(call('s1.2', 'act', { tabId: 6, frameId: 4 }));
  await drain();
  assert.deepEqual(calls(framed), [], 'the same tool in a frame of a localhost tab asks too');
  assert.equal(chrome.windows.creates.length, 2);
  const [r] = (await ask(chrome, { type: 'consent.list' })).value.requests;
  assert.deepEqual([r.id, r.origin, r.frameOrigin, r.tabId], ['s1.2', HOME, BANK, 6]);
  await ask(chrome, { type: 'consent.answer', id: 's1.2', answer: 'deny' });
  await drain();
  const msgs = host.take().filter((m) => m.type === 'error');
  assert.deepEqual(msgs.map((m) => [m.id, m.error.code]), [['s1.1', 'declined'], ['s1.2', 'declined']]);
  assert.match(msgs[1].error.message, /declined the call of act on https:\/\/bank\.example/);
  assert.deepEqual(calls(framed), []);
});

test('"until the browser closes" in a frame is the frame\'s site\'s grant', async () => {
  const { chrome, host, top, framed, home } = await framedBank();
  host.deliver(call('1', 'act', { tabId: 6, frameId: 4 }));
  await drain();
  await ask(chrome, { type: 'consent.answer', id: '1', answer: 'always' });
  await drain();
  assert.deepEqual(calls(framed).map((m) => m.id), ['1']);
  const grants = chrome.storage.session.peek(GRANTS_KEY);
  assert.equal(grants.length, 1);
  assert.ok(grants[0].startsWith(`${BANK} act `), grants[0]);
  host.deliver(call('2', 'act', { tabId: 5 }));
  await drain();
  assert.deepEqual(calls(top).map((m) => m.id), ['2'], 'bank.example\'s act goes without asking, framed or not');
  // The loopback page's own tool never asked, and still does not.
  host.deliver(call('3', 'home_act', { tabId: 6, frameId: 0 }));
  assert.deepEqual(calls(home).map((m) => m.id), ['3']);
  assert.equal(chrome.windows.creates.length, 1);
});

test('the stricter of the frame\'s and the tab\'s settings holds', async () => {
  const { chrome, host, framed, home } = await framedBank();
  // The framing site asks for everything; the framed one only for consequential tools.
  assert.equal((await ask(chrome, { type: 'siteSettings.set', origin: HOME, ask: 'acting' })).ok, true);
  assert.equal((await ask(chrome, { type: 'siteSettings.set', origin: BANK, ask: 'consequential' })).ok, true);
  host.deliver(call('a', 'act', { tabId: 6, frameId: 4 }));
  host.deliver(call('p', 'peek', { tabId: 6, frameId: 4 }));
  await drain();
  assert.deepEqual(calls(framed).map((m) => m.id), ['p'], 'read-only tools never ask');
  assert.deepEqual((await ask(chrome, { type: 'consent.list' })).value.requests.map((r) => r.id), ['a']);
  await ask(chrome, { type: 'consent.answer', id: 'a', answer: 'deny' });
  await drain();
  // Both never: nothing asks; one consequential: consequential tools ask.
  assert.equal((await ask(chrome, { type: 'siteSettings.set', origin: HOME, ask: 'never' })).ok, true);
  assert.equal((await ask(chrome, { type: 'siteSettings.set', origin: BANK, ask: 'never' })).ok, true);
  host.deliver(call('b', 'commit', { tabId: 6, frameId: 4 }));
  await drain();
  assert.deepEqual(calls(framed).map((m) => m.id), ['b']);
  assert.equal((await ask(chrome, { type: 'siteSettings.set', origin: HOME, ask: 'consequential' })).ok, true);
  host.deliver(call('c', 'commit', { tabId: 6, frameId: 4 }));
  host.deliver(call('d', 'home_act', { tabId: 6, frameId: 0 }));
  await drain();
  assert.deepEqual(calls(framed), [], 'a consequential tool in a frame of a tab that asks for those asks');
  assert.deepEqual(calls(home).map((m) => m.id), ['d']);
  assert.deepEqual((await ask(chrome, { type: 'consent.list' })).value.requests.map((r) => r.id), ['c']);
});

test('a frame whose site is not allowed offers nothing, in a tab that is allowed', async () => {
  const { chrome, host } = await framedBank();
  const mail = chrome.connectFrame({ tabId: 3, frameId: 2, url: 'https://mail.example/inbox' });
  mail.deliver({ type: 'tools', tools: TOOLS });
  await drain();
  host.take();
  host.deliver(call('m', 'act', { tabId: 3, frameId: 2 }));
  await drain();
  const [m] = host.take().filter((x) => x.type === 'error');
  assert.equal(m.error.code, 'not_allowed');
  assert.deepEqual(mail.take().filter((x) => x.type === 'call'), []);
  assert.equal(chrome.windows.creates.length, 0);
});
