import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileAllowList, DEFAULT_ALLOW_LIST, setSiteAllowed } from '../lib/allowlist.js';
import { mergeContext } from '../lib/contexts.js';
import { excludedFor, exclusionsFrom, isExcluded, setIncluded, storedExclusions } from '../lib/exclusions.js';

const SITE = 'https://app.example';

test('exclusions: set, stored, read back; garbage is dropped', () => {
  let m = exclusionsFrom(undefined);
  m = setIncluded(m, `${SITE}/some/page`, { providerId: 'a.B#c' }, false);
  m = setIncluded(m, SITE, { ambient: true }, false);
  assert.equal(isExcluded(m, `${SITE}/x`, 'a.B#c'), true);
  assert.equal(isExcluded(m, 'https://other.example', 'a.B#c'), false);
  const stored = storedExclusions(m);
  assert.deepEqual(stored, { [SITE]: { providers: ['a.B#c'], ambient: true } });
  const back = exclusionsFrom(JSON.parse(JSON.stringify(stored)));
  assert.deepEqual(storedExclusions(back), stored);
  // Including everything again leaves nothing stored for the site.
  m = setIncluded(setIncluded(back, SITE, { providerId: 'a.B#c' }, true), SITE, { ambient: true }, true);
  assert.deepEqual(storedExclusions(m), {});
  assert.equal(excludedFor(m, SITE), null);
  // The input is left alone.
  assert.equal(isExcluded(back, SITE, 'a.B#c'), true);
  assert.deepEqual(storedExclusions(exclusionsFrom({ 'not a url': { providers: ['x'] }, [SITE]: 'x', 'chrome://x': {} })), {});
  assert.throws(() => setIncluded(m, 'chrome://newtab', { providerId: 'x' }, false), /not the origin of a web page/);
  assert.throws(() => setIncluded(m, SITE, {}, false), /provider id/);
});

test('mergeContext leaves out the excluded providers and ambient context', () => {
  const tab = { id: 3, url: `${SITE}/`, title: 'T' };
  const frames = [{
    frameId: 0,
    providers: [{ id: 'a' }, { id: 'b' }],
    context: { providers: [{ id: 'a', summary: 'A' }, { id: 'b', summary: 'B' }], ambient: { selection: 'x' } },
  }];
  assert.deepEqual(mergeContext(tab, frames, { providers: new Set(['a']), ambient: true }), {
    tabId: 3, url: `${SITE}/`, title: 'T', providers: [{ id: 'b', summary: 'B' }],
  });
  assert.equal(mergeContext(tab, frames, null).providers.length, 2);
});

test('a site turned off that the defaults allow is blocked by a "!" entry; on again removes it', () => {
  const local = 'http://localhost:8080';
  let list = setSiteAllowed(DEFAULT_ALLOW_LIST, local, false);
  assert.deepEqual(list, [...DEFAULT_ALLOW_LIST, `!${local}`]);
  const c = compileAllowList(list);
  assert.equal(c.allows(`${local}/page`), false);
  assert.equal(c.allows('http://localhost:8081'), true);
  list = setSiteAllowed(list, local, true);
  assert.deepEqual(list, [...DEFAULT_ALLOW_LIST]);
});

test('a new site is added once, and turned off by removing its entry', () => {
  const site = 'http://127.0.0.2:9000';
  let list = setSiteAllowed(DEFAULT_ALLOW_LIST, `${site}/index.html`, true);
  assert.deepEqual(list, [...DEFAULT_ALLOW_LIST, site]);
  assert.deepEqual(setSiteAllowed(list, site, true), list);
  assert.equal(compileAllowList(list).allows(site), true);
  list = setSiteAllowed(list, site, false);
  assert.deepEqual(list, [...DEFAULT_ALLOW_LIST]);
  assert.equal(compileAllowList(list).allows(site), false);
  // A default port is the origin's own: https://example.com matches :443 only.
  list = setSiteAllowed([], 'https://example.com:443/x', true);
  assert.deepEqual(list, ['https://example.com']);
  assert.throws(() => setSiteAllowed([], 'file:///x', true), /only web sites/);
});
