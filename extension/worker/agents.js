// Who is connected: the shims that the host says are connected to it (its
// "sessions" message), and the agents each serves — one per MCP session,
// the MCP client's name and version from initialize, with the shim's id
// for it ("a1"): one for a shim on stdio, any number for a shim serving
// HTTP. The panel lists every agent; consent, the activity log and
// open_page's tabs name and tell apart the agent behind a call by its id's
// session prefix ("s3.17" is s3's) and the call's "agent" field.

/**
 * One connected agent, as the UI shows it.
 * @typedef {{session: string, agent: string, name: string, version: string, pid: number, command: boolean}} Agent
 *   agent: the shim's id for the agent ("a1"), "" for a shim that serves
 *   none (yet). name and version: the agent's ("claude-code", "2.1.0"),
 *   or the shim's own name for a shim that serves none (command true:
 *   `webmcp-shim call` and the like, or a shim before its first agent).
 */

/** At most this many agents are taken from one shim. */
export const MAX_AGENTS_PER_SHIM = 64;
/** The agents of this many recent calls are remembered. */
const MAX_CALLS = 4096;

export class Agents {
  /**
   * @param {object} o
   * @param {() => void} [o.changed] runs after the list changed
   */
  constructor({ changed = () => {} } = {}) {
    this.changed = changed;
    /** @type {Map<string, Agent>} by `${session}/${agent}` */
    this.byKey = new Map();
    /** @type {Map<string, Agent>} each shim, as a shim that serves no agent */
    this.shims = new Map();
    /** call or request id -> the agent id it carried, for the latest MAX_CALLS */
    this.callAgents = new Map();
  }

  /** Replaces the list with a host's sessions message's list. */
  apply(sessions) {
    const next = new Map();
    const shims = new Map();
    for (const s of Array.isArray(sessions) ? sessions : []) {
      if (!s || typeof s.session !== 'string' || s.session === '') continue;
      const client = s.client && typeof s.client === 'object' ? s.client : {};
      const shim = {
        session: s.session,
        agent: '',
        name: String(client.name || 'an agent').slice(0, 100),
        version: '',
        pid: Number.isSafeInteger(client.pid) ? client.pid : 0,
        command: true,
      };
      shims.set(s.session, shim);
      const agents = (Array.isArray(client.agents) ? client.agents : [])
        .filter((a) => a && typeof a === 'object' && typeof a.id === 'string' && a.id !== '')
        .slice(0, MAX_AGENTS_PER_SHIM);
      if (agents.length === 0) {
        next.set(`${s.session}/`, shim);
        continue;
      }
      for (const a of agents) {
        const id = a.id.slice(0, 64);
        next.set(`${s.session}/${id}`, {
          session: s.session,
          agent: id,
          name: String(a.name || 'an agent').slice(0, 100),
          version: String(a.version || '').slice(0, 50),
          pid: shim.pid,
          command: false,
        });
      }
    }
    const same = next.size === this.byKey.size
      && [...next].every(([k, v]) => JSON.stringify(v) === JSON.stringify(this.byKey.get(k)));
    this.byKey = next;
    this.shims = shims;
    if (!same) this.changed();
  }

  /** Forgets every shim: the host link is gone (a new host lists its own). */
  clear() {
    this.callAgents.clear();
    this.apply([]);
  }

  /** Remembers which agent the call or request id (from the host) is for. */
  noteCall(id, agent) {
    if (typeof id !== 'string' || typeof agent !== 'string' || agent === '') return;
    this.callAgents.set(id, agent);
    if (this.callAgents.size > MAX_CALLS) this.callAgents.delete(this.callAgents.keys().next().value);
  }

  /** The connected agents, in session order. @returns {Agent[]} */
  list() {
    return [...this.byKey.values()];
  }

  /**
   * The agent that sent the call or request with this id, if its shim is
   * still connected: the agent the call named, else its shim as one that
   * serves no agent.
   */
  forCall(id) {
    if (typeof id !== 'string') return undefined;
    const dot = id.indexOf('.');
    if (dot <= 0) return undefined;
    const session = id.slice(0, dot);
    const agent = this.callAgents.get(id) || '';
    return this.byKey.get(`${session}/${agent}`) || this.shims.get(session);
  }

  /** How the UI names the agent behind a call: "claude-code 2.1.0", or "an agent". */
  nameFor(id) {
    const a = this.forCall(id);
    if (!a) return 'an agent';
    return a.version ? `${a.name} ${a.version}` : a.name;
  }
}
