// The allow list, as the panel's "Allowed sites" section and the options
// page show it: each entry with a Remove button ("Remove <entry>"), entries
// that turn a site off ("!origin") marked as such, the defaults marked, and
// a field to allow one more site (a URL or a bare host, taken as https; only
// its origin is kept, and the confirmation says so). Allowing asks the
// browser for the site (its own prompt: ui/sitegrant.js): while the prompt
// is up the field says so and Allow waits, then it says what happened
// (allowed, declined or closed, not asked); the sites an
// earlier version allowed that the browser has not granted yet are listed
// with "Allow again". Both pages render it with mountSites.

import { siteFromInput } from '../lib/allowlist.js';
import { h, fill } from './dom.js';
import { requestSite } from './sitegrant.js';

/**
 * The add field's state, per list element, kept across renders: what it
 * last said ({text, isError}), and the origin the browser is asking the
 * user about (asking), while its prompt is up.
 */
const fieldStates = new WeakMap();

/** The words shown while the browser's prompt for origin is up. */
export function askingText(origin) {
  return `The browser is asking you to allow ${origin}: answer its prompt (by the address bar). Until you do, nothing changes.`;
}

/** Renders the list into el from {entries} (worker/panel.js sites/list). actions: {send, refresh, report}. */
export function renderSites(el, { entries }, actions) {
  const remove = async (entry, button) => {
    button.disabled = true;
    try {
      await actions.send('sites/remove', { entry });
      actions.report(entry.startsWith('!') ? `${entry.slice(1)} is no longer turned off.` : `Removed ${entry} from the allowed sites.`);
    } catch (e) {
      button.disabled = false;
      actions.report(`Could not remove ${entry}: ${e.message}`, true);
    } finally {
      actions.refresh();
    }
  };
  const state = () => fieldStates.get(el) || {};
  // Shows the add field's state in the DOM as it is now (a render may have
  // replaced it meanwhile) and keeps it for the next render.
  const show = (next) => {
    const st = { ...state(), ...next };
    fieldStates.set(el, st);
    const p = el.querySelector('#add-site-msg');
    if (p) {
      p.textContent = st.text || '';
      p.classList.toggle('error', !!st.isError);
    }
    const button = el.querySelector('#add-site-button');
    if (button) button.disabled = !!st.asking;
    return st;
  };
  const say = (text, isError = false) => {
    show({ text, isError });
    actions.report(text, isError);
  };
  const add = async (e) => {
    e.preventDefault();
    if (state().asking) return; // the browser's prompt is up: it answers first
    const input = el.querySelector('#add-site-input');
    const typed = input.value.trim();
    const site = siteFromInput(typed);
    if (site.error) {
      say(site.error, true);
      input.focus();
      return;
    }
    const { origin } = site;
    // First: the browser asks only during the user's click.
    const asked = requestSite(origin);
    show({ asking: origin, reload: null });
    say(askingText(origin));
    let granted = false;
    try {
      await asked;
      granted = true;
    } catch (err) {
      show({ asking: null });
      say(err.reason === 'declined'
        ? `You declined or closed the browser's prompt for ${origin}: nothing changed. Click Allow to be asked again.`
        : `Could not allow ${origin}: ${err.message}`, true);
    }
    if (!granted) return;
    try {
      const res = await actions.send('site/set', { origin, on: true });
      const notes = [];
      if (site.assumedHttps) notes.push('https, since you typed no scheme');
      if (site.dropped) notes.push(`the whole site, not only ${site.dropped}`);
      const needReload = res && res.openTabs ? res.openTabs.needReload || 0 : 0;
      show({ asking: null, reload: needReload ? origin : null });
      say(`Agents may now use ${origin}${notes.length ? ` (${notes.join('; ')})` : ''}.${openTabsText(res)}`);
      input.value = '';
    } catch (err) {
      show({ asking: null });
      say(`The browser allowed ${origin}, but the bridge could not turn it on: ${err.message}`, true);
    } finally {
      actions.refresh();
    }
  };
  // The site's open tabs that get the bridge only when they load again.
  const reloadTabs = async (origin, button) => {
    button.disabled = true;
    try {
      const { reloaded } = await actions.send('site/reload', { origin });
      show({ reload: null });
      say(`Reloaded ${reloaded === 1 ? 'the open tab' : `${reloaded} open tabs`} of ${origin}: ${reloaded === 1 ? 'it has' : 'they have'} the bridge now.`);
    } catch (err) {
      button.disabled = false;
      say(`Could not reload the open tabs of ${origin}: ${err.message}`, true);
    } finally {
      actions.refresh();
    }
  };
  // Typing again: an error about what was typed before goes.
  const typing = () => {
    const st = state();
    if (st.isError && !st.asking) show({ text: '', isError: false });
  };
  const grant = async (entry, button) => {
    const asked = requestSite(entry, { pattern: true }); // first: the browser asks only during the user's click
    button.disabled = true;
    actions.report(askingText(entry));
    try {
      await asked;
      actions.report(`Agents may now use ${entry}.`);
    } catch (e) {
      actions.report(`Could not allow ${entry}: ${e.message}`, true);
    } finally {
      button.disabled = false;
      actions.refresh();
    }
  };
  const msg = state();
  const list = entries.length === 0
    ? h('p', { class: 'muted' }, 'No site is allowed: agents see no page\'s tools or context.')
    : h('ul', { class: 'sites' }, entries.map((s) => h('li', { 'data-entry': s.entry },
      h('span', { class: 'entry' },
        s.blocked ? [h('span', { class: 'tag off' }, 'turned off'), ' ', h('code', {}, s.entry.slice(1))] : h('code', {}, s.entry),
        s.isDefault ? h('span', { class: 'muted small' }, ' (default)') : null,
        s.pending ? h('span', { class: 'muted small' }, ' (allowed before; the browser has not granted it yet)') : null),
      s.pending ? h('button', { type: 'button', class: 'small', 'aria-label': `Allow ${s.entry} again`, onClick: (e) => grant(s.entry, e.currentTarget) }, 'Allow again') : null,
      h('button', { type: 'button', class: 'small', 'aria-label': `Remove ${s.entry}`, onClick: (e) => remove(s.entry, e.currentTarget) }, 'Remove'))));
  fill(el, list,
    h('form', { class: 'add-site', onSubmit: add, novalidate: true },
      h('label', { for: 'add-site-input' }, 'Allow another site'),
      h('div', { class: 'row' },
        h('input', {
          id: 'add-site-input', name: 'site', type: 'text', inputmode: 'url', placeholder: 'https://example.com',
          autocomplete: 'off', spellcheck: 'false', 'aria-describedby': 'add-site-msg', onInput: typing,
        }),
        h('button', { type: 'submit', id: 'add-site-button', disabled: !!msg.asking }, 'Allow')),
      h('p', { id: 'add-site-msg', class: msg.isError ? 'small error' : 'small', 'aria-live': 'polite' }, msg.text || ''),
      msg.reload ? h('button', { type: 'button', class: 'small', onClick: (e) => reloadTabs(msg.reload, e.currentTarget) }, `Reload the open tabs of ${msg.reload}`) : null),
    h('p', { class: 'muted small' }, 'A site is its scheme, host and port. Pages of allowed sites hand their tools and the context you include to agents on this computer.'));
}

