// The worker closes chrome.storage to content scripts at start: the allow
// list, the site settings and the exclusions (storage.local) and this
// session's grants and activity (storage.session) are for the extension's
// own pages and the worker alone. A browser without setAccessLevel, or
// one that refuses it for an area, gets a warning, and the worker goes on;
// Firefox, which keeps storage.session from content scripts by itself, gets
// one about storage.local only.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bootWorker } from './fakes/worker.js';

test('the worker closes storage.local and storage.session to content scripts at start', async () => {
  const { chrome, warnings, host } = await bootWorker();
  assert.equal(chrome.storage.local.accessLevel, 'TRUSTED_CONTEXTS');
  assert.equal(chrome.storage.session.accessLevel, 'TRUSTED_CONTEXTS');
  assert.deepEqual(warnings.filter((w) => /storage/.test(w)), []);
  assert.ok(host, 'the host link opened');
});

test('without setAccessLevel, or when the browser refuses it, the worker says so and starts', async () => {
  const { chrome, warnings, host } = await bootWorker({
    patch: (c) => {
      delete c.storage.local.setAccessLevel;
      c.storage.session.setAccessLevel = async () => {
        throw new Error('Access level can only be set for session storage');
      };
    },
  });
  assert.ok(host, 'the host link opened');
  assert.deepEqual(chrome.storage.local.accessLevel, undefined);
  assert.ok(warnings.some((w) => /chrome\.storage\.local\.setAccessLevel is missing/.test(w)), warnings.join('\n'));
  assert.ok(warnings.some((w) => /chrome\.storage\.session to content scripts: Access level can only be set/.test(w)), warnings.join('\n'));
});

test('in Firefox (no setAccessLevel at all), the worker warns about storage.local only, naming Firefox', async () => {
  const { warnings, host } = await bootWorker({
    patch: (c) => {
      c.runtime.getBrowserInfo = async () => ({ name: 'Firefox', vendor: 'Mozilla', version: '153.0' });
      delete c.storage.local.setAccessLevel;
      delete c.storage.session.setAccessLevel;
    },
  });
  assert.ok(host, 'the host link opened');
  const storage = warnings.filter((w) => /storage/.test(w));
  assert.equal(storage.length, 1, storage.join('\n'));
  assert.match(storage[0], /^Firefox has no chrome\.storage\.local\.setAccessLevel/);
});
