// The consent window (ui/consent.html): a popup window of the extension's
// own origin that the worker opens when an agent's call waits for the
// user (worker/consent.js). It shows the oldest waiting call — the site,
// the tool, the agent, the arguments (pretty-printed, long values folded)
// and when it declines by itself — with three buttons whose accessible
// names are a contract (tests and screen readers use them):
//   "Allow", "Deny", "Allow <tool> on this site until the browser closes".
// The other waiting calls are listed below; each answer brings the next.
// The buttons arm ARM_DELAY ms after each new call is drawn and after each
// focus of the window (ui/arming.js): a click or key press meant for the
// call before does nothing to the next one ([data-armed] on their group).
// The worker closes the window when nothing waits; closing it declines
// every call in it. The page is never inside the web page, which therefore
// cannot see, spoof or click it.

import { Arming } from './arming.js';
import { h, timeOfDay } from './dom.js';
import { requestSite } from './sitegrant.js';
import { injectStyle, send, watch } from './ui-common.js';

const requestBox = document.getElementById('request');
const queue = document.getElementById('queue');
const queueList = document.getElementById('queue-list');
let shown = null; // the id of the call the buttons answer
let answering = false;

// The buttons of the call shown answer only once armed.
const arming = new Arming({ onChange: showArmed });
function showArmed() {
  for (const group of requestBox.querySelectorAll('.buttons')) {
    group.dataset.armed = String(arming.armed);
    for (const b of group.querySelectorAll('button')) b.setAttribute('aria-disabled', String(!arming.armed));
  }
}
window.addEventListener('focus', () => {
  if (shown !== null) arming.disarm();
});

/** Shows a call's view, without the empty slots of what it lacks, and arms its buttons anew. */
function show(...children) {
  requestBox.replaceChildren(...children.filter((c) => c !== null && c !== undefined && c !== false));
  arming.disarm();
  showArmed();
}

function render(requests) {
  if (!requests.length) {
    shown = null;
    queue.hidden = true;
    requestBox.replaceChildren(h('p', { role: 'status' }, 'Nothing waits for your answer. This window closes by itself.'));
    document.title = 'Nothing waits — WebMCP bridge';
    // The worker closes it; one that restarted meanwhile no longer knows it.
    // A window whose queue emptied is never used again, so closing is safe.
    setTimeout(() => window.close(), 1500);
    return;
  }
  const r = requests[0];
  document.title = `${r.agent} asks to use ${r.tool} — WebMCP bridge`;
  if (shown === r.id && requestBox.querySelector('button')) {
    renderQueue(requests);
    return; // the same call: keep focus where it is
  }
  shown = r.id;
  if (r.kind === 'open') {
    renderOpen(r);
    renderQueue(requests);
    return;
  }
  const args = h('pre', { 'aria-label': `Arguments of ${r.tool}`, tabindex: '0' }, r.args.text);
  const allow = h('button', { type: 'button', class: 'wm-primary' }, 'Allow');
  const deny = h('button', { type: 'button' }, 'Deny');
  const always = h('button', { type: 'button' }, `Allow ${r.tool} on this site until the browser closes`);
  allow.addEventListener('click', arming.guard(() => answer(r.id, 'allow')));
  deny.addEventListener('click', arming.guard(() => answer(r.id, 'deny')));
  always.addEventListener('click', arming.guard(() => answer(r.id, 'always')));
  show(
    h('p', { id: 'summary' }, h('strong', {}, r.agent), ' wants to use ',
      h('span', { class: 'tool-name' }, r.tool), ' on ', h('strong', {}, r.frameOrigin || r.origin), r.frameOrigin ? `, framed by ${r.origin}` : '', '.'),
    r.changed ? h('p', { class: 'changed', role: 'note' }, h('strong', {}, 'This tool changed. '),
      'The page changed its description, schema or hints since this browser first saw it on this site; ' +
      'read what it does now before you allow it. Allowing it makes this definition the one the bridge knows.') : null,
    h('dl', {},
      h('dt', {}, 'Site'), h('dd', {}, r.frameOrigin ? `${r.frameOrigin}, framed by ${r.origin}` : r.origin),
      h('dt', {}, 'Tool'), h('dd', {}, h('span', { class: 'tool-name' }, r.tool), r.title ? ` — ${r.title}` : ''),
      r.description ? h('dt', {}, 'What it does') : null, r.description ? h('dd', {}, r.description, ' (as the page says)') : null,
      h('dt', {}, 'Agent'), h('dd', {}, r.agent),
      h('dt', {}, 'Tab'), h('dd', {}, r.tabTitle || 'a tab without a title')),
    h('h2', {}, 'Arguments'),
    args,
    r.args.folded ? h('p', { class: 'wm-muted' }, 'Long values are folded; the page gets them whole.') : null,
    h('div', { class: 'buttons', role: 'group', 'aria-label': `Your answer to ${r.agent}` }, allow, deny, always),
    h('p', { class: 'deadline' }, r.deadline
      ? `If you do not answer, the call is declined at ${timeOfDay(r.deadline)}, when the agent stops waiting.`
      : 'The call waits until you answer, or until the agent cancels it.'),
    h('p', { class: 'wm-status', role: 'status', id: 'answer-status' }));
  renderQueue(requests);
  deny.focus(); // Enter on a fresh window must not allow by accident
}

