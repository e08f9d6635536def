// UI context in the worker: it tells each frame whether its context may
// leave the browser ({type:"contextOn", on}; the frame samples itself only
// while it may; input: true when its tab has tools sampled as context, so
// that the frame reports each sample after the person's input, changed or
// not, and those tools are sampled again), and samples a tab's frames on
// demand ({type:"sample", id}, for a shim's sampleContext and pin), waiting
// for each frame's answer at most SAMPLE_TIMEOUT ms; the tab the person
// looks at has its tools sampled as context too (contexttools.js).

import { PageLinkType as L } from '../lib/protocol.js';
import { postToFrame } from './frames.js';

// How long a sample request waits for a frame's answer (its providers get
// 50 ms; a background tab's timers may be throttled to 1 s); a frame that is
// late counts with its last sample.
export const SAMPLE_TIMEOUT = 1000;

/** ContextSampler switches the frames' sampling and samples tabs. */
export class ContextSampler {
  /**
   * @param {object} o
   * @param {import('../lib/registry.js').Registry} o.registry
   * @param {import('./frames.js').Frames} o.frames
   * @param {{now: () => number, setTimeout: Function, clearTimeout: Function}} o.clock
   * @param {() => void} o.flush sends the host what changed, now
   * @param {{sample: (tabId: number) => Promise<void>}} [o.tools] the tools sampled as context (contexttools.js)
   */
  constructor({ registry, frames, clock, flush, tools }) {
    Object.assign(this, { registry, frames, clock, flush, tools });
    /** Sample requests under way: id -> {conn, resolve, timer}. */
    this.samples = new Map();
    this.seq = 0;
  }

  /** Tells a frame whether its context may leave the browser, when that changed. */
  updateOn(conn) {
    const on = this.registry.contextAllowed(conn.tabId, conn.frameId);
    const input = on && this.registry.sampledTools(conn.tabId).length > 0;
    if (on === conn.contextOn && input === !!conn.contextInput) return;
    conn.contextOn = on;
    conn.contextInput = input;
    postToFrame(conn, input ? { type: L.contextOn, on, input } : { type: L.contextOn, on });
  }

  /** updateOn for the frames of a tab, or of every tab when tabId is undefined. */
  updateAllOn(tabId) {
    for (const c of this.frames.inTab(tabId)) this.updateOn(c);
  }

  /** A frame answered sample id. */
  sampled(conn, id) {
    if (this.samples.get(id)?.conn === conn) this.end(id);
  }

  /** Ends the samples a frame owes (it went away). */
  endFor(conn) {
    for (const [id, s] of this.samples) if (s.conn === conn) this.end(id);
  }

  end(id) {
    const s = this.samples.get(id);
    if (!s) return;
    this.samples.delete(id);
    this.clock.clearTimeout(s.timer);
    s.resolve();
  }

  /**
   * Asks one frame for a fresh sample; resolves when it arrived, the frame
   * went away, or SAMPLE_TIMEOUT passed.
   */
  sampleFrame(conn) {
    return new Promise((resolve) => {
      const id = `w${++this.seq}`;
      this.samples.set(id, { conn, resolve, timer: this.clock.setTimeout(() => this.end(id), SAMPLE_TIMEOUT) });
      if (!postToFrame(conn, { type: L.sample, id })) this.end(id);
    });
  }

  /**
   * Samples every allowed frame of a tab (a protocol Tab) now and returns the
   * tab's Context; a change goes to the host as a context message first.
   */
  async sampleTab(tab) {
    const frames = this.registry.contextFrames(tab.id);
    const targets = frames.map((f) => this.frames.get(tab.id, f.frameId)).filter(Boolean);
    const focused = this.registry.focusedTab();
    const tools = this.tools && focused && focused.id === tab.id ? this.tools.sample(tab.id) : null;
    await Promise.all([...targets.map((c) => this.sampleFrame(c)), tools]);
    this.flush();
    const ctx = this.registry.tabContext(tab.id);
    if (ctx) return ctx;
    // The page has not reported yet (it is loading, or it runs no content script).
    const bare = { tabId: tab.id };
    if (tab.url) bare.url = tab.url;
    if (tab.title) bare.title = tab.title;
    bare.time = this.clock.now();
    return bare;
  }
}
