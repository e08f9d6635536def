// The consent window's buttons arm a moment after each new call is drawn
// and after each focus of the window (ui/arming.js), on a fake clock.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ARM_DELAY, Arming } from '../ui/arming.js';
import { FakeClock } from './fakes/clock.js';

test('a click before the buttons armed does nothing; after the delay it answers', async () => {
  const clock = new FakeClock();
  const changes = [];
  const arming = new Arming({ clock, onChange: (armed) => changes.push(armed) });
  const answers = [];
  const allow = arming.guard(() => answers.push('allow'));

  arming.disarm(); // call A is drawn
  allow();
  assert.deepEqual(answers, [], 'a click in the same moment the call was drawn');
  await clock.advance(ARM_DELAY - 1);
  allow();
  assert.deepEqual(answers, [], 'a click just before the delay');
  await clock.advance(1);
  allow();
  assert.deepEqual(answers, ['allow']);

  // Call A ended; call B is drawn in the same place: the next click, meant for A, does nothing.
  arming.disarm();
  allow();
  assert.deepEqual(answers, ['allow']);
  // The window takes the focus meanwhile: the delay starts over.
  await clock.advance(ARM_DELAY - 100);
  arming.disarm();
  await clock.advance(ARM_DELAY - 1);
  allow();
  assert.deepEqual(answers, ['allow']);
  await clock.advance(1);
  allow();
  assert.deepEqual(answers, ['allow', 'allow']);
  assert.deepEqual(changes, [true, false, true]);
});

test('buttons start unarmed', () => {
  const arming = new Arming({ clock: new FakeClock() });
  let ran = false;
  arming.guard(() => {
    ran = true;
  })();
  assert.equal(ran, false);
});

test('the buttons arm after the documented 0.5 s, a literal here (not ARM_DELAY)', async () => {
  assert.equal(ARM_DELAY, 500);
  const clock = new FakeClock();
  const arming = new Arming({ clock, onChange: () => {} });
  const answers = [];
  const allow = arming.guard(() => answers.push('allow'));
  arming.disarm();
  await clock.advance(499);
  allow();
  assert.deepEqual(answers, []);
  await clock.advance(1);
  allow();
  assert.deepEqual(answers, ['allow']);
});
