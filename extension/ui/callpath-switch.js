// The options page's "Calls in DevTools" switch (worker/callpath.js): in
// native mode the bridge runs a call in the page the way the browser's
// executeTool does, without it; on, every call goes through executeTool,
// and DevTools' WebMCP view lists it, at about twice the CPU per call.

import { fill, toggle } from './dom.js';

/** Mounts the switch into el; send and report as the other pages' parts take them. */
export async function mountCallPath(el, { send, report }) {
  const show = (value) => fill(el, toggle({
    label: 'Run calls through the browser\'s executeTool',
    text: 'Run calls through the browser\'s executeTool (DevTools lists them)',
    describedBy: 'call-path-about',
    checked: value === 'executeTool',
    onChange: async (on, input) => {
      input.disabled = true;
      try {
        const got = await send('callPath.set', { value: on ? 'executeTool' : 'direct' });
        report(got.value === 'executeTool' ? 'Calls now go through the browser\'s executeTool.' : 'Calls now run in the page directly.');
        show(got.value);
      } catch (e) {
        report(`Could not change how calls run: ${e.message}`, true);
        show(value);
      }
    },
  }));
  try {
    show((await send('callPath.get')).value);
  } catch (e) {
    report(`Could not read how calls run: ${e.message}`, true);
  }
}
