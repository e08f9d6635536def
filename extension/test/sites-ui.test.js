// The panel's "Allow another site" field (ui/sites-list.js) while the browser's
// own prompt is up: ui/sitegrant.js asks chrome.permissions.request, which
// a fake chrome here answers when the test says (headless Chromium shows
// the prompt but never answers it, so e2e cannot).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { installDOM } from './fakes/dom.js';
import { askingText, renderSites } from '../ui/sites-list.js';

/** A chrome whose permissions.request waits for the test: answer(true|false) or fail(message). */
function promptingChrome() {
  const asked = [];
  globalThis.chrome = {
    permissions: {
      request({ origins }) {
        return new Promise((resolve, reject) => {
          asked.push({ origins, answer: resolve, fail: (m) => reject(new Error(m)) });
        });
      },
    },
  };
  return asked;
}

/** The list rendered with actions that record what they were told; the field, button and message. */
function mounted(entries = []) {
  const el = installDOM();
  const sent = [];
  const reports = [];
  const actions = {
    send: async (type, params) => {
      sent.push({ type, params });
      return { origin: params.origin, allowed: true };
    },
    refresh: () => renderSites(el, { entries }, actions),
    report: (text, isError = false) => reports.push({ text, isError }),
  };
  renderSites(el, { entries }, actions);
  const parts = () => ({
    form: el.querySelector('form'),
    input: el.querySelector('#add-site-input'),
    button: el.querySelector('#add-site-button'),
    msg: el.querySelector('#add-site-msg'),
  });
  const submit = (value) => {
    parts().input.value = value;
    return parts().form.dispatch('submit')[0];
  };
  return { el, sent, reports, parts, submit };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

test('while the browser asks: the field says so, replaces the old error, and the button waits; granted: the site is turned on and named', async () => {
  const asked = promptingChrome();
  const m = mounted();
  await m.submit('');
  assert.match(m.parts().msg.textContent, /Type a site/);
  assert.equal(m.parts().msg.classList.contains('error'), true);

  const done = m.submit('https://shop.example/cart');
  assert.equal(asked.length, 1, 'the browser is asked during the click');
  assert.deepEqual(asked[0].origins, ['https://shop.example/*']);
  assert.equal(m.parts().msg.textContent, askingText('https://shop.example'));
  assert.match(m.parts().msg.textContent, /The browser is asking you to allow https:\/\/shop\.example/);
  assert.equal(m.parts().msg.classList.contains('error'), false, 'the old error is gone');
  assert.equal(m.parts().button.disabled, true, 'Allow waits for the browser');

  // A render meanwhile (another change) keeps the state; a second click does not ask again.
  m.parts().form.dispatch('submit');
  assert.equal(asked.length, 1);
  renderSites(m.el, { entries: [] }, { send: async () => ({}), refresh() {}, report() {} });
  assert.equal(m.parts().button.disabled, true);
  assert.match(m.parts().msg.textContent, /is asking you/);

  asked[0].answer(true);
  await done;
  assert.deepEqual(m.sent, [{ type: 'site/set', params: { origin: 'https://shop.example', on: true } }]);
  assert.match(m.parts().msg.textContent, /^Agents may now use https:\/\/shop\.example \(the whole site, not only \/cart\)\./);
  assert.equal(!!m.parts().button.disabled, false);
  assert.equal(m.parts().input.value || '', '', 'the field is empty for the next site');
});

test('the prompt declined or closed: the field says nothing changed and how to be asked again; Allow works again', async () => {
  const asked = promptingChrome();
  const m = mounted();
  const done = m.submit('example.org');
  assert.equal(m.parts().button.disabled, true);
  asked[0].answer(false);
  await done;
  assert.equal(m.sent.length, 0, 'nothing turned on');
  assert.equal(m.parts().msg.textContent, "You declined or closed the browser's prompt for https://example.org: nothing changed. Click Allow to be asked again.");
  assert.equal(m.parts().msg.classList.contains('error'), true);
  assert.equal(!!m.parts().button.disabled, false);
  assert.equal(m.parts().input.value, 'example.org', 'what was typed stays');

  // Typing again takes the error away.
  m.parts().input.dispatch('input');
  assert.equal(m.parts().msg.textContent, '');
  const again = m.submit('example.org');
  assert.equal(asked.length, 2, 'asked again');
  asked[1].answer(true);
  await again;
  assert.match(m.parts().msg.textContent, /^Agents may now use https:\/\/example\.org \(https, since you typed no scheme\)\./);
});

test('the browser refuses to ask: the field says so and what to do', async () => {
  const asked = promptingChrome();
  const m = mounted();
  const done = m.submit('https://b.example');
  asked[0].fail('This function must be called during a user gesture');
  await done;
  assert.match(m.parts().msg.textContent, /^Could not allow https:\/\/b\.example: the browser did not ask for https:\/\/b\.example \(This function must be called during a user gesture\); click the switch or button again$/);
  assert.equal(!!m.parts().button.disabled, false);
  await tick();
});

test('"Allow again": the button waits for the browser, which is said to ask', async () => {
  const asked = promptingChrome();
  const m = mounted([{ entry: 'https://old.example', pending: true }]);
  const again = m.el.descendants().find((e) => e.getAttribute('aria-label') === 'Allow https://old.example again');
  const done = again.dispatch('click')[0];
  assert.equal(again.disabled, true);
  assert.equal(m.reports.at(-1).text, askingText('https://old.example'));
  asked[0].answer(false);
  await done;
  assert.match(m.reports.at(-1).text, /declined or closed/);
  assert.equal(m.reports.at(-1).isError, true);
});
