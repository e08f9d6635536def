import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChunkJoiner } from '../lib/chunks.js';
import { normalizeAmbient, normalizeFrameContext } from '../lib/contexts.js';
import {
  Code, HINTS, MAX_TOOL_BYTES, Method, T, browserInfo, checkHostMessage, errorMessage, helloMessage, normalizeTool,
  normalizeTools, pinsMessage, resultMessage, wireTool,
} from '../lib/protocol.js';
import * as S from '../lib/snapshot.js';
import { golden, goldenCase, goldenTypes } from './golden.js';

test('hello carries the browser, its instance and the extension id', () => {
  assert.deepEqual(helloMessage({ name: 'Chromium', version: '156.0.8078.108', instance: 'i1', extensionId: 'ofcj' }), {
    type: 'hello',
    protocol: 1,
    browser: { name: 'Chromium', version: '156.0.8078.108', instance: 'i1', extensionId: 'ofcj', batch: true },
  });
  assert.deepEqual(helloMessage({ name: 'Chromium' }).browser, { name: 'Chromium', batch: true });
});

test('browserInfo names the browser from its brands', () => {
  const grease = { brand: 'Not.A/Brand', version: '99.0.0.0' };
  assert.deepEqual(browserInfo({
    fullVersionList: [grease, { brand: 'Chromium', version: '156.0.8078.108' }],
  }), { name: 'Chromium', version: '156.0.8078.108' });
  assert.deepEqual(browserInfo({
    fullVersionList: [{ brand: 'Chromium', version: '140.0.1.2' }, { brand: 'Google Chrome', version: '140.0.1.2' }, grease],
  }), { name: 'Chrome', version: '140.0.1.2' });
  assert.deepEqual(browserInfo({
    brands: [{ brand: 'Microsoft Edge', version: '139' }, { brand: 'Chromium', version: '139' }, { brand: 'Not_A Brand', version: '24' }],
    userAgent: 'Mozilla/5.0 … Chrome/139.0.3405.86 Safari/537.36 Edg/139.0.3405.86',
  }), { name: 'Edge', version: '139.0.3405.86' });
  assert.deepEqual(browserInfo({ userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/156.0.8078.108 Safari/537.36' }),
    { name: 'Chromium', version: '156.0.8078.108' });
  assert.deepEqual(browserInfo({}), { name: 'Chromium', version: '' });
});

test('browserInfo names Firefox, which has no userAgentData, from its user agent', () => {
  assert.deepEqual(browserInfo({ userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:153.0) Gecko/20100101 Firefox/153.0' }),
    { name: 'Firefox', version: '153.0' });
});

test('results and errors', () => {
  assert.deepEqual(resultMessage('s1.2', { a: 1 }), { type: 'result', id: 's1.2', output: { a: 1 } });
  assert.deepEqual(resultMessage('s1.2', undefined), { type: 'result', id: 's1.2', output: null });
  assert.deepEqual(errorMessage('s1.3', Code.toolError, 'boom'), { type: 'error', id: 's1.3', error: { code: 'tool_error', message: 'boom' } });
  assert.equal(errorMessage('x', 'made_up', 'm').error.code, 'internal');
});

test('normalizeTool copies what the protocol carries, and only that', () => {
  const { tool, problem } = normalizeTool({
    name: 'find_slices',
    title: 'Find slices',
    description: 'Finds slices.',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } } },
    annotations: { readOnlyHint: true, destructiveHint: false, consequentialHint: true, openWorldHint: 'yes' },
    execute: 'ignored',
    extra: 1,
  });
  assert.equal(problem, undefined);
  assert.deepEqual(tool, {
    name: 'find_slices',
    title: 'Find slices',
    description: 'Finds slices.',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } } },
    annotations: { readOnlyHint: true, destructiveHint: false, consequentialHint: true },
    consequential: true,
  });
  assert.equal('consequential' in wireTool(1, 0, 'http://localhost', tool), false);
  assert.deepEqual(normalizeTool({ name: 'a', title: '', description: 3, annotations: {} }).tool, { name: 'a', description: '' });
});

