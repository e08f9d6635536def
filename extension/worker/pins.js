// The pin store: the pins of context providers, kept in chrome.storage.local
// under PINS_KEY (lib/pinlist.js holds the pure operations on them). Changes run
// one at a time, in order; each is stored first and then announced (to the
// host, as a pins message). A change the extension's UI makes in storage is
// picked up and announced as well. Only the shared pins go out: a pin of a
// site that is no longer allowed, or of a provider the user excluded, stays
// in the store but never leaves the browser (shareable decides; reshare()
// announces again when that may have changed).

import { PINS_KEY, addPin, pinsFrom, removePins, storedPins } from '../lib/pinlist.js';
import { Code } from '../lib/protocol.js';

/** PinStore holds the pins and keeps them in storage. */
export class PinStore {
  /**
   * @param {object} o
   * @param {typeof chrome} o.chrome
   * @param {(pins: object[]) => void} o.announce tells the host the pins changed
   * @param {(pin: object) => boolean} [o.shareable] whether a pin may leave the browser
   * @param {() => void} [o.changed] runs after the pins changed (for the extension's pages)
   */
  constructor({ chrome, announce, shareable = () => true, changed = () => {} }) {
    Object.assign(this, { chrome, shareable, changed });
    this.announceTo = announce;
    /** The pins, as stored under PINS_KEY. */
    this.pins = [];
    this.queue = Promise.resolve();
    /** The JSON of the shared pins last announced. */
    this.lastShared = '[]';
  }

  /** The pins that may leave the browser (for the state message and announcements). */
  shared() {
    const list = this.pins.filter((p) => this.shareable(p));
    this.lastShared = JSON.stringify(list);
    return list;
  }

  /** Tells the host the shared pins, and the extension's pages that the pins changed. */
  announce() {
    this.announceTo(this.shared());
    this.changed();
  }

  /** Announces the shared pins again when they differ from the last announced (site access or exclusions changed). */
  reshare() {
    const before = this.lastShared;
    if (JSON.stringify(this.pins.filter((p) => this.shareable(p))) !== before) this.announce();
  }

  /** Listens for pins that another part of the extension stored. */
  listen() {
    this.chrome.storage.onChanged.addListener((changes, area) => {
      if (area !== 'local' || !(PINS_KEY in changes)) return;
      this.serially(() => {
        const next = pinsFrom(changes[PINS_KEY].newValue);
        if (JSON.stringify(next) === JSON.stringify(this.pins)) return;
        this.pins = next;
        this.announce();
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
      if (!this.shareable(pin)) {
        return { code: Code.notAllowed, message: `context provider ${JSON.stringify(pin.providerId)} may not leave the browser (the user excluded it, or its site is not allowed); nothing was pinned` };
      }
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
    this.announce();
    return null;
  }
}
