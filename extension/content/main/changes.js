// Change notices from the units that hold tools and providers (the polyfill,
// the wrapper of the browser's own modelContext, the page's own objects, the
// context providers) to the bridge, which is wired up after them: each is
// coalesced to one per microtask checkpoint, so a burst of registrations is
// reported once.

/**
 * @param {(fn: () => void) => void} defer  queues a microtask
 * @returns {{changed(): void, contextChanged(): void,
 *   listen(on: {changed(): void, contextChanged(): void}): void}}
 */
export function createChanges(defer) {
  let on = null;
  let changedQueued = false;
  let contextQueued = false;
  return {
    // The tools or the context providers changed: report them again.
    changed() {
      if (changedQueued) return;
      changedQueued = true;
      defer(() => {
        changedQueued = false;
        if (on) on.changed();
      });
    },
    // The page says what its providers would return has changed.
    contextChanged() {
      if (contextQueued) return;
      contextQueued = true;
      defer(() => {
        contextQueued = false;
        if (on) on.contextChanged();
      });
    },
    // Says who hears the notices; once.
    listen(listener) {
      if (on) throw new Error('changes: a listener is set already');
      on = listener;
    },
  };
}
