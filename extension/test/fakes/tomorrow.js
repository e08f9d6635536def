// A stand-in for tomorrow's browser's own document.modelContext (the
// WebMCP changes Chrome announced after 156): getTools() returns Tool
// interface objects whose fields are prototype getters (JSON.stringify,
// spread and structuredClone copy nothing of them), "source" instead of
// "window", null for a missing inputSchema, outputSchema or annotations;
// executeTool(tool, input, {signal}) resolves to the JSON text of what
// execute returned, or to null when the call navigated the page (a
// declarative form's submission: a tool declared with navigates: true),
// and rejects with a generic UnknownError when execute failed.

/** A Tool interface object: read-only getters over private fields. */
export class Tool {
  #d;
  constructor(d) {
    this.#d = d;
  }
  get name() { return this.#d.name; }
  get title() { return this.#d.title ?? ''; }
  get description() { return this.#d.description; }
  get inputSchema() { return this.#d.inputSchema ?? null; }
  get outputSchema() { return this.#d.outputSchema ?? null; }
  get annotations() { return this.#d.annotations ?? null; }
  get origin() { return this.#d.origin; }
  get source() { return this.#d.source; }
}

/**
 * A browser-like ModelContext class for win; declare(tool) adds a tool the
 * browser itself declared (a <form toolname>), not registered by script.
 * An instance's clientExtras, when set, go into the client that
 * executeTool hands execute beside the signal (a browser whose client has
 * more than Chromium 156's).
 */
export function tomorrowModelContext(win) {
  class ModelContext extends EventTarget {
    #tools = new Map();
    registerTool(tool, options) {
      const name = String(tool.name);
      if (this.#tools.has(name)) return Promise.reject(new DOMException('Duplicate tool name', 'InvalidStateError'));
      const d = {
        name, title: tool.title, description: String(tool.description), inputSchema: tool.inputSchema,
        outputSchema: tool.outputSchema, annotations: tool.annotations, origin: 'http://localhost:1', source: win,
        execute: tool.execute,
      };
      this.#tools.set(name, d);
      const signal = options && options.signal;
      if (signal) signal.addEventListener('abort', () => {
        this.#tools.delete(name);
        this.dispatchEvent(new Event('toolchange'));
      }, { once: true });
      this.dispatchEvent(new Event('toolchange'));
      return Promise.resolve();
    }
    declare(d) {
      this.#tools.set(d.name, { origin: 'http://localhost:1', source: win, ...d });
      this.dispatchEvent(new Event('toolchange'));
    }
    getTools() {
      return Promise.resolve([...this.#tools.values()].map((d) => new Tool(d)));
    }
    async executeTool(tool, input, options) {
      const d = this.#tools.get(tool.name);
      if (!d) throw new DOMException('No such tool', 'UnknownError');
      if (d.navigates) return null;
      const signal = options && options.signal;
      let v;
      try {
        v = await d.execute(input, { signal, ...this.clientExtras });
      } catch {
        // As Chromium: the page's own error stays in the page.
        throw new DOMException('Tool was executed but the invocation failed. For example, the script function threw an error', 'UnknownError');
      }
      return typeof v === 'string' ? v : JSON.stringify(v);
    }
  }
  return ModelContext;
}
