// This document's tools as the bridge lists them: its registered ones and
// then its forms' (a registered tool wins a name), each with its metadata,
// its schemas within the bridge's bounds (lib/schema.js), and a way to run
// it (its answer read as the browser reads it); none where the permissions policy "tools" disallows them.

import { schemaForReport } from '../../../lib/schema.js';
import { then } from '../../source/builtins.js';
import { parseResultString } from '../../source/toolcopy.js';

/**
 * The list() of definePolyfill: name -> {meta, run(input, signal)}.
 * @param {object} o
 * @param {WeakMap<object, {tools: Map<string, object>}>} o.internals  each ModelContext's registry
 * @param {() => object} o.instance  the document's own ModelContext
 * @param {object | null} o.forms  its declarative tools (forms.js), or null
 * @param {() => {allowed: boolean}} o.policy  its permissions policy "tools" (policy.js), as it is now
 * @param {(mc: object, rec: object, input: object, signal?: AbortSignal) => Promise<unknown>} o.invoke  runs a tool (calls.js)
 * @param {(name: string, input: object, signal: AbortSignal | undefined, nullOnNavigation: boolean) => Promise<unknown>} o.runForm
 *   runs a form tool (calls.js)
 */
export function bridgeList({ internals, instance, forms, policy, invoke, runForm }) {
  // This document's tools: name -> {meta, run(input, signal)}.
  function list() {
    const out = new Map();
    if (!policy().allowed) return out;
    for (const rec of internals.get(instance()).tools.values()) {
      const meta = { name: rec.name };
      // The tool's title, else the one in its annotations (copyTitle).
      const title = rec.title || rec.annotationsTitle;
      if (title) meta.title = title;
      meta.description = rec.description;
      // The schemas are checked against the bridge's bounds once, when
      // first reported.
      if (!rec.reported) {
        rec.reported = {
          inputSchema: rec.inputSchema && schemaForReport(rec.inputSchema),
          outputSchema: rec.outputSchema && schemaForReport(rec.outputSchema),
        };
      }
      if (rec.reported.inputSchema) meta.inputSchema = rec.reported.inputSchema;
      if (rec.reported.outputSchema) meta.outputSchema = rec.reported.outputSchema;
      if (rec.hints) meta.annotations = rec.hints;
      // A tool's answer as the browser's own agent reads it: JSON text is
      // its value (CDP's WebMCP.invokeTool gives {"a":1} for the text
      // '{"a":1}', and native mode reads executeTool's text so), other
      // text a string.
      out.set(rec.name, { meta, run: (input, signal) => then(invoke(instance(), rec, input, signal), parseResultString) });
    }
    if (forms) {
      for (const t of forms.list().values()) {
        if (out.has(t.name)) continue; // a registered tool of the same name wins
        if (!t.reported) t.reported = schemaForReport(t.inputSchema);
        const meta = { name: t.name, description: t.description, inputSchema: t.reported };
        out.set(t.name, { meta, run: (input, signal) => runForm(t.name, input, signal, false) });
      }
    }
    return out;
  }

  return list;
}
