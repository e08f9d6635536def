// Agent activity: the calls agents made in this browser, for the user. The
// log holds the last MAX_ENTRIES calls — time, agent, site, tool, arguments,
// outcome, duration — in chrome.storage.session (gone when the browser
// closes; a restarted worker reads it back), written at most every
// WRITE_DELAY ms. It also knows which calls run (or wait for the user) in
// each tab right now, and tells the badge and the in-page indicator through
// on.live(tabId, calls).
//
// The router reports each call: start() when it arrives, running() when it
// goes to the page, end() with the answer the host gets. Outcomes:
// waiting (for the user's consent), running, then result, error, declined,
// cancelled or timed out (a cancel at the call's own timeout).
//
// The UI pages ask through uiapi.js:
//   activity.list  {tabId?} -> {entries: [...]} newest first
//   activity.clear          -> true
// and hear 'activity' on the UI Port when it changes.

import { Code, T } from '../lib/protocol.js';

/** The key of the log in chrome.storage.session. */
export const ACTIVITY_KEY = 'activity';

/** How many calls the log keeps. */
export const MAX_ENTRIES = 200;

/** How long a burst of changes waits before the log is written (at most
 * once a second: under load, each write copies the whole log). */
export const WRITE_DELAY = 1000;

/** The arguments are kept as JSON text cut at this many characters. */
export const MAX_ARGS = 4000;

/** A cancel this close to the call's timeout (ms) counts as its timing out. */
export const TIMEOUT_SLACK = 250;

/** Outcomes of a call in the log. */
export const Outcome = Object.freeze({
  waiting: 'waiting',
  running: 'running',
  result: 'result',
  error: 'error',
  declined: 'declined',
  cancelled: 'cancelled',
  timedOut: 'timed out',
});

function argsText(args) {
  let s;
  try {
    s = JSON.stringify(args ?? {});
  } catch {
    s = '"(arguments that are not JSON)"';
  }
  return s.length > MAX_ARGS ? `${s.slice(0, MAX_ARGS)}… (${s.length - MAX_ARGS} more characters)` : s;
}

export class Activity {
  /**
   * @param {object} o
   * @param {typeof chrome} o.chrome
   * @param {{now: () => number, setTimeout: Function, clearTimeout: Function}} o.clock
   * @param {{warn: Function}} o.log
   * @param {(topic: string) => void} o.publish
   * @param {{nameFor?: (id: string) => string}} [o.agents] names the agent behind a call id
   * @param {{live?: (tabId: number, calls: object[]) => void}} [o.on]
   */
  constructor({ chrome, clock, log, publish, agents, on = {} }) {
    Object.assign(this, { chrome, clock, log, publish, agents, on });
    /** @type {object[]} oldest first */
    this.entries = [];
    /** @type {Map<string, object>} calls under way, by id */
    this.live = new Map();
    this.timer = 0;
  }

  /** Reads the log back from storage.session (a restarted worker). */
  async loadFromStorage() {
    try {
      if (!this.chrome.storage.session) return;
      const got = await this.chrome.storage.session.get([ACTIVITY_KEY]);
      const list = got[ACTIVITY_KEY];
      if (!Array.isArray(list)) return;
      // Calls that were under way when the worker stopped never got an answer from it.
      this.entries = list.slice(-MAX_ENTRIES).map((e) => (e.outcome === Outcome.running || e.outcome === Outcome.waiting
        ? { ...e, outcome: Outcome.error, detail: 'the extension restarted while the call ran' } : e));
    } catch (e) {
      this.log.warn(`could not read the activity log: ${e.message}`);
    }
  }

  /** Answers the UI pages' requests. */
  listen(ui) {
    ui.on('activity.list', (m) => ({ entries: this.list(m.tabId) }));
    ui.on('activity.clear', () => this.clear());
  }

