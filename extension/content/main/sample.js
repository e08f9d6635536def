// One sample of the context providers: each provider's getContext, in
// registration order, each time-boxed, none keeping the others from being
// sampled.

import { apply, clearTimer, isObject, jsonStringify, resolved, then, timeout } from '../source/builtins.js';
import { errorText } from '../source/toolcopy.js';

/** How long (ms) a getContext that returns a promise may take. */
export const PROVIDER_TIMEOUT = 50;

function leftOut(rec, note) {
  const s = { id: rec.id };
  if (rec.description) s.description = rec.description;
  s.note = note;
  return s;
}

// What one provider returned, for the relay: null for undefined (nothing
// to say), else {id, description?, summary, json?} or a note.
function takeSnapshot(rec, v) {
  if (v === undefined || v === null) return null;
  if (!isObject(v)) return leftOut(rec, `returned ${typeof v}, not {summary, data} or undefined`);
  let summary;
  let data;
  try {
    summary = v.summary;
    data = v.data;
  } catch (e) {
    return leftOut(rec, 'threw: ' + errorText(e));
  }
  const s = { id: rec.id };
  if (rec.description) s.description = rec.description;
  s.summary = summary === undefined || summary === null ? '' : String(summary);
  if (data !== undefined) {
    let json;
    try {
      json = jsonStringify(data);
    } catch (e) {
      return leftOut(rec, 'data is not JSON: ' + errorText(e));
    }
    if (json !== undefined) s.json = json;
  }
  return s;
}

/**
 * Samples every provider of list ({id, description, getContext, self}), in
 * order, and calls done with their snapshots
 * ([{id, description?, summary?, json?, note?}]; one that returned undefined
 * is absent). A getContext that throws is left out with a note; one that
 * returns a promise gets PROVIDER_TIMEOUT ms, all of them together. done is
 * called at once when no provider returned a promise.
 *
 * @param {object[]} list
 * @param {(providers: object[]) => void} done
 * @param {{setTimer?: typeof setTimeout, clearTimer?: typeof clearTimeout}} [timers]
 */
export function sampleProviders(list, done, { setTimer = timeout, clearTimer: clear = clearTimer } = {}) {
  const out = [];
  let waiting = 0;
  let finished = false;
  let timer = 0;
  const finish = () => {
    if (finished) return;
    finished = true;
    if (timer) clear(timer);
    done(out.filter((s) => s !== null));
  };
  for (let i = 0; i < list.length; i++) {
    const rec = list[i];
    let v;
    try {
      v = apply(rec.getContext, rec.self, []);
    } catch (e) {
      out[i] = leftOut(rec, 'threw: ' + errorText(e));
      continue;
    }
    let thenable = false;
    try {
      thenable = isObject(v) && typeof v.then === 'function';
    } catch (e) {
      out[i] = leftOut(rec, 'threw: ' + errorText(e));
      continue;
    }
    if (!thenable) {
      out[i] = takeSnapshot(rec, v);
      continue;
    }
    waiting++;
    out[i] = leftOut(rec, `timed out after ${PROVIDER_TIMEOUT} ms`);
    const settle = (s) => {
      if (finished) return;
      out[i] = s;
      if (--waiting === 0) finish();
    };
    then(resolved(v), (value) => settle(takeSnapshot(rec, value)), (e) => settle(leftOut(rec, 'threw: ' + errorText(e))));
  }
  if (waiting === 0) finish();
  else timer = setTimer(finish, PROVIDER_TIMEOUT);
}
