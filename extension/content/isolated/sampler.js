// The relay's sampling of its frame's UI context. While the worker says the
// frame's context may leave the browser ({type:"contextOn", on:true}: the
// tab's site and the frame's are allowed), the frame is sampled (its
// providers through the page's world; its ambient context, in a top frame,
// right here) after user input (click, keyup, selection and focus changes),
// when the page says its context changed, and when its providers change
// (after input, INPUT_DELAY ms later, so that the page's own handlers have
// run), at most once per SAMPLE_DELAY ms; a sample is sent only when it
// differs from the last one sent, or, while the worker asks for every
// input ({type:"contextOn", on:true, input:true}: the tab has page tools
// sampled as context, which the worker calls again after input), always.
// The worker's {type:"sample", id} is answered at once, always.

import { PageLinkType as L } from '../../lib/protocol.js';

// Samples are at least this far apart: a burst of input (typing) is a
// sample every SAMPLE_DELAY ms, not one per key.
export const SAMPLE_DELAY = 50;
// After user input, the page gets this long to update its own state
// (a framework's render) before the frame is sampled.
export const INPUT_DELAY = 20;
// How long to wait for main.js to answer a sample (it gives each provider
// 50 ms); after that the frame is sampled without its providers.
export const MAIN_TIMEOUT = 1000;
const INPUT_EVENTS = ['click', 'keyup', 'focusin', 'focusout'];

/**
 * Makes the sampler of one frame. o: window, document, clock, isTop,
 * canSample; latest (the relay's map of the latest whole-list messages,
 * where the last sample is kept too); snapshot and ambient (lib/snapshot.js,
 * ambient.js); askPage(m) posts to the page's world; send(m) to the worker.
 * Returns {setOn(on, input?), schedule(delay?), queue(id), onSampled(m)}.
 */
export function contextSampler({ window, document, clock, isTop, canSample, latest, snapshot, ambient, askPage, send }) {
  let on = false;
  let everyInput = false; // send a sample after input even when it did not change
  let sampleTimer = 0;
  let lastSampleAt = -Infinity;
  let lastContext = ''; // the JSON of the last sample sent
  let mainSeq = 0;
  const mainWaiting = new Map(); // sample id -> resolve(providers | null)
  let chain = Promise.resolve();

  function onInput() {
    schedule();
  }

  function setOn(value, input = false) {
    everyInput = value && input;
    if (value === on || !canSample) return;
    on = value;
    const method = on ? 'addEventListener' : 'removeEventListener';
    for (const type of INPUT_EVENTS) document[method](type, onInput, true);
    if (isTop) document[method]('selectionchange', onInput, true);
    if (on) {
      lastContext = '';
      lastSampleAt = clock.now();
      queue(undefined);
    } else {
      clock.clearTimeout(sampleTimer);
      sampleTimer = 0;
    }
  }

  // A sample delay ms from now (INPUT_DELAY after user input, at once
  // when the page says its context changed), and at least SAMPLE_DELAY
  // after the last one: a burst is one or two samples.
  function schedule(delay = INPUT_DELAY) {
    if (!on || sampleTimer) return;
    const wait = Math.max(delay, lastSampleAt + SAMPLE_DELAY - clock.now());
    sampleTimer = clock.setTimeout(() => {
      sampleTimer = 0;
      lastSampleAt = clock.now();
      queue(undefined);
    }, wait);
  }

  // Samples one after the other, so that they go out in order.
  function queue(id) {
    chain = chain.then(() => sample(id)).catch(() => {});
  }

  // The page's providers, as the page's world sampled them, or null when it
  // did not answer in time.
  function sampleMain() {
    const providers = latest.get(L.providers);
    if (!providers || !providers.providers.length) return Promise.resolve([]);
    const id = ++mainSeq;
    return new Promise((resolve) => {
      const t = clock.setTimeout(() => {
        mainWaiting.delete(id);
        resolve(null);
      }, MAIN_TIMEOUT);
      mainWaiting.set(id, (list) => {
        clock.clearTimeout(t);
        resolve(list);
      });
      askPage({ type: L.sample, id });
    });
  }

  function onSampled(m) {
    const done = mainWaiting.get(m.id);
    if (!done) return;
    mainWaiting.delete(m.id);
    done(Array.isArray(m.providers) ? m.providers : []);
  }

  // Samples the frame. id is the worker's sample id (the answer goes out
  // even when nothing changed), or undefined for a sample of our own.
  async function sample(id) {
    if (id === undefined && !on) return;
    const raw = await sampleMain();
    let providers = [];
    if (raw === null) {
      // main.js did not answer (it does not run in this frame, or the tab's
      // timers are throttled): keep what it said last.
      const last = latest.get(L.context);
      if (last) providers = last.providers;
    } else {
      for (const r of raw) {
        const p = snapshot.fromSample(r);
        if (p) providers.push(p);
      }
    }
    const ctx = { type: L.context, providers };
    if (isTop) {
      let a;
      try {
        a = ambient.ambientOf(document, window);
      } catch {
        a = undefined;
      }
      if (a) ctx.ambient = a;
    }
    const json = JSON.stringify(ctx);
    const changed = json !== lastContext;
    if (changed) {
      lastContext = json;
      latest.set(L.context, ctx);
    }
    if (id !== undefined) send({ ...ctx, id });
    else if (changed || everyInput) send(ctx);
  }

  return { setOn, schedule, queue, onSampled };
}
