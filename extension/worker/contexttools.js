// Tools as context sources, run: the page tools that the person turned on
// in the panel or the CLI ("Send NAME with every prompt"), and those the
// page offers under the name get_ui_context, are called with no arguments
// whenever the tab the person is looking at is sampled (a prompt hook's
// `webmcp-shim context`, get_ui_context, a pin, the panel) and after the
// person's input in it, and their answers travel in the tab's context as
// snapshots of their own (lib/contexttools.js decides which tools and turns
// answers into snapshots; lib/registry.js keeps the latest answers and
// merges them).
//
// A sample waits TOOL_SAMPLE_BUDGET ms for a tool; a tool that is later
// keeps its last answer, marked stale, until its answer comes (a call runs
// at most TOOL_CALL_LIMIT ms, then it is cancelled). One call per tool runs
// at a time: samples asked for meanwhile share it, unless the person used
// the page since it started (then one more call follows it). The calls go
// to the page as the user's own do (routing.js runForUser): no consent
// (the person chose the tool, and only read-only tools are sampled), no
// activity log.
//
// Panel requests (worker/uiapi.js):
//   contextTool/set  {tabId, frameId, name, on}  turn a tool on or off as context
// Shim requests (lib/requestparams.js): contextTools (list a tab's),
// setContextTool.

import { CONTEXT_TOOLS_KEY, ContextToolChoices, TOOL_CALL_LIMIT, TOOL_SAMPLE_BUDGET, canBeContext, snapshotOfAnswer, snapshotOfError } from '../lib/contexttools.js';
import { Code, T } from '../lib/protocol.js';
import { frameKey } from '../lib/registry.js';

export { CONTEXT_TOOLS_KEY, TOOL_CALL_LIMIT, TOOL_SAMPLE_BUDGET };

/** What a stale snapshot says. */
export const STALE_NOTE = `the tool did not answer within ${TOOL_SAMPLE_BUDGET} ms: this is its last answer`;

// Answers that say the call did not run to its end in this document: they
// leave the last answer as it is.
const NOT_AN_ANSWER = new Set([Code.navigated, Code.tabClosed, Code.cancelled, Code.noBrowser]);

/** ContextTools keeps the person's choices and samples the chosen tools. */
export class ContextTools {
  /**
   * @param {object} o
   * @param {typeof chrome} o.chrome
   * @param {import('../lib/registry.js').Registry} o.registry
   * @param {{runForUser: Function, cancel: (id: string) => void}} o.router runs the calls (routing.js)
   * @param {{now: () => number, setTimeout: Function, clearTimeout: Function}} o.clock
   * @param {{warn: Function}} o.log
   * @param {() => void} o.changed the registry changed: tell the host and the panel
   * @param {(tabId: number) => void} [o.choicesChanged] which tools a tab samples may have changed
   */
  constructor({ chrome, registry, router, clock, log, changed, choicesChanged }) {
    Object.assign(this, { chrome, registry, router, clock, log, changed });
    this.choicesChanged = choicesChanged || (() => {});
    this.choices = new ContextToolChoices();
    /** Calls under way and queued: `${tabId}/${frameId}/${name}` -> {run, epoch, next?}. */
    this.calls = new Map();
    /** Each tab's count of the person's inputs seen (a call started before the latest does not answer for it). */
    this.epochs = new Map();
    /** Tabs whose sample after input is scheduled. */
    this.scheduled = new Set();
    this.seq = 0;
    this.writes = Promise.resolve();
  }

  /** Takes the stored choices. */
  load(stored) {
    this.choices.load(stored);
    this.registry.dirty();
  }

  /** Whether a site's tool is sampled now (the registry's contextTools). */
  sampled(origin, tool, changed) {
    return this.choices.sampled(origin, tool, changed);
  }

  /** A site's tool as a context source, {state, offered}, or null (lib/contexttools.js). */
  stateOf(origin, tool, changed) {
    return this.choices.stateOf(origin, tool, changed);
  }

  /** Registers the panel's request. */
  listen(ui) {
    ui.on('contextTool/set', (m) => this.set(m));
  }

  /**
   * The tools of a tab that can be context, in its allowed frames:
   * [{name, frameId, origin, state, offered}] (state: on, off or changed).
   */
  list(tabId) {
    const out = [];
    for (const f of this.registry.contextFrames(tabId)) {
      for (const t of f.tools.values()) {
        const s = this.registry.contextToolState(f.origin, t);
        if (s) out.push({ name: t.name, frameId: f.frameId, origin: f.origin, state: s.state, offered: s.offered });
      }
    }
    return out;
  }

  /**
   * The person turns a tool on or off as context ({tabId, frameId, name,
   * on}; frameId may be left out when one frame of the tab has the tool).
   * Throws an Error that says what is wrong. Turned on in the tab the
   * person looks at, it is sampled at once. Returns {name, state}.
   */
  async set({ tabId, frameId, name, on }) {
    if (typeof on !== 'boolean') throw new Error('"on" must be true or false');
    if (typeof name !== 'string' || name === '') throw new Error('say which tool');
    const f = this.frameOf(tabId, frameId, name);
    const tool = f.tools.get(name);
    if (!canBeContext(tool)) {
      throw new Error(`${name} cannot be sent with prompts: only a tool that says it is read-only (readOnlyHint), is not marked destructive or consequential, and needs no argument can`);
    }
    const before = this.choices.toJSON();
    this.choices.set(f.origin, tool, on);
    try {
      await this.store();
    } catch (e) {
      this.choices.load(before);
      throw new Error(`the choice could not be stored (${e.message}); nothing changed, try again`);
    }
    this.registry.dirty(tabId);
    this.choicesChanged(tabId);
    this.changed();
    const focused = this.registry.focusedTab();
    if (on && focused && focused.id === tabId) await this.sample(tabId);
    const s = this.choices.stateOf(f.origin, tool, false);
    return { name, state: s ? s.state : 'off' };
  }

