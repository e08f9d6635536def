// Calls under way between the host and the pages. Each call is answered
// exactly once: every way out (take, takeFrom, takeWhere) hands an entry out
// once and forgets it.

/** PendingCalls tracks the calls that went to a frame and await an answer. */
export class PendingCalls {
  /** @type {Map<string, {id: string, tabId: number, frameId: number, conn: any}>} */
  #byId = new Map();

  /** Records a call; returns false when a call with that id is already under way. */
  add(id, tabId, frameId, conn) {
    if (this.#byId.has(id)) return false;
    this.#byId.set(id, { id, tabId, frameId, conn });
    return true;
  }

  /** Reports whether a call with that id is under way. */
  has(id) {
    return this.#byId.has(id);
  }

  /** Returns the call and forgets it, or undefined when it was answered already. */
  take(id) {
    const c = this.#byId.get(id);
    if (c) this.#byId.delete(id);
    return c;
  }

  /**
   * Returns and forgets the call when it went to conn; undefined (and the
   * call stays) when it was answered already or went to another frame.
   */
  takeFrom(id, conn) {
    const c = this.#byId.get(id);
    if (!c || c.conn !== conn) return undefined;
    this.#byId.delete(id);
    return c;
  }

  /** Returns and forgets every call for which pred(call) holds. */
  takeWhere(pred) {
    const out = [];
    for (const c of this.#byId.values()) if (pred(c)) out.push(c);
    for (const c of out) this.#byId.delete(c.id);
    return out;
  }

  /** The number of calls under way. */
  get size() {
    return this.#byId.size;
  }
}
