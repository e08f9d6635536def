// The polyfill's links between a document and its cross-origin frames
// (content/main/polyfill/links.js): the permissions policy "tools" read from
// a frame element's allow attribute, and two documents' links over Node's
// own MessageChannel, between fake windows whose postMessage delivers
// message events as the browser does (origin and source set by the sender).
//
// No test waits for time to pass. A test waits for what it expects to
// happen (until: the links' callbacks), and checks that nothing (more)
// arrives by sending a sentinel after the action through the channel that
// would carry it (passed): the sentinel arrives after every message posted
// before it. Each test has a timeout, a hang guard only.
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { LINK_MARK, allowsTools, createLinks } from '../content/main/polyfill/links.js';

const PAGE = 'http://localhost:1';
const open = [];
// Each document goes away at the end (its links close their ports).
afterEach(() => {
  for (const w of open.splice(0)) w.dispatchEvent(new Event('pagehide'));
});
const FRAME = 'http://127.0.0.1:1';

test('allowsTools: the allowlists of allow="tools …", and the default (the parent\'s origin only)', () => {
  const allows = (allow, child = FRAME, src = FRAME) => allowsTools(allow, child, PAGE, src);
  assert.equal(allows(''), false, 'no directive: self only');
  assert.equal(allows('', PAGE, PAGE), true);
  assert.equal(allows('tools'), true, "no allowlist: 'src'");
  assert.equal(allows('tools', FRAME, 'https://elsewhere.example'), false, 'navigated away from its src');
  assert.equal(allows('tools *'), true);
  assert.equal(allows(`tools ${FRAME}`), true);
  assert.equal(allows(`tools ${FRAME}/some/path`), true, 'an origin is read from a URL');
  assert.equal(allows(`tools ${PAGE}`), false);
  assert.equal(allows("tools 'self'"), false);
  assert.equal(allows("tools 'self'", PAGE, PAGE), true);
  assert.equal(allows("tools 'none'", PAGE, PAGE), false, "'none' leaves out even the parent's origin");
  assert.equal(allows(`tools ${FRAME}`, PAGE, PAGE), false, 'an allowlist without this origin');
  assert.equal(allows(`camera *; tools ${FRAME}; microphone 'none'`), true, 'among other directives');
  assert.equal(allows('camera *'), false, 'other features only: the default');
  assert.equal(allows('TOOLS *'), true, 'feature names are ASCII case-insensitive');
  assert.equal(allows('tools nonsense'), false, 'a token that is no origin is ignored');
});

// A hang guard only: every wait below is for an event.
const GUARD = { timeout: 10_000 };

// A window of origin that posts to others as the browser does, each message
// in a task of its own; every window's messages take one queue, first in
// first out. delivered: every message that reached the window, whether a
// listener saw it or not.
function fakeWindow(origin) {
  const w = new EventTarget();
  w.origin = origin;
  w.delivered = [];
  w.postMessage = (data, targetOrigin, transfer = []) => {
    const from = fakeWindow.current;
    setImmediate(() => {
      fakeWindow.current = w;
      if (data instanceof Sentinel) {
        data.arrived();
        return;
      }
      w.delivered.push(data);
      const e = new Event('message');
      Object.assign(e, { data, origin: from.origin, source: from, ports: transfer });
      w.dispatchEvent(e);
    });
  };
  return w;
}

// A test's message that no listener sees: it only says it arrived.
class Sentinel {
  constructor(arrived) {
    this.arrived = arrived;
  }
}

// Resolves once a sentinel that window `from` posts to window `to` now has
// arrived there: every window message posted before it has been delivered,
// and what its listeners posted at once is on its way (behind it).
function passed(from, to) {
  return new Promise((resolve) => {
    fakeWindow.current = from;
    to.postMessage(new Sentinel(resolve), '*');
  });
}

// The windows of a pair are quiet: a sentinel from the frame to the page,
// then one back, so that what the frame posted, and the page's answer to
// it, have arrived (a hello and its welcome: the links' window messages).
async function quiet(p) {
  await passed(p.frame, p.page);
  await passed(p.page, p.frame);
}

