// The panel's "This site" section: the tab's origin and title, and the one
// switch, "Let local agents use this site", that asks the browser for the
// site (its own prompt, ui/sitegrant.js) and turns it on, or off
// (worker/panel.js, site/set). A page that was open before it was allowed
// is reloaded, so that the extension's scripts are in it from the start. Off: the site's
// tools leave every agent at once and its context, URL and title stay in
// the browser. The ask-before-acting control mounts below it, in
// #site-consent (panel-page.js, ui/site-settings.js).

import { h, fill, toggle } from './dom.js';
import { requestSite } from './sitegrant.js';

/** The switch's accessible name: a contract (tests, screen readers). */
export const SITE_SWITCH = 'Let local agents use this site';

/** Renders the section's body into el. actions: {send, refresh, report}. */
export function renderSite(el, state, actions) {
  const { tab, site } = state;
  if (!tab) {
    fill(el, h('p', { class: 'muted' }, 'No tab to show: the tab closed, or the bridge has not seen it.'));
    return;
  }
  if (!site && tab.hidden) {
    fill(el, h('p', { class: 'muted' }, 'This site is not allowed: nothing of this tab reaches agents, and the extension does not see it. ' +
      `To allow it, click the extension's toolbar button on the tab and turn on "${SITE_SWITCH}".`));
    return;
  }
  if (!site) {
    fill(el, h('p', { class: 'muted' }, 'This is not a web page (http or https): nothing of it reaches agents.'));
    return;
  }
  const change = async (on, input) => {
    input.disabled = true;
    try {
      if (on) await requestSite(site.origin); // first: the browser asks only during the user's click
      await actions.send('site/set', { origin: site.origin, on, reload: on ? tab.id : undefined });
      actions.report(on ? `Agents may now use ${site.origin}.` : `Agents no longer see ${site.origin}.`);
    } catch (e) {
      input.checked = !on;
      actions.report(`Could not change access to ${site.origin}: ${e.message}`, true);
    } finally {
      input.disabled = false;
      actions.refresh();
    }
  };
  fill(el,
    h('p', { class: 'origin', title: tab.title || undefined }, h('code', {}, site.origin), tab.title ? h('span', { class: 'muted' }, ` · ${tab.title}`) : null),
    toggle({ label: SITE_SWITCH, text: SITE_SWITCH, checked: site.allowed, onChange: change, describedBy: 'site-explain' }),
    // On, the switch says it all: the sentence is its description, not shown.
    h('p', { id: 'site-explain', class: 'muted small', hidden: site.allowed }, site.allowed
      ? 'On: agents on this computer get its tools, URL, title and the context below.'
      : 'Off: agents see only that a tab of this site is open; nothing else leaves the browser.'),
  );
}