// An agent asks to open a page of a site the user has not allowed.
function renderOpen(r) {
  document.title = `${r.agent} wants to open ${r.origin} — WebMCP bridge`;
  const once = h('button', { type: 'button' }, 'Allow once');
  const add = h('button', { type: 'button', class: 'wm-primary' }, 'Allow and add this site');
  const deny = h('button', { type: 'button' }, 'Deny');
  once.addEventListener('click', arming.guard(() => answer(r.id, 'once')));
  add.addEventListener('click', arming.guard(() => addSite(r)));
  deny.addEventListener('click', arming.guard(() => answer(r.id, 'deny')));
  show(
    h('p', { id: 'summary' }, h('strong', {}, r.agent), ' wants to open ', h('strong', {}, r.origin), '.'),
    h('dl', {},
      h('dt', {}, 'Page'), h('dd', {}, r.url, r.from ? ` (the agent opened ${r.from}, which led here)` : ''),
      h('dt', {}, 'Agent'), h('dd', {}, r.agent)),
    h('p', { class: 'wm-muted' }, 'Allow once opens the page in a new tab; its tools stay hidden from agents. ' +
      'Allow and add this site also lets local agents use the site (you can turn it off in the panel).'),
    h('div', { class: 'buttons', role: 'group', 'aria-label': `Your answer to ${r.agent}` }, once, add, deny),
    h('p', { class: 'wm-status', role: 'status', id: 'answer-status' }));
  deny.focus(); // Enter on a fresh window must not allow by accident
}

function renderQueue(requests) {
  const rest = requests.slice(1);
  queue.hidden = rest.length === 0;
  queueList.replaceChildren(...rest.map((r) => h('li', {}, r.kind === 'open' ? `${r.agent}: open ${r.origin}` : `${r.agent}: ${r.tool} on ${r.frameOrigin || r.origin}`)));
  document.getElementById('queue-h').textContent = `Also waiting (${rest.length})`;
}

// Allow and add: the browser's own prompt for the site first (only a
// click may ask), then the answer; declined there, the question stays.
async function addSite(r) {
  if (answering) return;
  try {
    await requestSite(r.origin);
  } catch (e) {
    const status = document.getElementById('answer-status');
    if (status) status.textContent = `${e.message}. Answer again.`;
    return;
  }
  await answer(r.id, 'add');
}

async function answer(id, how) {
  if (answering) return;
  answering = true;
  for (const b of requestBox.querySelectorAll('button')) b.disabled = true;
  try {
    await send('consent.answer', { id, answer: how });
  } catch (e) {
    const status = document.getElementById('answer-status');
    if (status) status.textContent = `Your answer did not arrive: ${e.message}`;
  } finally {
    answering = false;
    shown = null;
    await refresh();
  }
}

async function refresh() {
  try {
    render((await send('consent.list')).requests);
  } catch (e) {
    requestBox.replaceChildren(h('p', { class: 'wm-error', role: 'alert' }, `Could not ask the extension: ${e.message}. Close this window; the call is then declined.`));
  }
}

injectStyle(document);
watch(document.body, undefined, (topic) => {
  if ((topic === 'consent' || topic === 'reconnected') && !answering) refresh();
});
refresh();
