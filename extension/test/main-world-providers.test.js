// The generated main-world script's context providers: the page API, and
// samples (time-boxed on a fake clock) over the port.
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { FakeClock } from './fakes/clock.js';
import { closePorts, load, next, plain, provider, providersMsg, sampled, toolsMsg } from './fakes/main-world.js';

afterEach(closePorts);

test('registerContextProvider is on document.modelContext, and returns a promise', async () => {
  const page = load();
  const { mc } = page;
  for (const m of ['registerContextProvider', 'unregisterContextProvider', 'contextChanged']) {
    assert.equal(typeof mc[m], 'function', m);
    assert.equal(Object.keys(page.win.ModelContext.prototype).includes(m), false, 'not enumerable, like the other methods');
  }
  const p = mc.registerContextProvider(provider('trace.Timeline#selection', () => undefined));
  assert.equal(typeof p.then, 'function');
  assert.equal(await p, undefined);
  const m = await next(page, providersMsg(['trace.Timeline#selection']));
  assert.deepEqual(m.providers, [{ id: 'trace.Timeline#selection', description: 'the trace.Timeline#selection provider' }]);
});

test('registerContextProvider rejects what it cannot take, never throwing', async () => {
  const { mc } = load({ handover: false });
  await mc.registerContextProvider(provider('dup', () => undefined));
  const cases = [
    [provider('dup', () => undefined), { name: 'InvalidStateError', message: /Duplicate context provider id "dup"/ }],
    [provider('', () => undefined), { name: 'InvalidStateError', message: /Invalid context provider id/ }],
    [provider('x'.repeat(201), () => undefined), { name: 'InvalidStateError' }],
    [provider('line\nbreak', () => undefined), { name: 'InvalidStateError' }],
    [provider(5, () => undefined), { name: 'TypeError', message: /'id'.*not a string/ }],
    [{ getContext() {} }, { name: 'TypeError', message: /'id'.*Required member/ }],
    [provider('nofn', undefined), { name: 'TypeError', message: /'getContext'.*Required member/ }],
    [provider('notfn', 'str'), { name: 'TypeError', message: /'getContext'.*not a function/ }],
    [null, { name: 'TypeError' }],
  ];
  for (const [p, want] of cases) {
    let r;
    assert.doesNotThrow(() => {
      r = mc.registerContextProvider(p);
    });
    await assert.rejects(r, want);
  }
  await assert.rejects(mc.registerContextProvider(provider('s', () => 1), { signal: 'nope' }), { name: 'TypeError' });
  await assert.rejects(mc.registerContextProvider(provider('s', () => 1), 5), { name: 'TypeError' });
  const pre = new AbortController();
  pre.abort('already');
  await assert.rejects(mc.registerContextProvider(provider('s', () => 1), { signal: pre.signal }), (e) => e === 'already');
  await assert.rejects(mc.registerContextProvider.call({}, provider('t', () => 1)), { name: 'TypeError', message: /Illegal invocation/ });
  assert.throws(() => mc.contextChanged.call({}), { name: 'TypeError', message: /Illegal invocation/ });
  for (let i = 1; i < 64; i++) await mc.registerContextProvider(provider(`p${i}`, () => undefined));
  await assert.rejects(mc.registerContextProvider(provider('p64', () => undefined)), { name: 'QuotaExceededError' });
});

test('provider ids follow the same rules as lib/snapshot.js', async () => {
  const S = await import('../lib/snapshot.js');
  const { mc } = load({ handover: false });
  const ids = ['trace.Timeline#selection', 'dev.perfetto.Flamegraph#panel:3', 'x', 'a b', '', ' ', 'x'.repeat(200), 'x'.repeat(201), 'tab\t', 'ü#1', 'a\u0085'];
  for (const id of ids) {
    const p = mc.registerContextProvider(provider(id, () => undefined));
    if (S.isValidProviderId(id)) await p;
    else await assert.rejects(p, { name: 'InvalidStateError' }, JSON.stringify(id));
  }
});

test('aborting the signal or unregisterContextProvider removes a provider', async () => {
  const page = load();
  const { mc } = page;
  const ctl = new AbortController();
  await mc.registerContextProvider(provider('a', () => undefined), { signal: ctl.signal });
  await mc.registerContextProvider(provider('b', () => undefined));
  await next(page, providersMsg(['a', 'b']));
  ctl.abort();
  await next(page, providersMsg(['b']));
  mc.unregisterContextProvider('b');
  await next(page, providersMsg([]));
  mc.unregisterContextProvider('never there');
  await mc.registerContextProvider(provider('a', () => undefined));
  await next(page, providersMsg(['a']));
});