test('normalizeTool refuses what the host could not use', () => {
  assert.match(normalizeTool(null).problem, /not an object/);
  assert.match(normalizeTool([]).problem, /not an object/);
  assert.match(normalizeTool({ name: 'bad name', description: 'd' }).problem, /invalid tool name "bad name"/);
  assert.match(normalizeTool({ name: 'x', description: 'd', inputSchema: [] }).problem, /inputSchema is not a JSON object/);
  assert.match(normalizeTool({ name: 'x', description: 'd', inputSchema: 'str' }).problem, /inputSchema is not a JSON object/);
  const big = normalizeTool({ name: 'x', description: 'd'.repeat(MAX_TOOL_BYTES) });
  assert.match(big.problem, /more than 1048576/);
});

test('normalizeTools drops bad and repeated tools and says why', () => {
  const { tools, problems } = normalizeTools([
    { name: 'a', description: 'first' },
    { name: 'a', description: 'second' },
    { name: '', description: 'x' },
    'nonsense',
  ]);
  assert.deepEqual(tools, [{ name: 'a', description: 'first' }]);
  assert.equal(problems.length, 3);
  assert.match(problems[0], /listed twice/);
  assert.deepEqual(normalizeTools('x').tools, []);
});

test('wireTool adds tab, frame and origin', () => {
  assert.deepEqual(wireTool(7, 2, 'http://localhost:1', { name: 'echo', description: 'd' }), {
    tabId: 7, frameId: 2, origin: 'http://localhost:1', name: 'echo', description: 'd',
  });
});

test('checkHostMessage fills in what Go leaves out', () => {
  assert.deepEqual(checkHostMessage({ type: 'call', id: 's1.1', tabId: 5, name: 'echo' }).msg,
    { type: 'call', id: 's1.1', tabId: 5, frameId: 0, name: 'echo', arguments: {} });
  assert.deepEqual(checkHostMessage({ type: 'cancel', id: 's1.1' }).msg, { type: 'cancel', id: 's1.1' });
  assert.equal(checkHostMessage({ type: 'chunk', id: 'c', data: '' }).msg.type, 'chunk');
  assert.equal(checkHostMessage({ type: 'hello', protocol: 1 }).msg.type, 'hello');
});

test('checkHostMessage answers bad calls at once and ignores the unanswerable', () => {
  const bad = [
    [{ type: 'call', id: 'x', tabId: 1.5, name: 'a' }, /integers/],
    [{ type: 'call', id: 'x', tabId: 1, frameId: -1, name: 'a' }, /integers/],
    [{ type: 'call', id: 'x', tabId: 1 }, /"name"/],
    [{ type: 'call', id: 'x', tabId: 1, name: 'a', arguments: [1] }, /JSON object/],
    [{ type: 'call', id: 'x', tabId: 1, name: 'a', arguments: 'str' }, /JSON object/],
  ];
  for (const [m, re] of bad) {
    const { reply } = checkHostMessage(m);
    assert.equal(reply.type, 'error');
    assert.equal(reply.id, 'x');
    assert.equal(reply.error.code, 'bad_request');
    assert.match(reply.error.message, re);
  }
  assert.match(checkHostMessage({ type: 'call', tabId: 1, name: 'a' }).ignore, /without "id"/);
  assert.match(checkHostMessage({ type: 'cancel' }).ignore, /without "id"/);
  assert.match(checkHostMessage({ type: 'telepathy' }).ignore, /unknown message type "telepathy"/);
  assert.match(checkHostMessage({ type: 'hello', protocol: 2 }).ignore, /protocol 2/);
  assert.match(checkHostMessage([]).ignore, /without "type"/);
  assert.match(checkHostMessage(null).ignore, /without "type"/);
});

