// The panel's context strip: one chip per context provider of the tab (and
// one for the ambient selection and focused element), compact: a switch to
// include or exclude it ("Include <provider id>"), its name, a button that
// shows the raw JSON exactly as an agent receives it, and the description
// agents are told once ("Show raw JSON of <provider id>"), a pin button
// ("Pin <provider id>"), and its summary in plain words; then the pinned
// snapshots, each with "Unpin". An
// excluded provider never leaves the browser: the worker leaves it out
// where it merges the tab's context (lib/contexts.js).

import { h, fill, toggle, timeOfDay } from './dom.js';

/** The chip id of the ambient context (lib/panelview.js AMBIENT_CHIP). */
const AMBIENT = 'ambient';

/** How a chip is named in accessible names: its provider id, or the ambient context's words. */
export function chipName(chip) {
  return chip.kind === 'ambient' ? 'selection and focused element' : chip.id;
}

// The raw JSON, shown on demand: a small disclosure button ("JSON", named
// label) for the chip's first line, and the box it opens below; open ones
// stay open across renders (openRaw holds their keys).
let rawSeq = 0;
function rawView(key, label, raw, openRaw, note) {
  const id = `raw-${++rawSeq}`;
  const open = openRaw.has(key);
  const body = h('div', { class: 'raw', id, 'data-raw': key, hidden: !open },
    note,
    h('pre', { class: 'json', tabindex: '0', 'aria-label': `${label}: the JSON` }, raw));
  const button = h('button', {
    type: 'button',
    class: 'small quiet',
    'aria-label': label,
    'aria-expanded': String(open),
    'aria-controls': id,
    onClick: () => {
      const now = body.hidden;
      body.hidden = !now;
      button.setAttribute('aria-expanded', String(now));
      if (now) openRaw.add(key);
      else openRaw.delete(key);
    },
  }, 'JSON');
  return { button, body };
}

/** Renders the chips into el. actions: {send, refresh, report, openRaw (a Set of open expanders)}. */
export function renderChips(el, state, actions) {
  const { site, chips, tab } = state;
  if (!site) {
    // This site's section says why (not a web page, or a site not
    // allowed), once; the pins below still show.
    fill(el);
    return;
  }
  if (!site.allowed) {
    fill(el, h('p', { class: 'muted' }, 'Nothing of this site\'s context leaves the browser while the site is off.'));
    return;
  }
  if (!chips.length) {
    fill(el, h('p', { class: 'muted' }, 'Nothing to share right now: the page has no context providers with something to say, and nothing is selected. A read-only tool of the page can go with every prompt: turn it on under Tools.'));
    return;
  }
  const include = async (chip, on, input) => {
    input.disabled = true;
    const params = chip.kind === 'ambient' ? { ambient: true } : { providerId: chip.id };
    try {
      await actions.send('provider/include', { origin: site.origin, include: on, ...params });
      actions.report(on ? `${chipName(chip)} goes to agents again.` : `${chipName(chip)} no longer leaves the browser.`);
    } catch (e) {
      input.checked = !on;
      actions.report(`Could not change ${chipName(chip)}: ${e.message}`, true);
    } finally {
      input.disabled = false;
      actions.refresh();
    }
  };
  const pin = async (chip, button) => {
    button.disabled = true;
    try {
      await actions.send('pin', { tabId: tab.id, providerId: chip.id });
      actions.report(`Pinned ${chip.id}: it goes with every prompt.`);
    } catch (e) {
      actions.report(`Could not pin ${chip.id}: ${e.message}`, true);
    } finally {
      button.disabled = false;
      actions.refresh();
    }
  };
  fill(el, h('ul', { class: 'chips' }, chips.map((chip) => {
    const name = chipName(chip);
    const label = chip.kind === 'ambient' ? 'Include selection and focused element' : `Include ${chip.id}`;
    const raw = rawView(chip.kind === AMBIENT ? `chip:${AMBIENT}` : `chip:${chip.id}`, `Show raw JSON of ${name}`, chip.raw, actions.openRaw,
      chip.description && h('p', { class: 'muted small' }, 'Told to agents once: ', chip.description));
    return h('li', { class: chip.included ? 'chip' : 'chip excluded', 'data-chip': chip.id, 'data-kind': chip.kind },
      h('div', { class: 'row' },
        toggle({ label, text: '', checked: chip.included, onChange: (on, input) => include(chip, on, input) }),
        h('code', { class: 'name', title: chip.kind === 'ambient' ? undefined : chip.id }, chip.kind === 'ambient' ? 'Selection and focus' : chip.id),
        chip.tool && h('span', { class: 'tag read', title: 'The answer of this page tool, sent with every prompt' }, 'tool'),
        raw.button,
        chip.kind === 'provider' && h('button', {
          type: 'button',
          class: 'small',
          'aria-label': `Pin ${chip.id}`,
          disabled: !chip.included || !!chip.note,
          title: chip.included ? 'Keep this snapshot with every prompt, whatever you look at next' : 'Include it first',
          onClick: (e) => pin(chip, e.currentTarget),
        }, 'Pin')),
      h('p', { class: 'summary', title: chip.summary || undefined }, chip.note ? `Could not be read: ${chip.note}` : chip.summary || '(no summary)'),
      chip.stale && h('p', { class: 'muted small' }, `Not fresh: ${chip.stale}.`),
      !chip.included && h('p', { class: 'muted small' }, 'Excluded: agents get none of it, not in get_ui_context, the prompt hook nor a pin.'),
      raw.body);
  })));
}

/** Renders the pinned snapshots into el. */
export function renderPins(el, state, actions) {
  const { pins } = state;
  if (!pins.length) {
    fill(el, h('p', { class: 'muted small' }, 'Nothing pinned: Pin keeps a snapshot with every prompt.'));
    return;
  }
  const unpin = async (p, button) => {
    button.disabled = true;
    try {
      await actions.send('unpin', { providerId: p.providerId });
      actions.report(`Unpinned ${p.providerId}.`);
    } catch (e) {
      button.disabled = false;
      actions.report(`Could not unpin ${p.providerId}: ${e.message}`, true);
    } finally {
      actions.refresh();
    }
  };
  fill(el, h('h3', { id: 'pins-h' }, 'Pinned'), h('ul', { class: 'chips pins', 'aria-labelledby': 'pins-h' }, pins.map((p) => {
    const raw = rawView(`pin:${p.providerId}`, `Show raw JSON of pinned ${p.providerId}`, p.raw, actions.openRaw,
      h('p', { class: 'muted small' }, `Frozen snapshot, pinned at ${timeOfDay(p.pinnedAt, { seconds: false })} from tab ${p.tabId}${p.title ? ` “${p.title}”` : ''}.`));
    return h('li', { class: p.shared ? 'chip pinned' : 'chip pinned excluded', 'data-pin': p.providerId },
      h('div', { class: 'row' },
        h('code', { class: 'name', title: p.providerId }, p.providerId),
        h('span', { class: 'muted small' }, timeOfDay(p.pinnedAt, { seconds: false })),
        raw.button,
        h('button', { type: 'button', class: 'small', 'aria-label': `Unpin ${p.providerId}`, onClick: (e) => unpin(p, e.currentTarget) }, 'Unpin')),
      h('p', { class: 'summary', title: p.summary || undefined }, p.summary || '(no summary)'),
      !p.shared && h('p', { class: 'muted small' }, 'Not sent: its site is off or the provider is excluded.'),
      raw.body);
  })));
}
