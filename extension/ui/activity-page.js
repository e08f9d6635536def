// ui/activity.html: the activity log on a page of its own (a tab, or a
// test); ?tab=<id> offers "Only this tab" for that tab.
import { mountActivity } from './activity-log.js';
import { send } from './ui-common.js';

const tab = new URLSearchParams(location.search).get('tab');
mountActivity(document.getElementById('activity-log'), { send, tabId: tab === null ? undefined : Number(tab) });
