// The panel: the action's popup, the side panel, or a tab
// (ui/panel.html?tab=<id>, the id list_tabs and `webmcp-shim status` show).
// It shows one tab (?tab=, else the active tab of its window, followed as it
// changes in the side panel), in the order of the questions a person opens
// it with, the first three on the popup's first screen: which agents are
// connected; may they use this site, and do they ask first (the switch, the
// ask-before-acting choice); what the next prompt carries (the context
// chips, their switches, the pins). Then the tools, one line each, with the
// page author's inspector (ui/inspector.js: what an agent gets, warnings,
// "Try NAME"), and the activity log and the allowed sites, collapsed.
// Everything comes from the worker (worker/panel.js) through ui/api.js, and
// is asked again whenever the worker names a topic that changed.

import { sidePanel } from '../lib/compat.js';
import { listen, send } from './api.js';
import { renderConnection } from './connection.js';
import { renderChips, renderPins } from './context.js';
import { renderSite } from './site.js';
import { renderSites } from './sites-list.js';
import { reporter } from './status.js';
import { renderTools } from './tools.js';

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const fixedTab = params.has('tab') ? Number(params.get('tab')) : null;
const inSidePanel = params.get('in') === 'sidepanel';
document.documentElement.classList.add(fixedTab !== null ? 'mode-tab' : inSidePanel ? 'mode-side' : 'mode-popup');

const report = reporter($('status'));
/** The raw-JSON views that are open, kept open across renders (ui/context.js). */
const openRaw = new Set();
let tabId;
let windowId;
let last = '';

async function activeTab() {
  try {
    const [t] = await chrome.tabs.query({ active: true, currentWindow: true });
    return t;
  } catch {
    return undefined;
  }
}

// While a key or pointer is down, a render waits for its release: a control
// replaced between press and release would lose the press.
let pressing = false;
let held = null;
const press = () => {
  pressing = true;
};
const release = () => {
  // After the click or change that the release causes.
  setTimeout(() => {
    pressing = false;
    if (held) {
      const [state, sites] = held;
      held = null;
      render(state, sites);
    }
  }, 0);
};
document.addEventListener('keydown', press, true);
document.addEventListener('pointerdown', press, true);
document.addEventListener('keyup', release, true);
document.addEventListener('pointerup', release, true);
document.addEventListener('pointercancel', release, true);

// Renders, keeping the focus on the control with the same accessible name.
function render(state, sites) {
  if (pressing) {
    held = [state, sites];
    return;
  }
  const json = JSON.stringify([state, sites]);
  if (json === last) return;
  last = json;
  const focused = document.activeElement;
  const key = focused && focused !== document.body ? focused.getAttribute('aria-label') || focused.id : null;
  const actions = { send, refresh: () => refresh(), report, openRaw };
  renderConnection($('connection-body'), state);
  renderSite($('site-body'), state, actions);
  renderTools($('tools-body'), state, actions);
  $('tools').hidden = !state.site; // no web page, or a site not allowed: This site says so
  renderChips($('chips-body'), state, actions);
  renderPins($('pins-body'), state, actions);
  renderSites($('sites-body'), sites, actions);
  document.body.dataset.tab = state.tab ? String(state.tab.id) : '';
  document.body.dataset.ready = 'true';
  mountSiteSettings(state.site ? state.site.origin : null);
  mountActivity(state.tab ? state.tab.id : null);
  if (key && document.activeElement !== focused) {
    const again = [...document.querySelectorAll('[aria-label],[id]')].find((el) => el.getAttribute('aria-label') === key || el.id === key);
    if (again) again.focus();
  }
}

let busy = null;
let again = false;
let againFresh = false;
/** Asks the worker again (fresh: sample the tab's providers first); calls while one runs coalesce. */
function refresh(fresh = false) {
  if (busy) {
    again = true;
    againFresh ||= fresh;
    return busy;
  }
  busy = (async () => {
    let f = fresh;
    do {
      again = false;
      try {
        const [state, sites] = await Promise.all([send('panel/state', { tabId, fresh: f }), send('sites/list')]);
        // The inspector's view of the tab's tools (ui/tools.js shows it when there is one).
        if (state.tab && state.tools.length) state.inspect = await send('inspect/tools', { tabId: state.tab.id }).catch(() => null);
        render(state, sites);
      } catch (e) {
        report(`Could not ask the extension: ${e.message}`, true);
      }
      f = againFresh;
      againFresh = false;
    } while (again);
    busy = null;
  })();
  return busy;
}

// The ask-before-acting settings and the activity log come from their own
// modules (ui/site-settings.js, ui/activity-log.js) when the extension has them.
let settingsOrigin;
function mountSiteSettings(origin) {
  if (origin === settingsOrigin) return;
  settingsOrigin = origin;
  const root = $('site-consent');
  root.replaceChildren();
  if (!origin) return;
  import('./site-settings.js')
    .then((m) => settingsOrigin === origin && m.mountSiteSettings && m.mountSiteSettings(root, { send, origin, compact: true }))
    .catch(() => {});
}

let activityTab;
function mountActivity(id) {
  if (id === activityTab) return;
  activityTab = id;
  const root = $('activity-log');
  root.replaceChildren();
  import('./activity-log.js')
    .then((m) => activityTab === id && m.mountActivity && m.mountActivity(root, { send, tabId: id }))
    .catch(() => {});
}

async function start() {
  if (fixedTab !== null && !(Number.isSafeInteger(fixedTab) && fixedTab >= 0)) {
    report(`?tab=${params.get('tab')} is not a tab id: use the id that list_tabs or \`webmcp-shim status\` shows.`, true);
  }
  const t = fixedTab === null ? await activeTab() : undefined;
  tabId = fixedTab !== null ? fixedTab : t && t.id;
  windowId = t ? t.windowId : undefined;
  if (windowId === undefined) {
    try {
      windowId = (await chrome.windows.getCurrent()).id;
    } catch {
      // no window: the side panel button stays hidden
    }
  }
  const button = $('open-side-panel');
  const side = sidePanel(chrome); // Chromium's side panel, Firefox's sidebar
  if (!inSidePanel && side && windowId !== undefined) {
    button.textContent = `Open in ${side.name}`;
    button.hidden = false;
    button.addEventListener('click', async () => {
      try {
        await side.open(windowId);
        if (document.documentElement.classList.contains('mode-popup')) window.close();
      } catch (e) {
        report(`Could not open the ${side.name}: ${e.message}`, true);
      }
    });
  }
  listen((topic) => {
    if (['tab', 'pins', 'sites', 'host', 'agents', 'reconnected'].includes(topic)) refresh(topic === 'reconnected');
  });
  if (fixedTab === null && chrome.tabs && chrome.tabs.onActivated) {
    // The side panel stays open while the user moves between tabs: follow them.
    chrome.tabs.onActivated.addListener((info) => {
      if (info.windowId !== windowId || info.tabId === tabId) return;
      tabId = info.tabId;
      openRaw.clear();
      refresh(true);
    });
  }
  await refresh(true);
}

start();
