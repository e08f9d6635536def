// The options page: the allow list (ui/sites-list.js), as the panel shows it,
// and how native mode runs calls (ui/callpath-switch.js).

import { listen, send } from './api.js';
import { mountCallPath } from './callpath-switch.js';
import { mountSites } from './sites-list.js';
import { reporter } from './status.js';

const report = reporter(document.getElementById('status'));
mountSites(document.getElementById('sites-body'), { send, listen, report });
mountCallPath(document.getElementById('call-path-body'), { send, report });
