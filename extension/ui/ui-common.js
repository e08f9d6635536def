// What the ask-before-acting and activity modules share (ui/consent-page.js,
// ui/site-settings.js, ui/activity-log.js): their styles (light and dark,
// injected once per document so they look right in the panel and on their
// own pages), the worker's requests and its change notices, and how
// durations read. They build DOM with dom.js's h(), as the panel does.

import { listen as listenToWorker } from './api.js';

export { send } from './api.js';

/**
 * Calls onChange(topic) when the worker says something changed, while el
 * is in its document: through listen(onChange) when the page gives one,
 * else through api.js's listen (its Port is opened again when the worker
 * restarts, with onChange('reconnected')). Returns a function that stops.
 */
export function watch(el, listen, onChange) {
  let stopped = false;
  const guard = (topic) => {
    if (stopped) return;
    if (!el.isConnected && el.dataset.mounted) {
      stop();
      return;
    }
    onChange(topic);
  };
  queueMicrotask(() => {
    el.dataset.mounted = '1';
  });
  const unlisten = (typeof listen === 'function' ? listen : listenToWorker)(guard);
  function stop() {
    stopped = true;
    if (typeof unlisten === 'function') unlisten();
  }
  return stop;
}

/** A duration in ms as people read it: "85 ms", "1.2 s", "2 min 5 s". */
export function duration(ms) {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return '';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60000) return `${(ms / 1000).toFixed(ms < 10000 ? 1 : 0)} s`;
  return `${Math.floor(ms / 60000)} min ${Math.round((ms % 60000) / 1000)} s`;
}

const STYLE = `
.wm-scope, .wm-site-settings, .wm-activity {
  --wm-fg: #1b1f24; --wm-muted: #57606a; --wm-line: #d0d7de; --wm-card: #f6f8fa;
  --wm-accent: #0b57d0; --wm-accent-fg: #fff; --wm-error: #b3261e; --wm-focus: #0b57d0;
  --wm-ok: #116329; --wm-warn: #9a6700; --wm-declined: #8250df;
}
@media (prefers-color-scheme: dark) {
  .wm-scope, .wm-site-settings, .wm-activity {
    --wm-fg: #e6edf3; --wm-muted: #9da7b3; --wm-line: #3d444d; --wm-card: #1f242a;
    --wm-accent: #8ab4f8; --wm-accent-fg: #0b1a33; --wm-error: #ff938a; --wm-focus: #8ab4f8;
    --wm-ok: #7ee2a8; --wm-warn: #e3b341; --wm-declined: #d2a8ff;
  }
}
.wm-muted { color: var(--wm-muted); font-size: 12px; margin: 4px 0; }
.wm-error { color: var(--wm-error); }
.wm-status { min-height: 1em; font-size: 12px; margin: 4px 0; color: var(--wm-muted); }
.wm-choices { border: 1px solid var(--wm-line); border-radius: 6px; padding: 6px 10px 8px; margin: 8px 0; }
.wm-choices legend { font-weight: 600; padding: 0 4px; }
.wm-choice { display: flex; gap: 8px; align-items: flex-start; margin: 4px 0; }
.wm-choice input { margin-top: 2px; }
/* The drop-down keeps the width of its longest choice, on a line of its
   own below the label where the two do not fit side by side (the 375 px
   popup), so no choice is cut. */
.wm-ask { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 8px; margin: 6px 0 4px; }
.wm-ask label { font-weight: 600; white-space: nowrap; }
.wm-ask select {
  flex: 1 0 auto; max-width: 100%; font: inherit; color: var(--wm-fg); background: var(--wm-card);
  border: 1px solid var(--wm-line); border-radius: 6px; padding: 3px 6px;
}
.wm-compact .wm-choice { font-size: 12px; color: var(--wm-muted); margin: 2px 0; }
.wm-compact .wm-status:empty { display: none; }
.wm-scope button, .wm-activity button {
  font: inherit; padding: 5px 12px; border-radius: 6px; border: 1px solid var(--wm-line);
  background: var(--wm-card); color: var(--wm-fg); cursor: pointer;
}
.wm-scope button.wm-primary { background: var(--wm-accent); color: var(--wm-accent-fg); border-color: var(--wm-accent); }
.wm-scope :focus-visible, .wm-site-settings :focus-visible, .wm-activity :focus-visible { outline: 2px solid var(--wm-focus); outline-offset: 2px; }
.wm-activity .wm-head { display: flex; justify-content: space-between; align-items: center; gap: 8px; flex-wrap: wrap; }
.wm-log { list-style: none; padding: 0; margin: 6px 0; }
.wm-log li { border-top: 1px solid var(--wm-line); padding: 6px 0; }
.wm-log .wm-line1 { display: flex; flex-wrap: wrap; gap: 4px 8px; align-items: baseline; }
.wm-log .wm-tool { font-weight: 600; font-family: ui-monospace, monospace; }
.wm-log .wm-site, .wm-log time, .wm-log .wm-dur { color: var(--wm-muted); font-size: 12px; }
.wm-outcome { font-size: 11px; font-weight: 600; padding: 1px 6px; border-radius: 999px; border: 1px solid currentColor; }
.wm-outcome[data-outcome="result"] { color: var(--wm-ok); }
.wm-outcome[data-outcome="error"], .wm-outcome[data-outcome="timed out"] { color: var(--wm-error); }
.wm-outcome[data-outcome="declined"] { color: var(--wm-declined); }
.wm-outcome[data-outcome="cancelled"], .wm-outcome[data-outcome="waiting"], .wm-outcome[data-outcome="running"] { color: var(--wm-warn); }
.wm-args { margin: 4px 0 0; }
.wm-args pre, .wm-scope pre {
  margin: 4px 0; padding: 6px 8px; background: var(--wm-card); border: 1px solid var(--wm-line); border-radius: 6px;
  white-space: pre-wrap; word-break: break-word; max-height: 240px; overflow: auto; font: 12px/1.4 ui-monospace, monospace;
}
`;

/** Adds the styles to doc once. */
export function injectStyle(doc) {
  if (doc.getElementById('wm-style')) return;
  const style = doc.createElement('style');
  style.id = 'wm-style';
  style.textContent = STYLE;
  doc.head.append(style);
}
