// ui/site-settings.html?origin=<origin>: one site's ask-before-acting
// setting on a page of its own (a tab, or a test).
import { mountSiteSettings } from './site-settings.js';
import { send } from './ui-common.js';

const origin = new URLSearchParams(location.search).get('origin') || '';
document.getElementById('site').textContent = origin ? `Site: ${origin}` : 'Give the site as ?origin=https://example.com';
mountSiteSettings(document.getElementById('site-consent'), { send, origin });
