// The extension's pages talk to the service worker here, and only here:
// send(type, params) is one request through worker/uiapi.js (its value, or
// an Error with the worker's message), and listen(onChange) opens the Port
// on which the worker names the topics that changed, opened again if the
// worker restarts.

import { UI_PORT } from '../lib/protocol.js';

/**
 * Sends one request to the worker and returns its value.
 * @param {string} type e.g. 'panel/state'
 * @param {object} [params]
 */
export async function send(type, params = {}) {
  let r;
  try {
    r = await chrome.runtime.sendMessage({ ...params, type });
  } catch (e) {
    throw new Error(`the extension's service worker did not answer (${e.message}); reopen this page`);
  }
  if (!r) throw new Error(`no part of the extension answers "${type}"; reload the extension in chrome://extensions`);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

/**
 * Calls onChange(topic) whenever the worker says something changed, and
 * onChange('reconnected') after the worker restarted. Returns a function
 * that stops listening.
 */
export function listen(onChange) {
  let port = null;
  let stopped = false;
  const open = () => {
    port = chrome.runtime.connect({ name: UI_PORT });
    port.onMessage.addListener((m) => {
      if (m && m.type === 'changed' && typeof m.topic === 'string') onChange(m.topic);
    });
    port.onDisconnect.addListener(() => {
      void chrome.runtime.lastError;
      if (stopped) return;
      // The worker went away (it restarts on the next message): open again.
      setTimeout(() => {
        if (stopped) return;
        open();
        onChange('reconnected');
      }, 200);
    });
  };
  open();
  return () => {
    stopped = true;
    port.disconnect();
  };
}