test('checkHostMessage: requests, with params {} when Go leaves them out', () => {
  assert.deepEqual(checkHostMessage({ type: 'request', id: 's1.4', method: 'sampleContext' }).msg,
    { type: 'request', id: 's1.4', method: 'sampleContext', params: {} });
  assert.deepEqual(checkHostMessage({ type: 'request', id: 's1.5', method: 'pin', params: { providerId: 'a' } }).msg,
    { type: 'request', id: 's1.5', method: 'pin', params: { providerId: 'a' } });
  const unknown = checkHostMessage({ type: 'request', id: 's1.6', method: 'explode' }).reply;
  assert.equal(unknown.error.code, 'bad_request');
  assert.match(unknown.error.message, /unknown method "explode".*sampleContext, pin, unpin/);
  assert.equal(checkHostMessage({ type: 'request', id: 's1.7', method: 'unpin', params: [] }).reply.error.code, 'bad_request');
  assert.match(checkHostMessage({ type: 'request', method: 'pin' }).ignore, /without "id"/);
});

// ---- the golden messages of testdata/protocol (shared with the Go tests) ----

test('golden: one file per message type, and only those', () => {
  assert.deepEqual(goldenTypes(), Object.values(T).sort());
});

test('golden: error codes, in order, and errorMessage builds each', () => {
  const cases = golden('error');
  assert.deepEqual(cases.map((c) => c.message.error.code), Object.values(Code));
  for (const { message: m } of cases) {
    const built = errorMessage(m.id, m.error.code, m.error.message);
    assert.equal(JSON.stringify(built), JSON.stringify(m), m.error.code);
  }
});

test('golden: the extension\'s hello, results and pins come out of the builders exactly', () => {
  const hello = goldenCase('hello', 'extension to host').message;
  assert.equal(JSON.stringify(helloMessage(hello.browser)), JSON.stringify(hello));
  for (const { name, message: m } of golden('result')) {
    const built = resultMessage(m.id, m.output === null ? undefined : m.output, m.trace);
    assert.equal(JSON.stringify(built), JSON.stringify(m), name);
  }
  for (const { name, message: m } of golden('pins')) {
    assert.equal(JSON.stringify(pinsMessage(m.pins)), JSON.stringify(m), name);
  }
  assert.deepEqual(pinsMessage(undefined), goldenCase('pins', 'empty list').message);
});

test('golden: tools as the registry sends them, with every hint in order', () => {
  const { message } = goldenCase('toolsAdded', 'a top-frame tool with every field, and a tool of frame 3');
  for (const wire of message.tools) {
    const { tabId, frameId, origin, ...raw } = wire;
    const { tool, problem } = normalizeTool({ ...raw, execute() {} });
    assert.equal(problem, undefined);
    assert.equal(JSON.stringify(wireTool(tabId, frameId, origin, tool)), JSON.stringify(wire), wire.name);
  }
  assert.deepEqual(Object.keys(message.tools[0].annotations), HINTS);
});

test('golden: every message from the host passes checkHostMessage unchanged', () => {
  for (const type of ['call', 'cancel', 'request', 'chunk', 'hello', 'sessions']) {
    for (const c of golden(type)) {
      if (!c.links.includes('host->extension')) continue;
      for (const m of c.frames || [c.message]) {
        const r = checkHostMessage(m);
        assert.equal(r.ignore, undefined, `${type} ${c.name}: ${r.ignore}`);
        assert.equal(r.reply, undefined, `${type} ${c.name}`);
        assert.deepEqual(r.msg, m, `${type} ${c.name}`);
      }
    }
  }
  const methods = new Set(golden('request').map((c) => c.message.method));
  assert.deepEqual([...methods].sort(), Object.values(Method).sort());
  assert.equal(goldenCase('call', 'top frame (frameId 0)').message.frameId, 0);
});

test('golden: chunked frames join into the message', () => {
  for (const c of golden('chunk')) {
    const j = new ChunkJoiner();
    const texts = c.frames.map((f) => j.add(checkHostMessage(f).msg));
    assert.deepEqual(texts.slice(0, -1), c.frames.slice(0, -1).map(() => null));
    const text = texts.at(-1);
    assert.equal(text, JSON.stringify(c.joined), 'the text is what JSON.stringify writes');
    assert.deepEqual(checkHostMessage(JSON.parse(text)).msg, c.joined);
    for (const f of c.frames) assert.ok(Buffer.byteLength(JSON.stringify(f)) <= c.maxFrame);
  }
});

