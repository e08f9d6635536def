// Constants that more than one part of the extension needs, where those
// parts cannot import one another (the page's world gets one bundled classic
// script, the relay is a classic content script): each has one home, and
// every copy of it in the extension's sources (the generated content/main.js
// included) must agree with that home.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { HINTS, HOST_NAME } from '../lib/protocol.js';
import '../lib/snapshot.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LIMITS = JSON.parse(fs.readFileSync(new URL('../../testdata/limits/uicontext.json', import.meta.url), 'utf8'));

/** Every .js file of the extension but its tests. */
function sources(dir = ROOT) {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'test' && e.name !== 'node_modules') out.push(...sources(p));
    } else if (e.name.endsWith('.js')) {
      out.push(p);
    }
  }
  return out;
}

/** Every declaration `const|let|var NAME = <literal>;` in the sources: [{file, value}]. */
function declarations(name) {
  const re = new RegExp(`\\b(?:const|let|var)\\s+${name}\\s*=\\s*([^;\\n]+);`, 'g');
  const out = [];
  for (const file of sources()) {
    for (const m of fs.readFileSync(file, 'utf8').matchAll(re)) {
      let value;
      try {
        value = new Function(`return (${m[1]});`)(); // a literal: a string, a number or an array of strings
      } catch {
        value = m[1]; // not a literal (an expression): shown as written
      }
      out.push({ file: path.relative(ROOT, file), value });
    }
  }
  return out;
}

const SHARED = {
  // The annotation hints a tool may carry: lib/protocol.js; the page's world
  // copies them to read a page's tools.
  HINTS: [...HINTS],
  // Context providers per document: lib/snapshot.js (the page's API
  // refuses more, the worker keeps no more).
  MAX_PROVIDERS: globalThis.webmcpLib.snapshot.MAX_PROVIDERS,
  // The key of the relay's one message that hands main.js its MessagePort.
  HANDOVER: '__webmcpBridgeHandover',
  // The name of the frames' Ports to the worker.
  PORT_NAME: 'webmcp-frame',
  // Sizes of results: lib/chunks.js; the relay cuts and refuses with copies.
  MAX_RESULT: 64 << 20,
  MAX_WHOLE: 32 << 20,
  CHUNK_UNITS: 8 << 20,
};

for (const [name, want] of Object.entries(SHARED)) {
  test(`${name}: every copy agrees`, () => {
    const found = declarations(name);
    // The relay and the page's world (or the worker) each need one: a copy
    // that was renamed away would leave a single declaration.
    assert.ok(found.length >= 2, `${name} is declared ${found.length} times: ${JSON.stringify(found)}`);
    for (const { file, value } of found) assert.deepEqual(value, want, `${name} in ${file}`);
  });
}

test('MAX_PROVIDERS is the limit of testdata/limits/uicontext.json', () => {
  assert.equal(SHARED.MAX_PROVIDERS, LIMITS.extension.providersPerDocument);
});

test('the hints are the fields of Go\'s webmcp.Annotations, and the host name is webmcp.HostName', () => {
  const state = fs.readFileSync(new URL('../../webmcp/state.go', import.meta.url), 'utf8');
  const body = /type Annotations struct \{([^}]*)\}/.exec(state)[1];
  assert.deepEqual([...body.matchAll(/json:"(\w+)/g)].map((m) => m[1]), SHARED.HINTS);
  const names = fs.readFileSync(new URL('../../webmcp/names.go', import.meta.url), 'utf8');
  assert.equal(/const HostName = "([^"]+)"/.exec(names)[1], HOST_NAME);
});

test('MAX_RESULT and MAX_WHOLE are webmcp.MaxResult and webmcp.MaxBrowserChunk', () => {
  const msg = fs.readFileSync(new URL('../../webmcp/message.go', import.meta.url), 'utf8');
  const value = (name) => new Function(`return (${new RegExp(`const ${name} = ([^\n]+)`).exec(msg)[1]});`)();
  assert.equal(value('MaxResult'), SHARED.MAX_RESULT);
  assert.equal(value('MaxBrowserChunk'), SHARED.MAX_WHOLE);
});
