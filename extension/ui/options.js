// The options page: the allow list (ui/sites.js), as the panel shows it.

import { listen, send } from './api.js';
import { mountSites } from './sites.js';
import { reporter } from './status.js';

mountSites(document.getElementById('sites-body'), { send, listen, report: reporter(document.getElementById('status')) });
