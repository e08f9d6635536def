// What the panel says in words (ui/connection.js, and the sections rendered
// in a fake DOM): checked here, where Node runs it; the panel itself is tested in real Chromium (e2e/panel_test.go).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { installDOM } from './fakes/dom.js';
import { NOT_CONNECTED, README_URL, renderConnection } from '../ui/connection.js';
import { renderChips } from '../ui/context.js';
import { renderSite } from '../ui/site.js';
import { renderTools } from '../ui/tools.js';

test('not connected: the panel names the per-profile install step, and no restart', () => {
  assert.match(NOT_CONNECTED, /\.\/install\.sh --user-data-dir DIR/);
  assert.match(NOT_CONNECTED, /connects by itself/);
  assert.match(NOT_CONNECTED, /webmcp-shim doctor/);
  assert.doesNotMatch(NOT_CONNECTED, /restart/i);
});

// The sections rendered in a fake DOM (fakes/dom.js): their words and links.
installDOM();
const section = () => globalThis.document.createElement('div');

test('"the README" in the panel is a link to the project\'s README', () => {
  for (const state of [{ host: { connected: false }, agents: [] }, { host: { connected: true }, agents: [] }]) {
    const el = section();
    renderConnection(el, state);
    assert.match(el.textContent, /\(see the README\)/);
    const links = el.querySelectorAll('a').filter((a) => a.textContent === 'the README');
    assert.equal(links.length, 1, `connected ${state.host.connected}: one link, in ${el.textContent}`);
    assert.equal(links[0].getAttribute('href'), README_URL);
    assert.equal(links[0].getAttribute('target'), '_blank');
  }
  assert.match(README_URL, /^https:\/\/github\.com\/webmcp-bridge\/bridge#readme$/);
});

test('a tab whose site is not allowed: the panel says so once, and how to allow it; never "not a web page"', () => {
  const state = {
    host: { connected: true }, agents: [], pins: [], chips: [], tools: [], leftOut: [], site: null,
    tab: { id: 7, url: '', title: '', web: false, hidden: true },
  };
  const actions = { send: async () => ({}), refresh() {}, report() {}, openRaw: new Set() };
  const words = [renderSite, renderChips, renderTools].map((render) => {
    const el = section();
    render(el, state, actions);
    return el.textContent;
  }).join('\n');
  assert.equal(words.match(/not allowed/g).length, 1, words);
  assert.match(words, /toolbar button/);
  assert.match(words, /Let local agents use this site/);
  assert.doesNotMatch(words, /not a web page/);
});

test('a tab that is not a web page: said once', () => {
  const state = {
    host: { connected: true }, agents: [], pins: [], chips: [], tools: [], leftOut: [], site: null,
    tab: { id: 8, url: 'chrome://settings/', title: 'Settings', web: false },
  };
  const actions = { send: async () => ({}), refresh() {}, report() {}, openRaw: new Set() };
  const words = [renderSite, renderChips, renderTools].map((render) => {
    const el = section();
    render(el, state, actions);
    return el.textContent;
  }).join('\n');
  assert.equal(words.match(/not a web page/g).length, 1, words);
});
