// Who is connected: the shims that the host says are connected to it (its
// "sessions" message), each with the agent it serves — the MCP client's
// name and version from initialize — once the shim knows it. The panel
// shows them; consent and the activity log name the agent behind a call by
// the session prefix of its id ("s3.17" is s3's).

/**
 * One connected shim, as the UI shows it.
 * @typedef {{session: string, name: string, version: string, pid: number, command: boolean}} Agent
 *   name and version: the agent's ("claude-code", "2.1.0"), or the shim's
 *   own name for a command-line shim (command true: `webmcp-shim call` and
 *   the like, which serve no agent).
 */

export class Agents {
  /**
   * @param {object} o
   * @param {() => void} [o.changed] runs after the list changed
   */
  constructor({ changed = () => {} } = {}) {
    this.changed = changed;
    /** @type {Map<string, Agent>} by session id */
    this.bySession = new Map();
  }

  /** Replaces the list with a host's sessions message's list. */
  apply(sessions) {
    const next = new Map();
    for (const s of Array.isArray(sessions) ? sessions : []) {
      if (!s || typeof s.session !== 'string' || s.session === '') continue;
      const client = s.client && typeof s.client === 'object' ? s.client : {};
      const agent = client.agent && typeof client.agent === 'object' ? client.agent : null;
      next.set(s.session, {
        session: s.session,
        name: String((agent ? agent.name : client.name) || 'an agent').slice(0, 100),
        version: String((agent && agent.version) || '').slice(0, 50),
        pid: Number.isSafeInteger(client.pid) ? client.pid : 0,
        command: !agent,
      });
    }
    const same = next.size === this.bySession.size
      && [...next].every(([k, v]) => JSON.stringify(v) === JSON.stringify(this.bySession.get(k)));
    this.bySession = next;
    if (!same) this.changed();
  }

  /** Forgets every shim: the host link is gone (a new host lists its own). */
  clear() {
    this.apply([]);
  }

  /** The connected shims, in session order. @returns {Agent[]} */
  list() {
    return [...this.bySession.values()];
  }

  /** The shim that sent the call or request with this id, if it is still connected. */
  forCall(id) {
    if (typeof id !== 'string') return undefined;
    const dot = id.indexOf('.');
    return dot > 0 ? this.bySession.get(id.slice(0, dot)) : undefined;
  }

  /** How the UI names the agent behind a call: "claude-code 2.1.0", or "an agent". */
  nameFor(id) {
    const a = this.forCall(id);
    if (!a) return 'an agent';
    return a.version ? `${a.name} ${a.version}` : a.name;
  }
}
