// The panel's first section, "Agents": whether the extension is connected
// to webmcp-host, and every agent connected right now, one line each, as
// the worker lists them (worker/agents.js: one per MCP session), by the
// MCP client's name and version; shims that serve no agent are counted.

import { h, fill } from './dom.js';

/**
 * What the panel says while the extension is not connected to webmcp-host.
 * The extension connects by itself a few seconds after the host's manifest
 * is written: no restart is needed. A browser started with its own
 * --user-data-dir looks for the manifest in that folder.
 */
export const NOT_CONNECTED = 'Not connected to webmcp-host. Run ./install.sh (see the README); a browser started with '
  + '--user-data-dir DIR needs ./install.sh --user-data-dir DIR. The extension connects by itself within seconds; '
  + 'webmcp-shim doctor names what is missing.';

/**
 * The project's README, where the panel says "see the README": the
 * project's home as the release names it (release/bundle.go).
 */
export const README_URL = 'https://github.com/webmcp-bridge/bridge#readme';

/** text with its "the README" as a link to README_URL (a new tab). */
function withReadme(text) {
  const [before, ...after] = text.split('the README');
  if (!after.length) return text;
  return [before, h('a', { href: README_URL, target: '_blank', rel: 'noopener' }, 'the README'), after.join('the README')];
}

/** One agent's line: "claude-code 2.1.0". */
export function agentLine(a) {
  return h('strong', {}, a.version ? `${a.name} ${a.version}` : a.name);
}

/** Renders the section's body into el from the panel state (its first line sits beside the heading). */
export function renderConnection(el, state) {
  const { host } = state;
  const all = state.agents || [];
  if (!host.connected) {
    fill(el, h('p', { class: 'warn', id: 'host-status' }, withReadme(NOT_CONNECTED)));
    return;
  }
  // Every agent the worker lists, in its order, one line each; shims that
  // serve no agent (webmcp-shim status, call…, or an --http shim no agent
  // has reached yet) are counted apart.
  const agents = all.filter((a) => !a.command);
  const idle = all.length - agents.length;
  fill(el,
    h('p', { class: 'ok status-line', id: 'host-status' }, 'Connected to webmcp-host'),
    agents.length > 0
      ? h('ul', { class: 'agents', 'aria-labelledby': 'connection-h' },
        agents.map((a) => h('li', { 'data-session': a.session, 'data-agent': a.agent, title: a.pid ? `webmcp-shim process ${a.pid}` : undefined }, agentLine(a))))
      : h('p', { id: 'agents-status' }, 'No agent is connected right now. ',
        h('span', { class: 'muted small' }, withReadme('Connect one with: webmcp-shim register CLIENT --write (see the README).'))),
    idle > 0 && h('p', { class: 'muted small' },
      `${idle === 1 ? 'One shim serves' : `${idle} shims serve`} no agent (a command such as webmcp-shim status, or an --http shim no agent has reached yet).`));
}