  agentOf(id) {
    const a = this.agents;
    const name = a && typeof a.nameFor === 'function' ? a.nameFor(id) : undefined;
    return typeof name === 'string' && name !== '' ? name : 'an agent';
  }

  /**
   * A call arrived and was routed: c {id, tabId, tabTitle?, origin, name,
   * arguments, timeout?, by?}; by names who made it when no agent did (the
   * user, in the inspector); waiting: whether it first waits for the user.
   */
  start(c, waiting) {
    const e = {
      id: c.id,
      time: this.clock.now(),
      agent: typeof c.by === 'string' && c.by !== '' ? c.by : this.agentOf(c.id),
      site: c.origin || '',
      tabId: c.tabId,
      tabTitle: String(c.tabTitle || '').slice(0, 120),
      tool: c.name,
      args: argsText(c.arguments),
      outcome: waiting ? Outcome.waiting : Outcome.running,
      duration: null,
    };
    this.entries.push(e);
    if (this.entries.length > MAX_ENTRIES) this.entries.splice(0, this.entries.length - MAX_ENTRIES);
    this.live.set(c.id, { entry: e, timeout: c.timeout || 0 });
    this.changed(c.tabId);
  }

  /** The user allowed call id: it goes to the page. */
  running(id) {
    const l = this.live.get(id);
    if (!l || l.entry.outcome !== Outcome.waiting) return;
    l.entry.outcome = Outcome.running;
    this.changed(l.entry.tabId);
  }

  /**
   * The answer m (a result or error message) went to the host for call id;
   * detail, when given, is what the log tells the user instead of the
   * error's message (which speaks to the agent).
   */
  end(id, m, detail) {
    const l = this.live.get(id);
    if (!l) return;
    this.live.delete(id);
    const e = l.entry;
    const now = this.clock.now();
    e.duration = Math.max(0, now - e.time);
    if (m.type === T.result) {
      e.outcome = Outcome.result;
    } else {
      const code = m.error && m.error.code;
      const message = m.error && typeof m.error.message === 'string' ? m.error.message : '';
      if (code === Code.declined) e.outcome = Outcome.declined;
      else if (code === Code.cancelled) e.outcome = l.timeout && e.duration >= l.timeout - TIMEOUT_SLACK ? Outcome.timedOut : Outcome.cancelled;
      else if (code === Code.timeout) e.outcome = Outcome.timedOut;
      else e.outcome = Outcome.error;
      if (detail || message) e.detail = String(detail || message).slice(0, 500);
    }
    this.changed(e.tabId);
  }

  /** The calls under way in tabId: [{id, agent, tool, outcome}] (outcome waiting or running). */
  liveIn(tabId) {
    const out = [];
    for (const { entry: e } of this.live.values()) {
      if (e.tabId === tabId) out.push({ id: e.id, agent: e.agent, tool: e.tool, outcome: e.outcome });
    }
    return out;
  }

  /** The log, newest first; only tabId's calls when it is a number. */
  list(tabId) {
    const all = this.entries.slice().reverse();
    return Number.isSafeInteger(tabId) ? all.filter((e) => e.tabId === tabId) : all;
  }

  /** Empties the log (calls under way stay, and are logged when they end). */
  async clear() {
    const running = new Set([...this.live.values()].map((l) => l.entry));
    this.entries = this.entries.filter((e) => running.has(e));
    this.publish('activity');
    await this.write();
    return true;
  }

  changed(tabId) {
    if (this.on.live) this.on.live(tabId, this.liveIn(tabId));
    this.publish('activity');
    if (!this.timer) {
      this.timer = this.clock.setTimeout(() => {
        this.timer = 0;
        void this.write();
      }, WRITE_DELAY);
    }
  }

  async write() {
    try {
      if (this.chrome.storage.session) await this.chrome.storage.session.set({ [ACTIVITY_KEY]: this.entries });
    } catch (e) {
      this.log.warn(`could not keep the activity log in storage.session: ${e.message}`);
    }
  }
}
