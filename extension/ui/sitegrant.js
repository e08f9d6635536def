// Asking the browser for a site: the extension's host permission for it,
// which is what "allowed" means (worker/sites.js). The browser asks the
// user (its own prompt) unless it granted the site before, and only during
// a click or a key press in an extension page, so call requestSite first
// thing in the handler, before any other await.

import { originMatchPattern, toMatchPattern } from '../lib/sitepatterns.js';

/**
 * Asks the browser for origin (an http(s) origin; or, with {pattern: true},
 * an allow-list pattern such as "https://*.example.com"). Resolves to true
 * once granted; throws an Error that says what to do when the user or the
 * browser said no: its reason is "declined" when the prompt was answered
 * no or closed (the browser does not tell the two apart), "not_asked" when
 * the browser refused to ask.
 */
export async function requestSite(site, { pattern = false } = {}) {
  const mp = pattern ? toMatchPattern(site) : originMatchPattern(site);
  let granted = false;
  try {
    granted = await chrome.permissions.request({ origins: [mp] });
  } catch (e) {
    const err = new Error(`the browser did not ask for ${site} (${e.message}); click the switch or button again`);
    err.reason = 'not_asked';
    throw err;
  }
  if (!granted) {
    const err = new Error(`the browser's prompt for ${site} was declined or closed; nothing changed`);
    err.reason = 'declined';
    throw err;
  }
  return true;
}
