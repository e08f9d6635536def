// A fake clock for tests: now(), setTimeout and clearTimeout that run only
// when the test moves time on with advance(), in time order, with the
// promise jobs each timer starts run before the next one fires.

/** Lets every queued promise job (and the jobs they queue) run. */
export function drain() {
  return new Promise((resolve) => setImmediate(resolve));
}

export class FakeClock {
  constructor(start = 1_700_000_000_000) {
    this.t = start;
    this.seq = 0;
    /** @type {Map<number, {at: number, fn: Function}>} */
    this.timers = new Map();
  }

  now() {
    return this.t;
  }

  setTimeout(fn, ms = 0) {
    const id = ++this.seq;
    this.timers.set(id, { at: this.t + Math.max(0, ms), fn });
    return id;
  }

  clearTimeout(id) {
    this.timers.delete(id);
  }

  /** The delays of the timers pending now, from now, in order. */
  pending() {
    return [...this.timers.values()].map((x) => x.at - this.t).sort((a, b) => a - b);
  }

  /** Moves time on by ms, firing the timers due on the way. */
  async advance(ms) {
    const end = this.t + ms;
    await drain();
    for (;;) {
      let next = null;
      for (const [id, x] of this.timers) if (x.at <= end && (!next || x.at < next[1].at)) next = [id, x];
      if (!next) break;
      this.timers.delete(next[0]);
      this.t = next[1].at;
      next[1].fn();
      await drain();
    }
    this.t = end;
  }

  /** The clock as content/source/bridge.js takes its timers ({set, clear, now}). */
  get bridgeTimers() {
    return {
      set: (fn, ms) => this.setTimeout(fn, ms),
      clear: (id) => this.clearTimeout(id),
      now: () => this.now(),
    };
  }

  /** The clock as the code under test takes it. */
  get api() {
    return {
      now: () => this.now(),
      setTimeout: (fn, ms) => this.setTimeout(fn, ms),
      clearTimeout: (id) => this.clearTimeout(id),
    };
  }
}
