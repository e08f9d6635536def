import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_ALLOW_LIST, compileAllowList } from '../lib/allowlist.js';
import { fromMatchPattern, migrate, originMatchPattern, registrationFor, scriptsFor, siteList, toMatchPattern } from '../lib/sitepatterns.js';
import { Sites } from '../worker/sites.js';
import { REQUIRED_ORIGINS, fakeChrome } from './fakes/chrome.js';
import { drain } from './fakes/clock.js';

// A Sites over chrome, recording what it applies and the registration calls.
function sitesOver(chrome) {
  const applied = [];
  const warnings = [];
  const calls = [];
  for (const k of ['registerContentScripts', 'unregisterContentScripts']) {
    const f = chrome.scripting[k];
    chrome.scripting[k] = (...a) => (calls.push(k), f(...a));
  }
  const sites = new Sites({ chrome, log: { warn: (m) => warnings.push(m) }, apply: (list) => applied.push(list) });
  sites.listen();
  return { sites, applied, warnings, calls };
}

test('match patterns and allow-list patterns translate both ways', () => {
  assert.equal(fromMatchPattern('http://localhost/*'), 'http://localhost:*');
  assert.equal(fromMatchPattern('http://[::1]/*'), 'http://[::1]:*');
  assert.equal(fromMatchPattern('http://127.0.0.2:9000/*'), 'http://127.0.0.2:9000');
  assert.equal(fromMatchPattern('https://*.example.com/*'), 'https://*.example.com:*');
  assert.equal(fromMatchPattern('<all_urls>'), '*://*:*');
  assert.equal(fromMatchPattern('file:///*'), '');
  assert.equal(toMatchPattern('http://localhost:*'), 'http://localhost/*');
  assert.equal(toMatchPattern('http://[::1]:*'), 'http://[::1]/*');
  assert.equal(toMatchPattern('http://127.0.0.2:9000'), 'http://127.0.0.2:9000/*');
  assert.equal(toMatchPattern('https://example.com'), 'https://example.com/*', 'the default port: every port of the host');
  assert.equal(toMatchPattern('*://*.example.com:8443'), '*://*.example.com:8443/*');
  assert.equal(originMatchPattern('http://127.0.0.2:9000'), 'http://127.0.0.2:9000/*');
  assert.throws(() => originMatchPattern('chrome://newtab'), /only web sites/);
  // The required grants read as the default allow list.
  assert.deepEqual(siteList(REQUIRED_ORIGINS, []).sort(), [...DEFAULT_ALLOW_LIST].sort());
  assert.deepEqual(registrationFor(['http://localhost:*', '!http://localhost:8080']), { matches: ['http://localhost/*'], excludeMatches: ['http://localhost:8080/*'] });
  assert.deepEqual(scriptsFor(['!http://localhost:8080']), [], 'nothing allowed: nothing registered');
});

test('at start the content scripts are registered for the granted sites only: the page\'s world first, every frame, at document_start', async () => {
  const chrome = fakeChrome();
  const { sites, applied } = sitesOver(chrome);
  await sites.load();
  assert.deepEqual(applied.at(-1).sort(), [...DEFAULT_ALLOW_LIST].sort());
  const [main, isolated] = await chrome.scripting.getRegisteredContentScripts();
  assert.deepEqual(main, {
    id: 'webmcp-main', js: ['generated/main-world.js'], world: 'MAIN', matches: [...REQUIRED_ORIGINS].sort(),
    allFrames: true, runAt: 'document_start', persistAcrossSessions: true, matchOriginAsFallback: true,
  });
  assert.deepEqual([isolated.id, isolated.js, isolated.world, isolated.matches], ['webmcp-isolated', ['generated/isolated-world.js'], undefined, main.matches]);
});

test('the registration follows the browser\'s grants, and a restarted worker leaves a registration that is right alone', async () => {
  const chrome = fakeChrome();
  const { sites, calls } = sitesOver(chrome);
  await sites.load();
  // The user grants a site in the browser's extension settings.
  chrome.grant(['https://app.example/*']);
  await drain();
  await sites.refresh();
  assert.ok(chrome.scripting.registered.get('webmcp-main').matches.includes('https://app.example/*'));
  assert.equal(sites.allows('https://app.example'), true);
  // ... and takes every site back, the required ones too.
  chrome.revoke([...REQUIRED_ORIGINS, 'https://app.example/*']);
  await drain();
  await sites.refresh();
  assert.equal(chrome.scripting.registered.size, 0, 'nothing allowed: no script anywhere');
  chrome.grant(['http://localhost/*']);
  await drain();
  await sites.refresh();
  assert.deepEqual(chrome.scripting.registered.get('webmcp-main').matches, ['http://localhost/*']);

  // A new worker (the old one stopped; the registration persists).
  calls.length = 0;
  const again = sitesOver(chrome);
  await again.sites.load();
  assert.deepEqual(again.calls, [], 'no unregister or register when the registration is right');
  assert.deepEqual(again.applied.at(-1), ['http://localhost:*']);
});

