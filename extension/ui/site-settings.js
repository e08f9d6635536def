// The per-site ask-before-acting control, for the panel's "This site"
// section (and ui/site-settings.html on its own): one drop-down, "Ask before
// agents act on this site", with three choices, and a switch for the
// in-page indicator. The worker keeps the setting (worker/consent.js); this
// module only asks it, through the panel's send(type, params).
//
//   mountSiteSettings(root, {send, origin, listen?, compact?}) -> {refresh, destroy}
//
// send(type, params) resolves to the worker's value or throws an Error with
// its message (ui/api.js's send). listen(onChange), when given, is called
// once and must call onChange(topic) when the worker says something changed
// (ui/api.js's listen); without it the module opens its own Port. compact
// (the panel): the explanation is the control's description, not shown.

import { h } from './dom.js';
import { injectStyle, watch } from './ui-common.js';

/** The accessible names of the two controls: a contract (tests, screen readers, the README). */
export const ASK_LABEL = 'Ask before agents act on this site';
export const INDICATOR_LABEL = 'Show in the page when an agent is using this site';

/** The three choices, in order, with the words the user sees. */
export const CHOICES = Object.freeze([
  { value: 'acting', label: 'Ask for every tool that is not read-only' },
  { value: 'consequential', label: 'Ask only for tools the page marks consequential' },
  { value: 'never', label: 'Never ask' },
]);

let seq = 0;

export function mountSiteSettings(root, { send, origin, listen, compact = false }) {
  injectStyle(root.ownerDocument);
  const id = `wm-ss-${++seq}`;
  const box = h('div', { class: compact ? 'wm-site-settings wm-compact' : 'wm-site-settings' });
  const status = h('p', { class: 'wm-status', role: 'status', 'aria-live': 'polite' });
  root.append(box);
  let busy = false;

  function render(s) {
    const select = h('select', { id: `${id}-ask`, 'aria-label': ASK_LABEL, 'aria-describedby': `${id}-hint` },
      ...CHOICES.map((c) => h('option', { value: c.value }, c.label)));
    select.value = s.ask;
    select.addEventListener('change', () => save({ ask: select.value }));
    const hint = h('p', { id: `${id}-hint`, class: 'wm-muted', hidden: compact },
      `Calls wait for your answer in a window of the extension; read-only tools never ask. Default for ${s.origin}: `
      + `${s.loopback ? 'never ask (a loopback address)' : 'ask for every tool that is not read-only'}.`);
    const ask = h('div', { class: 'wm-ask' }, h('label', { for: select.id }, 'Ask first'), select);
    const sw = h('input', { type: 'checkbox', role: 'switch', id: `${id}-indicator` });
    sw.checked = s.indicator;
    sw.addEventListener('change', () => save({ indicator: sw.checked }));
    const indicator = h('div', { class: 'wm-choice wm-switch' }, sw,
      h('label', { for: sw.id }, INDICATOR_LABEL));
    box.replaceChildren(ask, hint, indicator, status);
  }

  async function refresh() {
    if (!origin) {
      box.replaceChildren(h('p', { class: 'wm-muted' }, 'Ask-before-acting applies to web sites (http and https) only.'));
      return;
    }
    try {
      render(await send('siteSettings.get', { origin }));
    } catch (e) {
      box.replaceChildren(h('p', { class: 'wm-error', role: 'alert' }, `Could not read this site's setting: ${e.message}`));
    }
  }

  async function save(patch) {
    if (busy) return;
    busy = true;
    status.className = 'wm-status';
    status.textContent = 'Saving…';
    try {
      const s = await send('siteSettings.set', { origin, ...patch });
      render(s);
      status.textContent = 'Saved.';
    } catch (e) {
      status.textContent = `Not saved: ${e.message}. Try again, or reopen this page.`;
      status.className = 'wm-status wm-error';
    } finally {
      busy = false;
    }
  }

  const stop = watch(box, listen, (topic) => {
    if ((topic === 'siteSettings' || topic === 'reconnected') && !busy) refresh();
  });
  const ready = refresh();
  return { refresh, ready, destroy: stop };
}
