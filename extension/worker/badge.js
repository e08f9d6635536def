// The toolbar badge, per tab (chrome.action): how many tools the tab offers
// agents; while an agent's call runs in the tab, "▶" and the count on
// blue, and "?" on amber while a call waits for the user's consent. The
// title says the same in words ("claude-code 2.1 is using act"). A tab
// whose site is not allowed shows its tool count in grey ("not shared").
// Changes are applied once per task, and only what differs from what was
// set last; a tab that starts loading is set again (Chrome may reset it).

export const Colors = Object.freeze({
  idle: '#3c4043',
  notShared: '#80868b',
  running: '#1a73e8',
  waiting: '#b06000',
});

/**
 * What the badge of a tab shows: {text, color, title}.
 * tools: the tab's tool count; shared: whether agents see them;
 * calls: [{agent, tool, outcome: 'waiting' | 'running'}] under way.
 */
export function badgeFor(tools, shared, calls = []) {
  const waiting = calls.filter((c) => c.outcome === 'waiting');
  const running = calls.filter((c) => c.outcome !== 'waiting');
  if (waiting.length) {
    const c = waiting[0];
    return { text: '?', color: Colors.waiting, title: `${c.agent} waits for your answer: may it use ${c.tool}?` };
  }
  if (running.length) {
    const c = running[0];
    const more = running.length > 1 ? ` (and ${running.length - 1} more calls)` : '';
    return { text: tools ? `▶${tools}` : '▶', color: Colors.running, title: `${c.agent} is using ${c.tool}${more}` };
  }
  const n = tools === 1 ? '1 tool' : `${tools} tools`;
  if (!shared) return { text: tools ? String(tools) : '', color: Colors.notShared, title: tools ? `WebMCP bridge: ${n} on this page, not shared (this site is not allowed)` : 'WebMCP bridge' };
  return { text: tools ? String(tools) : '', color: Colors.idle, title: tools ? `WebMCP bridge: ${n} on this page for agents` : 'WebMCP bridge' };
}

/** How long the badge waits before it shows a change in the calls under way. */
export const CALLS_DELAY = 250;

export class Badge {
  /**
   * @param {object} o
   * @param {typeof chrome} o.chrome
   * @param {import('../lib/registry.js').Registry} o.registry
   * @param {{setTimeout: Function}} o.clock
   * @param {{warn: Function}} o.log
   */
  constructor({ chrome, registry, clock, log }) {
    Object.assign(this, { chrome, registry, clock, log });
    /** @type {Map<number, string>} tab id -> JSON of what was set */
    this.shown = new Map();
    /** @type {Map<number, object[]>} tab id -> calls under way */
    this.calls = new Map();
    this.timer = 0;
  }

  listen() {
    this.chrome.tabs.onUpdated.addListener((tabId, change) => {
      if (change.status === 'loading' || change.url !== undefined) this.shown.delete(tabId);
      this.schedule();
    });
    this.chrome.tabs.onRemoved.addListener((tabId) => {
      this.shown.delete(tabId);
      this.calls.delete(tabId);
    });
  }

  /**
   * The calls under way in tabId changed: shown after CALLS_DELAY, so that a
   * quick call does not flash the badge and a stream of calls costs a few
   * updates a second, not eight browser calls per call.
   */
  setCalls(tabId, calls) {
    if (calls.length) this.calls.set(tabId, calls);
    else this.calls.delete(tabId);
    this.schedule(CALLS_DELAY);
  }

  /** Something the badges show may have changed: apply it soon (after delay ms). */
  schedule(delay = 0) {
    if (this.timer || !this.chrome.action) return;
    this.timer = this.clock.setTimeout(() => {
      this.timer = 0;
      this.flush();
    }, delay);
  }

  /** Each tab's tool count, and whether agents see them. */
  counts() {
    const { registry } = this;
    const out = new Map();
    for (const t of registry.tabs.values()) {
      const w = registry.wireTab(t);
      out.set(t.id, { tools: 0, shared: !!(w && w.allowed) });
    }
    for (const f of registry.frames.values()) {
      const c = out.get(f.tabId);
      if (!c) continue;
      if (c.shared && !registry.allows(f.origin)) continue; // agents do not see this frame's tools
      c.tools += f.tools.size;
    }
    return out;
  }

  flush() {
    const { chrome } = this;
    for (const [tabId, { tools, shared }] of this.counts()) {
      const b = badgeFor(tools, shared, this.calls.get(tabId));
      const json = JSON.stringify(b);
      if (this.shown.get(tabId) === json) continue;
      this.shown.set(tabId, json);
      const fail = (e) => {
        this.shown.delete(tabId);
        if (!/No tab with id/i.test(String(e && e.message))) this.log.warn(`badge of tab ${tabId}: ${e && e.message ? e.message : e}`);
      };
      Promise.all([
        chrome.action.setBadgeText({ tabId, text: b.text }),
        chrome.action.setBadgeBackgroundColor({ tabId, color: b.color }),
        chrome.action.setBadgeTextColor ? chrome.action.setBadgeTextColor({ tabId, color: '#ffffff' }) : null,
        chrome.action.setTitle({ tabId, title: b.title }),
      ]).catch(fail);
    }
    for (const tabId of [...this.shown.keys()]) if (!this.registry.tabs.has(tabId)) this.shown.delete(tabId);
  }
}
