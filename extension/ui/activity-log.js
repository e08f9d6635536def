// The activity log, for the panel (<div id="activity-log">) and
// ui/activity.html on its own: the last 200 calls agents made in this
// browser session — time, agent, site, tool, arguments (expandable),
// outcome (result / error / declined / cancelled / timed out, or waiting /
// running while under way) and duration — newest first, with "Clear
// activity". The worker keeps the log (worker/activity.js) in
// chrome.storage.session: it is gone when the browser closes.
//
//   mountActivity(root, {send, tabId?, listen?}) -> {refresh, ready, destroy}
//
// send and listen as in ui/site-settings.js. With a tabId, a checkbox
// "Only this tab" narrows the list to that tab's calls.

import { h, timeOfDay } from './dom.js';
import { duration, injectStyle, watch } from './ui-common.js';

let seq = 0;

function entryItem(e) {
  const outcome = h('span', { class: 'wm-outcome', 'data-outcome': e.outcome }, e.outcome);
  const li = h('li', { 'data-id': e.id, 'data-tool': e.tool, 'data-outcome': e.outcome },
    h('div', { class: 'wm-line1' },
      h('time', { datetime: new Date(e.time).toISOString() }, timeOfDay(e.time)),
      h('span', { class: 'wm-agent' }, e.agent),
      h('span', { class: 'wm-tool' }, e.tool),
      outcome,
      e.duration === null || e.duration === undefined ? null : h('span', { class: 'wm-dur' }, duration(e.duration))),
    h('div', { class: 'wm-site' }, `${e.site || 'a page'} · ${e.tabTitle ? `“${e.tabTitle}”` : `tab ${e.tabId}`}`),
    e.detail ? h('div', { class: 'wm-muted' }, e.detail) : null);
  let pretty = e.args;
  try {
    pretty = JSON.stringify(JSON.parse(e.args), null, 2);
  } catch {
    // cut: shown as kept
  }
  li.append(h('details', { class: 'wm-args' }, h('summary', {}, `Arguments of ${e.tool}`), h('pre', {}, pretty)));
  return li;
}

export function mountActivity(root, { send, tabId, listen }) {
  injectStyle(root.ownerDocument);
  const id = `wm-act-${++seq}`;
  const box = h('div', { class: 'wm-activity' });
  const count = h('p', { class: 'wm-muted', id: `${id}-count`, 'aria-live': 'polite' });
  const list = h('ol', { class: 'wm-log', 'aria-labelledby': `${id}-count` });
  const status = h('p', { class: 'wm-status', role: 'status' });
  const clear = h('button', { type: 'button' }, 'Clear activity');
  let only = null;
  if (Number.isSafeInteger(tabId)) {
    only = h('input', { type: 'checkbox', id: `${id}-only` });
    only.addEventListener('change', () => refresh());
  }
  box.append(
    h('div', { class: 'wm-head' },
      count,
      h('div', {},
        only ? h('label', { for: `${id}-only`, class: 'wm-muted' }, only, ' Only this tab ') : null,
        clear)),
    list, status,
    h('p', { class: 'wm-muted' }, 'The last 200 calls of this browser session; the log is gone when the browser closes.'));
  root.append(box);

  clear.addEventListener('click', async () => {
    try {
      await send('activity.clear');
      status.textContent = 'Activity cleared.';
      await refresh();
    } catch (e) {
      status.textContent = `Not cleared: ${e.message}`;
    }
  });

  async function refresh() {
    let entries;
    try {
      entries = (await send('activity.list', only && only.checked ? { tabId } : {})).entries;
    } catch (e) {
      count.textContent = `Could not read the activity log: ${e.message}`;
      return;
    }
    // Keep open what the user expanded.
    const open = new Set([...list.querySelectorAll('li')].filter((li) => li.querySelector('details[open]')).map((li) => li.dataset.id));
    list.replaceChildren(...entries.map((e) => {
      const li = entryItem(e);
      if (open.has(e.id)) li.querySelector('details').open = true;
      return li;
    }));
    count.textContent = entries.length === 0 ? 'No calls yet.' : `${entries.length} call${entries.length === 1 ? '' : 's'}, newest first`;
    clear.disabled = entries.length === 0;
  }

  // Calls can come fast: one refresh per burst of notices.
  let soon = 0;
  const stop = watch(box, listen, (topic) => {
    if ((topic !== 'activity' && topic !== 'reconnected') || soon) return;
    soon = setTimeout(() => {
      soon = 0;
      refresh();
    }, 100);
  });
  const ready = refresh();
  return { refresh, ready, destroy: stop };
}
