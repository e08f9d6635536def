// The in-page indicator: "<agent> is using <tool>" while an agent's call
// runs in this tab, drawn by the relay (relay.js) in the extension's
// isolated world, in a CLOSED shadow root: the page sees an empty host
// element at most, cannot read or restyle what is inside, and its own
// scripts (their patched prototypes) never run here. Unobtrusive: a small
// pill in the bottom right corner that lets clicks through; light and dark.
// It gets out of the person's way, as the browser's own link-status bubble
// does: when the pointer comes near it (over a page's footer, say), it
// moves to the other bottom corner, and back when the pointer comes near
// it there.


const STYLE = `
  :host { all: initial; }
  .pill {
    position: fixed; right: 12px; bottom: 12px; z-index: 2147483647;
    max-width: min(420px, calc(100vw - 24px));
    padding: 6px 12px 6px 10px; border-radius: 999px;
    font: 13px/1.3 system-ui, sans-serif; color: #fff; background: #1a73e8;
    box-shadow: 0 2px 8px rgba(0, 0, 0, .3); pointer-events: none;
    white-space: nowrap; overflow: hidden; text-overflow: ellipsis;
    display: flex; gap: 8px; align-items: center; opacity: .95;
  }
  .pill.left { right: auto; left: 12px; }
  .dot { width: 8px; height: 8px; border-radius: 50%; background: #fff; flex: none; animation: pulse 1.2s ease-in-out infinite; }
  @keyframes pulse { 50% { opacity: .35; } }
  @media (prefers-reduced-motion: reduce) { .dot { animation: none; } }
  @media (prefers-color-scheme: dark) { .pill { background: #8ab4f8; color: #202124; } .dot { background: #202124; } }
`;

/**
 * Makes the indicator of one document. show(text) shows text ("" or
 * anything not a string hides it); text() is what it shows (for tests).
 */
// How near the pointer may come (px) before the pill moves away.
export const DODGE_MARGIN = 24;

export function create(document) {
  let host = null;
  let label = null;
  let pill = null;
  let shown = '';
  let left = false;

  // The pointer near the pill: it moves to the other bottom corner.
  function onPointer(e) {
    if (!pill || typeof pill.getBoundingClientRect !== 'function') return;
    const r = pill.getBoundingClientRect();
    if (e.clientX < r.left - DODGE_MARGIN || e.clientX > r.right + DODGE_MARGIN || e.clientY < r.top - DODGE_MARGIN || e.clientY > r.bottom + DODGE_MARGIN) return;
    left = !left;
    pill.className = left ? 'pill left' : 'pill';
  }

  function build() {
    // A div: a custom element's name could be one the page defined (its constructor would run).
    host = document.createElement('div');
    const shadow = host.attachShadow({ mode: 'closed' });
    const style = document.createElement('style');
    style.textContent = STYLE;
    pill = document.createElement('div');
    pill.className = left ? 'pill left' : 'pill';
    pill.setAttribute('role', 'status');
    pill.setAttribute('aria-live', 'polite');
    const dot = document.createElement('span');
    dot.className = 'dot';
    label = document.createElement('span');
    pill.append(dot, label);
    shadow.append(style, pill);
  }

  function show(text) {
    shown = typeof text === 'string' ? text.slice(0, 200) : '';
    if (!shown) {
      if (host) host.remove();
      if (document.removeEventListener) document.removeEventListener('pointermove', onPointer, true);
      return;
    }
    if (!host) build();
    if (document.addEventListener) document.addEventListener('pointermove', onPointer, { capture: true, passive: true });
    label.textContent = shown;
    const parent = document.body || document.documentElement;
    if (parent && host.parentNode !== parent) parent.append(host);
  }

  return { show, text: () => shown, corner: () => (left ? 'left' : 'right') };
}
