import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_ALLOW_LIST, allowListFrom, compileAllowList, parsePattern, siteFromInput, webOrigin } from '../lib/allowlist.js';

test('the default list allows loopback on any port, over http and https', () => {
  const { allows, errors } = compileAllowList(DEFAULT_ALLOW_LIST);
  assert.deepEqual(errors, []);
  for (const o of [
    'http://localhost', 'http://localhost:8080', 'https://localhost:8443', 'http://127.0.0.1:1',
    'https://127.0.0.1', 'http://[::1]:3000', 'https://[::1]', 'HTTP://LOCALHOST:9',
  ]) {
    assert.equal(allows(o), true, o);
  }
  for (const o of [
    'http://example.com', 'https://localhost.example.com', 'http://127.0.0.2:80', 'http://[::2]:80',
    'http://sub.localhost:8080', 'ftp://localhost', 'file:///index.html', 'chrome://newtab',
    'null', '', 'about:blank', 'not a url', 'http://localhost@evil.example',
  ]) {
    assert.equal(allows(o), false, o);
  }
});

test('full URLs are judged by their origin', () => {
  const { allows } = compileAllowList(DEFAULT_ALLOW_LIST);
  assert.equal(allows('http://127.0.0.1:5555/index.html?frame=x#y'), true);
  assert.equal(allows('http://example.com/?u=http://localhost'), false);
});

test('patterns: schemes, ports and subdomains', () => {
  const { allows, errors } = compileAllowList([
    'https://example.com',
    '*://*.corp.example:*',
    'http://intranet:8080/',
    'https://[2001:db8::1]:*',
  ]);
  assert.deepEqual(errors, []);
  const cases = [
    ['https://example.com', true],
    ['https://example.com:443', true],
    ['https://example.com:8443', false],
    ['http://example.com', false],
    ['https://www.example.com', false],
    ['http://corp.example:1', true],
    ['https://a.b.corp.example', true],
    ['https://evilcorp.example', false],
    ['http://intranet:8080', true],
    ['http://intranet', false],
    ['https://[2001:db8::1]:9', true],
    ['https://[2001:db8::2]', false],
  ];
  for (const [o, want] of cases) assert.equal(allows(o), want, o);
});

test('a lone * host allows every host, but only over the web schemes', () => {
  const { allows } = compileAllowList(['*://*:*']);
  assert.equal(allows('https://anything.example:1234'), true);
  assert.equal(allows('file:///index.html'), false);
});

test('default ports are the same as no port', () => {
  assert.deepEqual(parsePattern('http://a.example:80'), parsePattern('http://a.example'));
  const { allows } = compileAllowList(['http://a.example:80']);
  assert.equal(allows('http://a.example'), true);
  assert.equal(allows('http://a.example:81'), false);
});

test('bad patterns are reported and left out, the rest still works', () => {
  const { allows, errors, patterns } = compileAllowList([
    'localhost', 'ftp://x.example', 'http://a*b.example', 'http://x.example:99999', 'http://x.example/path',
    42, 'http://ok.example',
  ]);
  assert.equal(errors.length, 6);
  assert.deepEqual(patterns, ['http://ok.example']);
  assert.match(errors[0], /is not of the form "scheme:\/\/host\[:port\]"/);
  assert.match(errors[2], /"\*" may only stand alone/);
  assert.match(errors[3], /above 65535/);
  assert.equal(allows('http://ok.example'), true);
  assert.equal(allows('http://x.example'), false);
});

test('hosts are normalised like the browser does', () => {
  assert.equal(parsePattern('http://EXAMPLE.com').host, 'example.com');
  assert.equal(parsePattern('http://bücher.example').host, 'xn--bcher-kva.example');
  const { allows } = compileAllowList(['http://bücher.example']);
  assert.equal(allows('http://xn--bcher-kva.example'), true);
});

test('webOrigin keeps only http and https', () => {
  assert.equal(webOrigin('https://a.example:8443/x?y'), 'https://a.example:8443');
  assert.equal(webOrigin('http://a.example:80/'), 'http://a.example');
  assert.equal(webOrigin('chrome-extension://abc/x'), '');
  assert.equal(webOrigin('about:blank'), '');
  assert.equal(webOrigin(undefined), '');
});

test('allowListFrom falls back to the default', () => {
  assert.deepEqual(allowListFrom(undefined), [...DEFAULT_ALLOW_LIST]);
  assert.deepEqual(allowListFrom('http://x'), [...DEFAULT_ALLOW_LIST]);
  assert.deepEqual(allowListFrom([1, 2]), [...DEFAULT_ALLOW_LIST]);
  assert.deepEqual(allowListFrom([]), []);
  assert.deepEqual(allowListFrom(['https://a.example']), ['https://a.example']);
});

test('what a person types to allow a site: a URL keeps only its origin; a bare host is https', () => {
  assert.deepEqual(siteFromInput('https://example.com/some/path'), { origin: 'https://example.com', assumedHttps: false, dropped: '/some/path' });
  assert.deepEqual(siteFromInput(' example.com '), { origin: 'https://example.com', assumedHttps: true, dropped: '' });
  assert.deepEqual(siteFromInput('localhost:8080/app?x=1#y'), { origin: 'https://localhost:8080', assumedHttps: true, dropped: '/app?x=1#y' });
  assert.deepEqual(siteFromInput('http://127.0.0.2:3000'), { origin: 'http://127.0.0.2:3000', assumedHttps: false, dropped: '' });
  for (const bad of ['', 'file:///etc/passwd', 'ftp://example.com', 'exa mple.com', 'https://']) {
    assert.match(siteFromInput(bad).error, /type/i, JSON.stringify(bad));
  }
});

test('webOrigin answers the same for a URL it met before, however many came between', () => {
  const urls = Array.from({ length: 600 }, (_, i) => `https://h${i}.example:${1000 + i}/p?q=${i}`);
  const first = urls.map(webOrigin);
  assert.deepEqual(first.slice(0, 2), ['https://h0.example:1000', 'https://h1.example:1001']);
  assert.deepEqual(urls.map(webOrigin), first);
  assert.deepEqual([webOrigin('ftp://x.example/'), webOrigin('ftp://x.example/'), webOrigin('not a url'), webOrigin('not a url')], ['', '', '', '']);
});
