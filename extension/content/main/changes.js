// Change notices from the units that hold tools and providers (the polyfill,
// the wrapper of the browser's own modelContext, the page's own objects, the
// context providers) to the bridge, which is wired up after them: each is
// coalesced to one per microtask checkpoint, so a burst of registrations is
// reported once.

/**
 * @param {(fn: () => void) => void} defer  queues a microtask
 * @returns {{changed(): void, providersChanged(): void, contextChanged(): void,
 *   listen(on: {changed(): void, providersChanged(): void, contextChanged(): void}): void}}
 */
export function createChanges(defer) {
  let on = null;
  const queued = new Set();
  const notice = (kind) => () => {
    if (queued.has(kind)) return;
    queued.add(kind);
    defer(() => {
      queued.delete(kind);
      if (on) on[kind]();
    });
  };
  return {
    // The tools changed: report them again.
    changed: notice('changed'),
    // The set of context providers changed: report it again.
    providersChanged: notice('providersChanged'),
    // The page says what its providers would return has changed.
    contextChanged: notice('contextChanged'),
    // Says who hears the notices; once.
    listen(listener) {
      if (on) throw new Error('changes: a listener is set already');
      on = listener;
    },
  };
}