  // The allowed frame of tabId that has tool name (frameId, or the only one).
  frameOf(tabId, frameId, name) {
    const frames = this.registry.contextFrames(tabId).filter((f) => f.tools.has(name) && (!Number.isSafeInteger(frameId) || f.frameId === frameId));
    if (!frames.length) {
      const t = this.registry.tabs.get(tabId);
      if (!t) throw new Error(`there is no tab ${tabId}`);
      throw new Error(`tab ${tabId} has no tool ${JSON.stringify(name)} on a site agents may use`);
    }
    if (frames.length > 1) throw new Error(`${frames.length} frames of tab ${tabId} have a tool ${JSON.stringify(name)}: say which frame`);
    return frames[0];
  }

  // Storage writes go one at a time, in order.
  store() {
    const items = { [CONTEXT_TOOLS_KEY]: this.choices.toJSON() };
    const p = this.writes.then(() => this.chrome.storage.local.set(items));
    this.writes = p.catch(() => {});
    return p;
  }

  /**
   * The person used tab tabId (its frames sent a sample after input): when
   * it is the tab they look at and it has tools sampled as context, they
   * are sampled again, once for a burst.
   */
  noticed(tabId) {
    const focused = this.registry.focusedTab();
    if (!focused || focused.id !== tabId || !this.registry.sampledTools(tabId).length) return;
    this.epochs.set(tabId, (this.epochs.get(tabId) || 0) + 1);
    if (this.scheduled.has(tabId)) return;
    this.scheduled.add(tabId);
    this.clock.setTimeout(() => {
      this.scheduled.delete(tabId);
      this.sample(tabId);
    }, 0);
  }

  /**
   * Samples the tools of tab tabId that are sampled as context; resolves
   * once each answered or TOOL_SAMPLE_BUDGET passed (then its last answer
   * is marked stale).
   */
  sample(tabId) {
    const list = this.registry.sampledTools(tabId);
    if (!list.length) return Promise.resolve();
    return Promise.all(list.map(({ frame, tool }) => this.sampleOne(frame, tool)));
  }

  sampleOne(frame, tool) {
    const run = this.callFor(frame, tool);
    return new Promise((resolve) => {
      let done = false;
      const timer = this.clock.setTimeout(() => {
        if (done) return;
        done = true;
        this.markStale(frame, tool);
        resolve();
      }, TOOL_SAMPLE_BUDGET);
      run.then(() => {
        if (done) return;
        done = true;
        this.clock.clearTimeout(timer);
        resolve();
      });
    });
  }

  // The call whose answer is fresh enough for a sample now: the one under
  // way when it started after the person's latest input, else one more
  // after it (one queued at most).
  callFor(frame, tool) {
    const key = `${frame.tabId}/${frame.frameId}/${tool.name}`;
    const epoch = this.epochs.get(frame.tabId) || 0;
    const c = this.calls.get(key);
    if (!c) return this.start(key, frame, tool, epoch);
    if (c.epoch >= epoch) return c.run;
    if (c.next) return c.next.run;
    c.next = { epoch };
    c.next.run = c.run.then(() => this.callFor(frame, tool));
    return c.next.run;
  }

  start(key, frame, tool, epoch) {
    const c = { epoch };
    c.run = this.call(frame, tool).finally(() => {
      if (this.calls.get(key) === c) this.calls.delete(key);
    });
    this.calls.set(key, c);
    return c.run;
  }

  // Calls the tool with no arguments and keeps its answer.
  async call(frame, tool) {
    const id = `ctx${++this.seq}`;
    const limit = this.clock.setTimeout(() => this.router.cancel(id), TOOL_CALL_LIMIT);
    let answer;
    try {
      answer = await this.router.runForUser({ id, tabId: frame.tabId, frameId: frame.frameId, name: tool.name, arguments: {} }, 'context', { quiet: true });
    } finally {
      this.clock.clearTimeout(limit);
    }
    let snap;
    if (answer.type === T.result) snap = snapshotOfAnswer(tool, answer.output);
    else if (!NOT_AN_ANSWER.has(answer.error && answer.error.code)) snap = snapshotOfError(tool, answer.error && answer.error.message);
    if (!snap) return;
    this.registry.setToolContext(frame.tabId, frame.frameId, tool.name, snap, this.clock.now());
    this.changed();
  }

  // A tool did not answer in time: its last answer, if any, says so.
  markStale(frame, tool) {
    const f = this.registry.frames.get(frameKey(frame.tabId, frame.frameId));
    const last = f && f.toolContext.get(tool.name);
    if (!last || last.snap.note || last.snap.stale) return;
    this.registry.setToolContext(frame.tabId, frame.frameId, tool.name, { ...last.snap, stale: STALE_NOTE }, last.at);
    this.changed();
  }
}