// Two documents: a page and its cross-origin frame, each with links;
// bridged: the origins the worker says the bridge runs in; policy: what the
// frame knows itself of its policy.
function pair({ allow = 'tools *', pageTools = [], frameTools = [], bridged = [PAGE, FRAME], policy } = {}) {
  const page = fakeWindow(PAGE);
  const frame = fakeWindow(FRAME);
  page.parent = page;
  frame.parent = page;
  frame.location = { ancestorOrigins: [PAGE] };
  const asked = [];
  open.push(page, frame);
  const element = { allow };
  const ran = [];
  const aborted = [];
  // until(cond): resolves once cond() holds, looked at again whenever a
  // link calls back (a tool runs or is aborted, a side's remote tools change).
  const waiting = new Set();
  const poke = () => {
    for (const w of waiting) {
      if (w.cond()) {
        waiting.delete(w);
        w.resolve();
      }
    }
  };
  const until = (cond) => new Promise((resolve) => {
    if (cond()) resolve();
    else waiting.add({ cond, resolve });
  });
  const make = (win, origin, tools, changes) => createLinks({
    win,
    origin,
    frameElementOf: (w) => (win === page && w === frame ? element : null),
    readFrame: (el) => ({ allow: el.allow, srcOrigin: FRAME }),
    allowed: () => Promise.resolve(true),
    exposed: (o) => tools.filter((t) => t.exposedTo.includes(o)).map(({ name, description }) => ({ name, description })),
    run(name, callerOrigin, input, gone) {
      const t = tools.find((x) => x.name === name && x.exposedTo.includes(callerOrigin));
      if (!t) return null;
      ran.push([name, callerOrigin, input]);
      poke();
      let abort;
      const promise = new Promise((resolve, reject) => {
        abort = () => reject(new Error('aborted'));
        t.run(resolve, reject, gone);
      });
      return {
        promise,
        abort: () => {
          aborted.push([name, callerOrigin]);
          abort();
          poke();
        },
      };
    },
    remoteChanged: () => {
      changes.push('changed');
      poke();
    },
    bridgeAt: (o) => {
      asked.push([origin, o]);
      return Promise.resolve(bridged.includes(o));
    },
    ...(policy ? { policyOf: policy } : {}),
  });
  const pageChanges = [];
  const frameChanges = [];
  fakeWindow.current = page;
  const pageLinks = make(page, PAGE, pageTools, pageChanges);
  fakeWindow.current = frame;
  const frameLinks = make(frame, FRAME, frameTools, frameChanges);
  return { page, frame, pageLinks, frameLinks, pageChanges, frameChanges, ran, aborted, asked, until };
}

test('links: a frame asks, its parent answers with the policy; each side lists what the other exposes to it, and runs it', GUARD, async () => {
  const frameTools = [
    { name: 'exposed', description: 'd', exposedTo: [PAGE], run: (ok) => ok('"from the frame"') },
    { name: 'private', description: 'd', exposedTo: [], run: (ok) => ok('"no"') },
  ];
  const pageTools = [{ name: 'page_tool', description: 'd', exposedTo: [FRAME], run: (ok) => ok('"from the page"') }];
  const p = pair({ frameTools, pageTools });
  assert.equal(await p.frameLinks.askParent(), true);
  // Each side's tools come over the link, the first message each way.
  await p.until(() => p.pageChanges.length >= 1 && p.frameChanges.length >= 1);
  assert.deepEqual(p.pageLinks.remoteTools([FRAME]).map((r) => [r.tool.name, r.origin, r.window === p.frame]), [['exposed', FRAME, true]]);
  assert.deepEqual(p.pageLinks.remoteTools([PAGE]), [], 'only the origins asked for');
  assert.deepEqual(p.frameLinks.remoteTools([PAGE]).map((r) => [r.tool.name, r.window === p.page]), [['page_tool', true]]);
  const fail = () => new Error('failed');
  const gone = () => new Error('gone');
  const link = p.pageLinks.find('exposed', p.frame, FRAME);
  assert.ok(link);
  assert.equal(p.pageLinks.find('exposed', p.frame, PAGE), null, 'another origin: no such tool');
  assert.equal(p.pageLinks.find('private', p.frame, FRAME), null);
  assert.equal(await p.pageLinks.call(link, 'exposed', { a: 1 }, undefined, fail, gone), '"from the frame"');
  assert.deepEqual(p.ran, [['exposed', PAGE, '{"a":1}']]);
  const back = p.frameLinks.find('page_tool', p.page, PAGE);
  assert.equal(await p.frameLinks.call(back, 'page_tool', {}, undefined, fail, gone), '"from the page"');
  // A call and its answer each way went over the link after the tools:
  // no other tools message came before them.
  assert.deepEqual([p.pageChanges.length, p.frameChanges.length], [1, 1], 'each side heard of the other\'s tools once');
});

