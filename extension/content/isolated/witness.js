// What the page's world saw of the browser's own document.modelContext
// (content/main/witness.js), as the isolated world's native path
// (native.js) reads it: the hints and outputSchema that the page gave
// registerTool, and the page's own errors of the calls under way.

/** The most errors kept per tool, waiting for their calls' rejections. */
const MAX_ERRORS = 64;

/**
 * @returns {{hear(msg: object): void, registered(name: string): ({hints?: object, outputSchema?: object}|undefined),
 *   calling(name: string, n: number): void, takeError(name: string): (Error|undefined)}}
 */
export function createWitness() {
  const seen = new Map(); // name -> {hints, outputSchema}
  const calls = new Map(); // name -> calls under way from here
  const errors = new Map(); // name -> [message], oldest first

  return {
    /** A message of the page's world's witness (untrusted in shape: the page's world can be wrong). */
    hear(m) {
      if (!m || typeof m !== 'object' || typeof m.name !== 'string') return;
      if (m.witness === 'registered') {
        const info = {};
        if (m.hints && typeof m.hints === 'object') info.hints = m.hints;
        if (m.outputSchema && typeof m.outputSchema === 'object') info.outputSchema = m.outputSchema;
        seen.set(m.name, info);
      } else if (m.witness === 'unregistered') {
        seen.delete(m.name);
      } else if (m.witness === 'error' && calls.get(m.name) > 0) {
        // Only while a call of ours runs: another agent's (CDP's, the
        // page's own executeTool) failure is not ours to report.
        const q = errors.get(m.name) || [];
        if (q.length < MAX_ERRORS) q.push(String(m.message ?? ''));
        errors.set(m.name, q);
      }
    },
    registered: (name) => seen.get(name),
    /** n = 1 as a call of name starts, -1 as it ends. */
    calling(name, n) {
      const c = (calls.get(name) || 0) + n;
      if (c > 0) calls.set(name, c);
      else {
        calls.delete(name);
        errors.delete(name);
      }
    },
    /** The page's error of the oldest failed call of name, as an Error, if the witness saw one. */
    takeError(name) {
      const q = errors.get(name);
      if (!q || !q.length) return undefined;
      const message = q.shift();
      return new Error(message === '' ? 'the tool failed' : message);
    },
  };
}