test('turning off an origin under a required grant blocks it (excluded from the scripts); on again lifts the block', async () => {
  const chrome = fakeChrome();
  const { sites } = sitesOver(chrome);
  await sites.load();
  await sites.deny('http://localhost:8080');
  assert.equal(sites.allows('http://localhost:8080'), false);
  assert.equal(sites.allows('http://localhost:3000'), true);
  assert.deepEqual(chrome.storage.local.peek('siteBlocks'), ['http://localhost:8080']);
  assert.deepEqual(chrome.scripting.registered.get('webmcp-main').excludeMatches, ['http://localhost:8080/*']);
  await sites.allow('http://localhost:8080');
  assert.equal(sites.allows('http://localhost:8080'), true);
  assert.equal(chrome.scripting.registered.get('webmcp-main').excludeMatches, undefined);
  // Removing a default entry: the browser keeps a required grant, so it is blocked.
  await sites.remove('http://localhost:*');
  assert.equal(sites.allows('http://localhost:3000'), false);
  assert.ok(sites.list.includes('!http://localhost:*'));
});

test('a granted site turned off goes back to the browser', async () => {
  const chrome = fakeChrome({ origins: ['https://app.example/*'] });
  const { sites } = sitesOver(chrome);
  await sites.load();
  await sites.deny('https://app.example');
  assert.equal((await chrome.permissions.getAll()).origins.includes('https://app.example/*'), false);
  assert.equal(sites.allows('https://app.example'), false);
  assert.equal(chrome.storage.local.peek('siteBlocks'), undefined, 'no block needed');
});

test('a browser that does not take matchOriginAsFallback gets the scripts without it, and a warning', async () => {
  const chrome = fakeChrome();
  chrome.scripting.refuseKey = 'matchOriginAsFallback';
  const { sites, warnings } = sitesOver(chrome);
  await sites.load();
  assert.equal(chrome.scripting.registered.size, 2);
  assert.equal('matchOriginAsFallback' in chrome.scripting.registered.get('webmcp-main'), false);
  assert.match(warnings.join('\n'), /without matchOriginAsFallback/);
});

test('an allow list of an earlier version migrates: blocks stay, sites not granted wait for the user, the old key goes', async () => {
  const old = [...DEFAULT_ALLOW_LIST, 'https://a.example', '*://*.b.example:*', '!http://localhost:8080', 'http://localhost:3000'];
  const m = migrate(old, compileAllowList(DEFAULT_ALLOW_LIST).allows);
  assert.deepEqual(m, { blocks: ['http://localhost:8080'], pending: ['https://a.example', '*://*.b.example:*'] });
  // A default the user had removed stays off, as a block.
  const noV6 = migrate(DEFAULT_ALLOW_LIST.filter((d) => !d.includes('[::1]')), compileAllowList(DEFAULT_ALLOW_LIST).allows);
  assert.deepEqual(noV6, { blocks: ['http://[::1]:*', 'https://[::1]:*'], pending: [] });

  const chrome = fakeChrome({ storage: { allowList: old } });
  const { sites, warnings } = sitesOver(chrome);
  await sites.load();
  assert.equal(chrome.storage.local.peek('allowList'), undefined);
  assert.deepEqual(sites.pending, ['https://a.example', '*://*.b.example:*']);
  assert.equal(sites.allows('https://a.example'), false, 'not allowed until the browser grants it');
  assert.equal(sites.allows('http://localhost:8080'), false);
  assert.match(warnings.join('\n'), /must be allowed again in the panel/);
  // The user's "Allow again" (ui/sites-list.js asks the browser).
  await chrome.permissions.request({ origins: [toMatchPattern('https://a.example')] });
  await drain();
  await sites.refresh();
  assert.deepEqual(sites.pending, ['*://*.b.example:*']);
  assert.equal(sites.allows('https://a.example'), true);
});