test('golden: context providers and ambient context pass the worker\'s checks unchanged', () => {
  for (const { name, message } of golden('context')) {
    const ctx = message.context;
    for (const p of ctx.providers || []) assert.deepEqual(S.checkSnapshot(p), p, `${name}: ${p.id}`);
    if (ctx.ambient) assert.deepEqual(normalizeAmbient(ctx.ambient), ctx.ambient, name);
    assert.deepEqual(normalizeFrameContext({ providers: ctx.providers || [], ambient: ctx.ambient }, true),
      ctx.ambient ? { providers: ctx.providers || [], ambient: ctx.ambient } : { providers: ctx.providers || [] }, name);
  }
});

test('normalizeTool keeps a tool whose schema is past the bounds, with the stand-in schema', () => {
  let deep = { type: 'string' };
  for (let i = 0; i < 3000; i++) deep = { type: 'object', properties: { x: deep } };
  const { tool, problem } = normalizeTool({ name: 'deep', description: 'd', inputSchema: deep });
  assert.equal(problem, undefined);
  assert.equal(tool.name, 'deep');
  assert.equal(tool.inputSchema.type, 'object');
  assert.match(tool.inputSchema['x-webmcp-rejected'], /deep|depth|nested/i);
  // An ordinary schema travels as it is.
  const ok = normalizeTool({ name: 'ok', description: 'd', inputSchema: { type: 'object', properties: { a: { type: 'number' } } } });
  assert.deepEqual(ok.tool.inputSchema, { type: 'object', properties: { a: { type: 'number' } } });
});

test('checkHostMessage keeps a call\'s timeout only when it is a positive integer', () => {
  const base = { type: 'call', id: 's1.1', tabId: 5, name: 'echo' };
  assert.equal(checkHostMessage({ ...base, timeout: 3000 }).msg.timeout, 3000);
  for (const timeout of [0, -1, 1.5, '3000', null]) assert.equal('timeout' in checkHostMessage({ ...base, timeout }).msg, false, String(timeout));
  assert.equal(Code.declined, 'declined');
});

test('normalizeTool: outputSchema travels bounded like inputSchema; consequentialHint and debugging travel', () => {
  const out = { type: 'object', properties: { n: { type: 'integer' } } };
  const { tool } = normalizeTool({ name: 'stats', description: 'd', outputSchema: out, annotations: { consequentialHint: true, debugging: false } });
  assert.deepEqual(wireTool(3, 0, 'http://localhost', tool), {
    tabId: 3, frameId: 0, origin: 'http://localhost', name: 'stats', description: 'd', outputSchema: out,
    annotations: { consequentialHint: true, debugging: false },
  });
  assert.equal(tool.consequential, true, 'ask-before-acting still reads tool.consequential');
  assert.equal(normalizeTool({ name: 'n', description: 'd', outputSchema: null }).tool.outputSchema, undefined);
  assert.match(normalizeTool({ name: 'n', description: 'd', outputSchema: [1] }).problem, /outputSchema is not a JSON object/);
  let deep = {};
  for (let i = 0; i < 100; i++) deep = { a: deep };
  const past = normalizeTool({ name: 'n', description: 'd', outputSchema: deep }).tool.outputSchema;
  assert.match(past['x-webmcp-rejected'], /nested more than/);
});

test('golden: a batch from the host passes the checks as it is, each message in it too', () => {
  const batch = goldenCase('batch', 'two calls that a shim wrote at once').message;
  assert.deepEqual(checkHostMessage(batch).msg, batch);
  for (const m of batch.messages) assert.deepEqual(checkHostMessage(m).msg, m);
  assert.match(checkHostMessage({ type: 'batch' }).ignore, /"messages"/);
});
