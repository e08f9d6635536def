// The panel's Connection section: whether the native host is connected, and
// which agents (the MCP clients behind the connected shims) are connected
// right now.

import { h, fill } from './dom.js';

/** Renders the section's body into el from the panel state. */
export function renderConnection(el, state) {
  const { host, agents } = state;
  const people = (agents || []).filter((a) => !a.command);
  const commands = (agents || []).filter((a) => a.command);
  fill(el,
    h('p', { class: host.connected ? 'ok' : 'warn', id: 'host-status' },
      host.connected
        ? 'Connected to webmcp-host.'
        : 'Not connected to webmcp-host. Install it with install.sh (see the README) and restart the browser; webmcp-shim doctor names what is missing.'),
    host.connected && h('p', { id: 'agents-status' },
      people.length === 0
        ? 'No agent is connected right now.'
        : `${people.length === 1 ? 'One agent is' : `${people.length} agents are`} connected:`),
    people.length > 0 && h('ul', { class: 'agents', 'aria-labelledby': 'agents-status' },
      people.map((a) => h('li', {}, h('strong', {}, a.version ? `${a.name} ${a.version}` : a.name), a.pid ? ` (process ${a.pid})` : ''))),
    commands.length > 0 && h('p', { class: 'muted' },
      `${commands.length === 1 ? 'One command-line shim is' : `${commands.length} command-line shims are`} connected too (webmcp-shim status, call, context…).`),
  );
}
