// The bridge's service worker (an ES module): everything lives in worker/;
// this entry hands it the browser. See worker/worker.js for the parts.

import { startWorker } from './worker/worker.js';

startWorker({ chrome, navigator, crypto });
