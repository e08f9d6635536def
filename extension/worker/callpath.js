// How native mode runs a call in the page (issue PERF2): by default the
// page's world runs the tool's execute itself, as the browser's
// executeTool would (content/main/witness.js: the same input, client,
// events and result text), at a fraction of executeTool's CPU; with the
// setting "executeTool" every call goes through the browser's executeTool,
// so that DevTools' WebMCP view (the CDP events toolInvoked and
// toolResponded) lists the bridge's calls too. The setting is the user's,
// kept in chrome.storage.local, changed on the options page; each call
// message to a frame carries it (via: "executeTool"), since content
// scripts cannot read storage.

/** The key of the setting in chrome.storage.local. */
export const CALL_PATH_KEY = 'nativeCalls';

/** The setting's values: the default, and the browser's executeTool. */
export const CallPath = Object.freeze({ direct: 'direct', executeTool: 'executeTool' });

export class CallPaths {
  /** @param {{chrome: typeof chrome}} o */
  constructor({ chrome }) {
    this.chrome = chrome;
    this.value = CallPath.direct;
  }

  /** Takes the stored value (anything but "executeTool" is the default). */
  load(v) {
    this.value = v === CallPath.executeTool ? CallPath.executeTool : CallPath.direct;
  }

  /** Whether calls go through the browser's executeTool. */
  viaExecuteTool() {
    return this.value === CallPath.executeTool;
  }

  /** Follows the stored setting, and answers the options page. */
  listen(ui) {
    this.chrome.storage.onChanged.addListener((changes, area) => {
      if (area === 'local' && CALL_PATH_KEY in changes) this.load(changes[CALL_PATH_KEY].newValue);
    });
    if (!ui) return;
    ui.on('callPath.get', () => ({ value: this.value }));
    ui.on('callPath.set', async (m) => {
      if (m.value !== CallPath.direct && m.value !== CallPath.executeTool) throw new Error(`callPath.set: "value" must be "direct" or "executeTool", not ${JSON.stringify(m.value)}`);
      this.value = m.value;
      await this.chrome.storage.local.set({ [CALL_PATH_KEY]: m.value });
      return { value: this.value };
    });
  }
}
