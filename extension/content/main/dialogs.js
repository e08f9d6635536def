// Dialogs: while a page's alert, confirm or prompt is up, its main thread
// runs no script at all, neither the page's nor the content scripts', so the
// frame cannot answer a call, nor say why. So the page's world wraps the
// three and tells the relay, synchronously (a DOM event dispatched on the
// window: its listeners in the isolated world run before dispatchEvent
// returns; a MessagePort's message would wait for the dialog to close),
// just before the dialog opens and just after it closed. The relay tells
// the worker on its Port at once, and the worker answers calls to the
// blocked frame itself (worker/frames.js, routing.js).
//
// The wrappers are Proxies of the page's own functions: the same name,
// length, property descriptor, prototype, `this` checks and errors; and
// Function.prototype.toString (itself wrapped the same way) gives the
// native text for them. The message is converted to a string once, here,
// as the browser would (a symbol is left for the browser to refuse).

import { apply, defineProperty, getOwnPropertyDescriptor } from '../source/builtins.js';

/** The window's functions that open a dialog that blocks the page. */
export const DIALOG_KINDS = ['alert', 'confirm', 'prompt'];

/**
 * Wraps win's alert, confirm and prompt (and Function.prototype.toString,
 * for their text). notify(open, kind, text) runs just before one opens
 * (open: true) and just after it closed (open: false).
 * @param {object} o
 * @param {object} o.win  the page's window
 * @param {(open: boolean, kind: string, text: string) => void} o.notify
 */
export function watchDialogs({ win, notify }) {
  const ProxyCtor = win.Proxy || Proxy;
  const WeakMapCtor = win.WeakMap || WeakMap;
  const masks = new WeakMapCtor(); // wrapper -> the function whose text it gives
  const maskGet = WeakMapCtor.prototype.get;
  const maskSet = WeakMapCtor.prototype.set;
  const FnProto = win.Function ? win.Function.prototype : Function.prototype;
  const tsDesc = getOwnPropertyDescriptor(FnProto, 'toString');
  let wrappedAny = false;

  for (const kind of DIALOG_KINDS) {
    const d = getOwnPropertyDescriptor(win, kind);
    if (!d || typeof d.value !== 'function') continue;
    const original = d.value;
    const wrapper = new ProxyCtor(original, {
      apply(target, self, args) {
        // Only a call the browser takes opens a dialog (another `this` is an
        // "Illegal invocation"): that one is the browser's to refuse.
        if (self !== undefined && self !== null && self !== win) return apply(target, self, args);
        let text = '';
        if (args.length && args[0] !== undefined && typeof args[0] !== 'symbol') {
          text = String(args[0]); // as the browser converts it, once
          args[0] = text;
        }
        try {
          notify(true, kind, text);
        } catch {
          // the bridge's problem: the page's dialog opens all the same
        }
        try {
          return apply(target, self, args);
        } finally {
          try {
            notify(false, kind, text);
          } catch {
            // as above
          }
        }
      },
    });
    apply(maskSet, masks, [wrapper, original]);
    defineProperty(win, kind, { ...d, value: wrapper });
    wrappedAny = true;
  }

  if (wrappedAny && tsDesc && typeof tsDesc.value === 'function') {
    const toStr = tsDesc.value;
    const tsWrapper = new ProxyCtor(toStr, {
      apply(target, self, args) {
        const shown = apply(maskGet, masks, [self]);
        return apply(target, shown === undefined ? self : shown, args);
      },
    });
    apply(maskSet, masks, [tsWrapper, toStr]);
    defineProperty(FnProto, 'toString', { ...tsDesc, value: tsWrapper });
  }
}