/**
 * What site/set said of the site's open tabs (worker/panel.js openTabs):
 * those that have the bridge now, and those that get it when they load
 * again (the browser has no WebMCP of its own).
 */
export function openTabsText(res) {
  if (!res || !res.openTabs) return '';
  const { joined = 0, needReload = 0 } = res.openTabs;
  let out = '';
  if (joined) out += joined === 1 ? ' Its open tab has the bridge now.' : ` Its ${joined} open tabs have the bridge now.`;
  if (needReload) out += needReload === 1 ? ' Its open tab gets the bridge when it loads again: reload it.' : ` Its ${needReload} open tabs get the bridge when they load again: reload them.`;
  return out;
}

/**
 * Keeps el showing the allow list: renders now and again whenever the
 * worker says the sites changed. Returns refresh().
 */
export function mountSites(el, { send, listen, report }) {
  let busy = null;
  let again = false;
  const refresh = async () => {
    if (busy) {
      again = true;
      return busy;
    }
    busy = (async () => {
      do {
        again = false;
        try {
          renderSites(el, await send('sites/list'), { send, refresh, report });
        } catch (e) {
          report(`Could not read the allowed sites: ${e.message}`, true);
        }
      } while (again);
      busy = null;
    })();
    return busy;
  };
  listen((topic) => {
    if (topic === 'sites' || topic === 'reconnected') refresh();
  });
  refresh();
  return refresh;
}
