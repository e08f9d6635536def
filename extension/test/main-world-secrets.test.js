// The page's world cannot learn the bridge's secret event name, nor read
// what the bridge tells the relay through it: the main-world script takes
// the getters it reads events through at start (before any page script),
// and builds the objects it hands the page's built-ins (event init
// dictionaries, the messages) with no prototype, so that neither a page's
// replaced CustomEvent.prototype.detail or MessageEvent.prototype.data nor
// getters on Object.prototype see them.
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { closePorts, load, next, tool, toolsMsg } from './fakes/main-world.js';

afterEach(closePorts);

const SECRET = 'webmcp-dialog-s3cr3t';

// A page that spies: it replaces the event getters and puts getters on
// Object.prototype and Array.prototype, recording whatever they are
// called with.
const SPY = `
  globalThis.leaks = [];
  let busy = false;
  const seen = (what, v) => {
    if (busy) return;
    busy = true;
    try {
      let text;
      try { text = JSON.stringify(Object.getOwnPropertyNames(v).map((k) => [k, String(Object.getOwnPropertyDescriptor(v, k).value)])); } catch { text = '?'; }
      leaks.push(what + ': ' + text);
    } finally {
      busy = false;
    }
  };
  for (const [C, name] of [[CustomEvent, 'detail'], [MessageEvent, 'data'], [MessageEvent, 'source'], [MessageEvent, 'ports']]) {
    const orig = Object.getOwnPropertyDescriptor(C.prototype, name).get;
    Object.defineProperty(C.prototype, name, { configurable: true, get() {
      const v = orig.call(this);
      leaks.push(C.name + '.' + name + ' of ' + this.type + ': ' + JSON.stringify(v === window ? 'window' : v));
      return v;
    } });
  }
  for (const P of [Object.prototype, Array.prototype]) {
    for (const name of ['bubbles', 'cancelable', 'composed', 'detail', 'toJSON']) {
      Object.defineProperty(P, name, { configurable: true, get() { seen(name, this); return undefined; } });
    }
  }
`;

test('a page that replaced the event getters and spies on Object.prototype learns neither the event name nor the messages', async () => {
  const page = load({ events: true, dialogEvent: SECRET, alert: true, pageScript: SPY });
  const { global, win } = page;
  // The relay's side: it listens for the secret event (with the getter it took at start).
  const detailOf = Object.getOwnPropertyDescriptor(global.CustomEvent.prototype, 'detail');
  const heard = [];
  win.addEventListener(SECRET, (e) => heard.push(e));
  await page.mc.registerTool(tool('echo'));
  await next(page, toolsMsg(['echo']));
  const leaksBefore = [...global.leaks];
  global.leaks.length = 0;

  win.alert('hello'); // a dialog: the relay hears of it synchronously
  assert.equal(heard.length, 2, 'the relay heard the dialog open and close');
  // Read the detail as the relay does: not through the page's world.
  const details = heard.map((e) => JSON.parse(Reflect.apply(detailOf.get, e, [])));
  assert.equal(details[0].open, true);
  assert.equal(details[0].kind, 'alert');
  assert.equal(details[0].text, 'hello');
  assert.deepEqual(details[0].tools.map((t) => t.name), ['echo']);
  assert.equal(details[1].open, false);
  // The test's own reads through the replaced getter are the test's: forget them.
  const leaks = [...leaksBefore, ...global.leaks].filter((l) => !l.startsWith('CustomEvent.detail of ' + SECRET + ': "'));
  // (The page may see its own tools' copies: they are its own words.)
  assert.deepEqual(leaks.filter((l) => l.includes(SECRET) || /hello|alert|open|__webmcpBridge|dialogEvent/.test(l)), [],
    'the page saw the bridge\'s event name or its messages');

  // A call still goes both ways over the private channel.
  page.port.postMessage({ type: 'call', id: 'c1', name: 'echo', arguments: {} });
  const m = await next(page, (x) => x.id === 'c1');
  assert.equal(m.type, 'result');
  assert.deepEqual([...global.leaks].filter((l) => /c1|"call"|"result"/.test(l)), [], 'the page saw the channel\'s messages');
});
