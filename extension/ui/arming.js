// Buttons that answer for the user arm a moment after they appear: the
// consent window draws the next waiting call in the same place when one
// ends, so a click (or Enter, Space) meant for the call before must not
// answer the new one. ui/consent-page.js disarms on each render of a new call
// and each time its window takes the focus; handlers wrapped by guard()
// do nothing until ARM_DELAY ms later. Pure: the clock comes in, so Node's
// tests drive it with a fake one.

/** How long buttons stay unarmed after a new call is drawn or the window is focused (ms). */
export const ARM_DELAY = 500;

export class Arming {
  /**
   * @param {object} [o]
   * @param {{setTimeout: Function, clearTimeout: Function}} [o.clock]
   * @param {number} [o.delay]
   * @param {(armed: boolean) => void} [o.onChange] told each time the state changes
   */
  constructor({ clock = globalThis, delay = ARM_DELAY, onChange = () => {} } = {}) {
    this.clock = clock;
    this.delay = delay;
    this.onChange = onChange;
    this.armed = false;
    this.timer = 0;
  }

  /** Disarms now and arms again after the delay (a later disarm starts it over). */
  disarm() {
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = this.clock.setTimeout(() => {
      this.timer = 0;
      this.armed = true;
      this.onChange(true);
    }, this.delay);
    if (this.armed) {
      this.armed = false;
      this.onChange(false);
    }
  }

  /** fn, run only while armed: an early click, Enter or Space does nothing. */
  guard(fn) {
    return (...args) => {
      if (this.armed) fn(...args);
    };
  }
}
