// The pin store: the pins of context providers, kept in chrome.storage.local
// under PINS_KEY (lib/pins.js holds the pure operations on them). Changes run
// one at a time, in order; each is stored first and then announced (to the
// host, as a pins message). A change the extension's UI makes in storage is
// picked up and announced as well.

import { PINS_KEY, addPin, pinsFrom, removePins, storedPins } from '../lib/pins.js';
import { Code } from '../lib/protocol.js';

/** PinStore holds the pins and keeps them in storage. */
export class PinStore {
  /**
   * @param {object} o
   * @param {typeof chrome} o.chrome
   * @param {(pins: object[]) => void} o.announce tells the host the pins changed
   */
  constructor({ chrome, announce }) {
    Object.assign(this, { chrome, announce });
    /** The pins, as stored under PINS_KEY. */
    this.pins = [];
    this.queue = Promise.resolve();
  }

  /** Listens for pins that another part of the extension stored. */
  listen() {
    this.chrome.storage.onChanged.addListener((changes, area) => {
      if (area !== 'local' || !(PINS_KEY in changes)) return;
      this.serially(() => {
        const next = pinsFrom(changes[PINS_KEY].newValue);
        if (JSON.stringify(next) === JSON.stringify(this.pins)) return;
        this.pins = next;
        this.announce(this.pins);
      });
    });
  }

  /** Takes the pins that storage holds at start (no change can be under way yet). */
  load(stored) {
    this.pins = pinsFrom(stored);
  }

  /** Adds a pin (replacing its provider's); {output: pin} or {code, message}. */
  add(pin) {
    return this.serially(async () => {
      const added = addPin(this.pins, pin);
      if (added.error) return { code: Code.badRequest, message: added.error };
      return (await this.save(added.pins)) || { output: pin };
    });
  }

  /** Removes the pins of providerId, or all when it is null; {output: {removed}} or {code, message}. */
  remove(providerId) {
    return this.serially(async () => {
      const { pins: next, removed } = removePins(this.pins, providerId);
      if (removed === 0) return { output: { removed } };
      return (await this.save(next)) || { output: { removed } };
    });
  }

  // Runs fn after the changes before it.
  serially(fn) {
    const p = this.queue.then(fn);
    this.queue = p.catch(() => {});
    return p;
  }

  // Replaces the pins, stores them and announces them; on a storage failure
  // nothing changes.
  async save(next) {
    const before = this.pins;
    this.pins = next; // before the write, so that storage.onChanged finds nothing new
    try {
      await this.chrome.storage.local.set({ [PINS_KEY]: storedPins(next) });
    } catch (e) {
      this.pins = before;
      return { code: Code.internal, message: `the pins could not be stored (${e.message}); nothing changed` };
    }
    this.announce(this.pins);
    return null;
  }
}
