// The in-page indicator: while an agent's call runs in a tab (or waits for
// the user's consent), the tab's top frame shows "<agent> is using <tool>"
// — drawn by the relay in the extension's isolated world, in a closed
// shadow root (content/isolated/indicator.js), never by the page. The worker sends the
// top frame's relay {type: "indicator", text} ("" hides it), only when the
// text changes, and nothing for a site whose indicator the user turned off.
// A call shows once it has run SHOW_DELAY ms (quick calls do not flash the
// page); the indicator hides as soon as no call runs.

import { webOrigin } from '../lib/allowlist.js';
import { PageLinkType as L } from '../lib/protocol.js';
import { postToFrame } from './frames.js';

/** The indicator's text for the calls under way in a tab ("" for none). */
export function indicatorText(calls = []) {
  const running = calls.filter((c) => c.outcome !== 'waiting');
  const waiting = calls.filter((c) => c.outcome === 'waiting');
  let text = '';
  if (running.length) text = `${running[0].agent} is using ${running[0].tool}`;
  else if (waiting.length) text = `${waiting[0].agent} waits for your consent to use ${waiting[0].tool}`;
  const others = calls.length - 1;
  if (text && others > 0) text += ` (+${others} more)`;
  return text;
}

/** How long a call runs before the page shows it. */
export const SHOW_DELAY = 250;
/** Once shown, how often at most the text follows the calls under way. */
export const FOLLOW_DELAY = 250;

export class Indicator {
  /**
   * @param {object} o
   * @param {import('./frames.js').Frames} o.frames
   * @param {import('../lib/registry.js').Registry} o.registry
   * @param {(origin: string) => {indicator: boolean}} o.settingsFor a site's setting
   * @param {{setTimeout: Function, clearTimeout: Function}} o.clock
   */
  constructor({ frames, registry, settingsFor, clock }) {
    Object.assign(this, { frames, registry, settingsFor, clock });
    /** @type {WeakMap<object, string>} top frame connection -> the text it shows */
    this.shown = new WeakMap();
    /** @type {Map<number, {calls: object[], timer: any}>} tabs with calls under way */
    this.tabs = new Map();
  }

  /** The calls under way in tabId changed. */
  update(tabId, calls) {
    const cur = this.tabs.get(tabId);
    if (!calls.length) {
      if (cur) this.clock.clearTimeout(cur.timer);
      this.tabs.delete(tabId);
      this.apply(tabId, []);
      return;
    }
    if (cur) {
      cur.calls = calls;
      // Shown already: follow, at most once per FOLLOW_DELAY (under load,
      // every call's start and end would redraw the page's indicator).
      if (!cur.timer) {
        cur.timer = this.clock.setTimeout(() => {
          cur.timer = null;
          this.apply(tabId, cur.calls);
        }, FOLLOW_DELAY);
      }
      return;
    }
    const t = { calls, timer: null };
    t.timer = this.clock.setTimeout(() => {
      t.timer = null;
      this.apply(tabId, t.calls);
    }, SHOW_DELAY);
    this.tabs.set(tabId, t);
  }

  apply(tabId, calls) {
    const top = this.frames.get(tabId, 0);
    if (!top) return;
    const t = this.registry.tabs.get(tabId);
    const on = t ? this.settingsFor(webOrigin(t.url)).indicator : false;
    const text = on ? indicatorText(calls) : '';
    if ((this.shown.get(top) || '') === text) return;
    this.shown.set(top, text);
    postToFrame(top, { type: L.indicator, text });
  }
}
