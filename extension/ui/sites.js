// The allow list, as the panel's "Allowed sites" section and the options
// page show it: each entry with a Remove button ("Remove <entry>"), entries
// that turn a site off ("!origin") marked as such, the defaults marked, and
// a field to allow one more site (a URL or a bare host, taken as https; only
// its origin is kept, and the confirmation says so). Allowing asks the
// browser for the site (its own prompt: ui/sitegrant.js); the sites an
// earlier version allowed that the browser has not granted yet are listed
// with "Allow again". Both pages render it with mountSites.

import { siteFromInput } from '../lib/allowlist.js';
import { h, fill } from './dom.js';
import { requestSite } from './sitegrant.js';

/** What the add field last said, per list element, kept across renders. */
const fieldMessages = new WeakMap();

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
  const say = (text, isError = false) => {
    fieldMessages.set(el, { text, isError });
    const p = el.querySelector('#add-site-msg');
    if (p) {
      p.textContent = text;
      p.classList.toggle('error', isError);
    }
    actions.report(text, isError);
  };
  const add = async (e) => {
    e.preventDefault();
    const input = e.currentTarget.elements.site;
    const typed = input.value.trim();
    const site = siteFromInput(typed);
    if (site.error) {
      say(site.error, true);
      input.focus();
      return;
    }
    const { origin } = site;
    try {
      await requestSite(origin); // first: the browser asks only during the user's click
      await actions.send('site/set', { origin, on: true });
      const notes = [];
      if (site.assumedHttps) notes.push('https, since you typed no scheme');
      if (site.dropped) notes.push(`the whole site, not only ${site.dropped}`);
      say(`Agents may now use ${origin}${notes.length ? ` (${notes.join('; ')})` : ''}.`);
      input.value = '';
    } catch (err) {
      say(`Could not allow ${origin}: ${err.message}`, true);
    } finally {
      actions.refresh();
    }
  };
  const grant = async (entry, button) => {
    try {
      await requestSite(entry, { pattern: true }); // first: the browser asks only during the user's click
      actions.report(`Agents may now use ${entry}.`);
    } catch (e) {
      actions.report(`Could not allow ${entry}: ${e.message}`, true);
    } finally {
      button.disabled = false;
      actions.refresh();
    }
  };
  const msg = fieldMessages.get(el);
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
          autocomplete: 'off', spellcheck: 'false', 'aria-describedby': 'add-site-msg',
        }),
        h('button', { type: 'submit' }, 'Allow')),
      h('p', { id: 'add-site-msg', class: msg && msg.isError ? 'small error' : 'small', 'aria-live': 'polite' }, msg ? msg.text : '')),
    h('p', { class: 'muted small' }, 'A site is its scheme, host and port. Pages of allowed sites hand their tools and the context you include to agents on this computer.'));
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