test('links: without the policy the frame is refused and gets no link; the page\'s message listeners never see the links\' messages', GUARD, async () => {
  const p = pair({ allow: '', frameTools: [{ name: 'x', description: 'd', exposedTo: [PAGE], run: (ok) => ok('1') }] });
  const seen = [];
  p.page.addEventListener('message', (e) => seen.push(e.data));
  p.frame.addEventListener('message', (e) => seen.push(e.data));
  assert.equal(await p.frameLinks.askParent(), false);
  await quiet(p);
  assert.deepEqual(p.pageLinks.remoteTools([FRAME]), []);
  assert.deepEqual(p.frameLinks.remoteTools([PAGE]), []);
  assert.deepEqual(p.page.delivered.map((d) => d[LINK_MARK]), ['hello'], 'the links\' messages did arrive');
  assert.deepEqual(p.frame.delivered.map((d) => d[LINK_MARK]), ['welcome']);
  assert.deepEqual(seen, []);
  // A page's own message with the mark is hidden too, and opens nothing.
  fakeWindow.current = p.frame;
  p.page.postMessage({ [LINK_MARK]: 'welcome', allowed: true }, '*');
  await quiet(p);
  assert.equal(p.page.delivered.length, 2);
  assert.deepEqual(seen, []);
  assert.deepEqual(p.pageLinks.remoteTools([FRAME]), []);
});

test('links: a caller\'s abort reaches the tool; a tool that fails, or a frame that goes, fails the call', GUARD, async () => {
  const frameTools = [
    { name: 'waits', description: 'd', exposedTo: [PAGE], run: () => {} },
    { name: 'fails', description: 'd', exposedTo: [PAGE], run: (ok, fail) => fail(new Error('the page says no')) },
  ];
  const p = pair({ frameTools });
  await p.frameLinks.askParent();
  await p.until(() => p.pageChanges.length >= 1);
  const failed = () => new Error('failed');
  const gone = () => new Error('gone');
  const link = p.pageLinks.find('waits', p.frame, FRAME);
  const ctl = new AbortController();
  const call = p.pageLinks.call(link, 'waits', {}, ctl.signal, failed, gone);
  await p.until(() => p.ran.length === 1); // the tool runs in the frame
  ctl.abort('the caller gave up');
  await assert.rejects(call, (e) => e === 'the caller gave up');
  await p.until(() => p.aborted.length === 1);
  assert.deepEqual(p.aborted, [['waits', PAGE]], 'the abort reached the tool');
  await assert.rejects(p.pageLinks.call(p.pageLinks.find('fails', p.frame, FRAME), 'fails', {}, undefined, failed, gone), /failed/);
  const pending = p.pageLinks.call(link, 'waits', {}, undefined, failed, gone);
  await p.until(() => p.ran.length === 3);
  fakeWindow.current = p.frame;
  p.frame.dispatchEvent(new Event('pagehide'));
  await assert.rejects(pending, /gone/);
  // The link is closed at both ends; no window message opens another.
  await quiet(p);
  assert.deepEqual(p.pageLinks.remoteTools([FRAME]), [], 'the frame\'s tools went with it');
});

test('links: a frame whose parent runs no bridge posts nothing to it, and decides from what it knows itself', GUARD, async () => {
  const p = pair({ bridged: [FRAME] });
  assert.equal(await p.frameLinks.askParent(), true, 'no word against it: allowed');
  await passed(p.frame, p.page);
  // Not even the links of the page here (which would hide it from the
  // page's listeners) got a message.
  assert.deepEqual(p.page.delivered, [], 'the parent saw nothing of the bridge');
  assert.deepEqual(p.asked, [[FRAME, PAGE]]);
  // Where the browser knows the policy, its word holds.
  const q = pair({ bridged: [FRAME], policy: () => false });
  assert.equal(await q.frameLinks.askParent(), false);
});

test('links: a parent answers no hello of a frame the bridge does not run in (an ad, a page\'s own message)', GUARD, async () => {
  const p = pair({ bridged: [PAGE] });
  // The frame's own script (not the bridge) says hello, as the bridge would.
  fakeWindow.current = p.frame;
  p.page.postMessage({ [LINK_MARK]: 'hello' }, '*');
  await quiet(p);
  assert.deepEqual(p.frame.delivered, [], 'no welcome: the frame learns nothing of the bridge');
  assert.deepEqual(p.pageLinks.remoteTools([FRAME]), []);
  assert.deepEqual(p.asked, [[PAGE, FRAME]]);
});

test('links: a frame that cannot tell its parent\'s origin asks nobody', async () => {
  const p = pair();
  p.frame.location = { ancestorOrigins: [] };
  p.frame.document = { referrer: '' };
  assert.equal(await p.frameLinks.askParent(), true);
  assert.deepEqual(p.asked, []);
});