test('a sample: each provider in order, a throwing or slow one left out with a note', async () => {
  const clock = new FakeClock();
  const page = load({ clock: clock.api });
  const { mc, port } = page;
  let self;
  const cyclic = {};
  cyclic.self = cyclic;
  await mc.registerContextProvider(provider('trace.Timeline#selection', function () {
    self = this;
    return { summary: 'Selected slice "CommitNavigation"', data: { type: 'slice', id: 3 } };
  }));
  await mc.registerContextProvider(provider('test.Broken', () => { throw new Error('provider exploded'); }));
  await mc.registerContextProvider(provider('nothing', () => undefined, { description: undefined }));
  await mc.registerContextProvider(provider('async', async () => ({ summary: 'later', data: [1, 2] })));
  await mc.registerContextProvider(provider('test.Slow', () => new Promise(() => {})));
  await mc.registerContextProvider(provider('rejects', () => Promise.reject(new TypeError('no luck'))));
  await mc.registerContextProvider(provider('number', () => 42));
  await mc.registerContextProvider(provider('cyclic', () => ({ summary: 's', data: cyclic })));
  await mc.registerContextProvider(provider('nodata', () => ({ summary: 5 })));
  await next(page, providersMsg(['trace.Timeline#selection', 'test.Broken', 'nothing', 'async', 'test.Slow', 'rejects', 'number', 'cyclic', 'nodata']));
  page.messages.splice(0); // the reports of the providers registered so far
  // A round trip on the port after the sample: an answer sent while the
  // sample was handled would come before the providers that sync sends.
  const roundTrip = async () => {
    port.postMessage({ type: 'sync' });
    await next(page, (msg) => msg.type === 'providers');
  };
  port.postMessage({ type: 'sample', id: 7 });
  await roundTrip();
  assert.deepEqual(clock.pending(), [50], 'the slow provider is given 50 ms on the page\'s clock');
  await clock.advance(49);
  await roundTrip();
  assert.equal(page.messages.filter(sampled(7)).length, 0, 'no answer before the 50 ms are up');
  await clock.advance(1);
  const m = await next(page, sampled(7));
  assert.deepEqual(clock.pending(), []);
  assert.equal(self.id, 'trace.Timeline#selection', 'getContext is called on its provider');
  const d = (id) => `the ${id} provider`;
  assert.deepEqual(plain(m.providers), [
    { id: 'trace.Timeline#selection', description: d('trace.Timeline#selection'), summary: 'Selected slice "CommitNavigation"', json: '{"type":"slice","id":3}' },
    { id: 'test.Broken', description: d('test.Broken'), note: 'threw: provider exploded' },
    { id: 'async', description: d('async'), summary: 'later', json: '[1,2]' },
    { id: 'test.Slow', description: d('test.Slow'), note: 'timed out after 50 ms' },
    { id: 'rejects', description: d('rejects'), note: 'threw: no luck' },
    { id: 'number', description: d('number'), note: 'returned number, not {summary, data} or undefined' },
    { id: 'cyclic', description: d('cyclic'), note: m.providers[6].note },
    { id: 'nodata', description: d('nodata'), summary: '5' },
  ]);
  assert.match(m.providers[6].note, /^data is not JSON: .*circular/i);
});

test('a sample without slow providers answers at once', async () => {
  const clock = new FakeClock();
  const page = load({ clock: clock.api });
  await page.mc.registerContextProvider(provider('a', () => ({ summary: 'a' })));
  page.port.postMessage({ type: 'sample', id: 1 });
  const m = await next(page, sampled(1)); // the page's clock stands still
  assert.equal(clock.seq, 0, 'no timer set: nothing to wait for');
  assert.deepEqual(plain(m.providers), [{ id: 'a', description: 'the a provider', summary: 'a' }]);
  page.port.postMessage({ type: 'sample', id: 2 });
  page.mc.unregisterContextProvider('a');
  assert.deepEqual(plain((await next(page, sampled(2))).providers), [],
    'a sample takes the providers of the moment it runs, after the unregistration');
});

test('contextChanged tells the relay, once per burst', async () => {
  const page = load();
  page.mc.contextChanged();
  page.mc.contextChanged('trace.Timeline#selection');
  page.win.ModelContext.prototype.contextChanged.call(page.mc);
  await next(page, (m) => m.type === 'contextChanged');
  page.port.postMessage({ type: 'sync' });
  await next(page, toolsMsg([]));
  assert.equal(page.messages.filter((m) => m.type === 'contextChanged').length, 0);
});

test('a page that assigns its own modelContext gets the context API too', async () => {
  const page = load();
  const theirs = { registerTool() {} };
  page.nav.modelContext = theirs;
  // Noticed when the bridge next looks (here: when the document is parsed).
  page.doc.dispatchEvent(new Event('DOMContentLoaded'));
  assert.equal(typeof theirs.registerContextProvider, 'function');
  await theirs.registerContextProvider(provider('mine', () => ({ summary: 'x' })));
  await next(page, providersMsg(['mine']));
  const own = { registerTool() {}, registerContextProvider: () => 'their own' };
  page.nav.modelContext = own;
  page.win.dispatchEvent(new Event('load'));
  assert.equal(own.registerContextProvider(), 'their own', 'one it has already stays');
});
