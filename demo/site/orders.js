// The demo's orders page: WebMCP as it stands in late 2026. Three
// declarative tools (forms with toolname: add_note submits itself and
// answers through respondWith, place_order waits for the user, search_orders
// navigates), and three imperative ones: order_stats declares an
// outputSchema and returns a structured result, cancel_order is
// consequential, dump_orders is a debugging tool.
//
// The end-to-end tests (e2e/webmcp2026_test.go) read:
//   window  orders.ready (Promise: the imperative tools are registered),
//           orders.mode ("native", "polyfill" or "none"), orders.notes
//           (order -> notes), orders.placed (the orders the user placed),
//           orders.badStats (set true: order_stats returns a count that
//           does not match its outputSchema), orders.submits (the submit
//           events seen: {form, agentInvoked})
(() => {
  'use strict';

  const notes = new Map();
  const placed = [];
  const submits = [];
  const state = { badStats: false };

  function render() {
    const ul = document.getElementById('notes');
    ul.replaceChildren(...[...notes].flatMap(([order, list]) => list.map((n) => {
      const li = document.createElement('li');
      li.textContent = `#${order}: ${n.text}${n.urgent ? ' (urgent)' : ''} via ${n.channel}`;
      return li;
    })));
    document.getElementById('placed').textContent = placed.map((o) => `${o.quantity} × ${o.item}`).join(', ');
  }

  document.getElementById('note-form').addEventListener('submit', (e) => {
    submits.push({ form: 'add_note', agentInvoked: !!e.agentInvoked });
    e.preventDefault();
    const f = e.target;
    const order = Number(f.order.value);
    const note = { text: f.text.value, urgent: f.urgent.checked, channel: f.channel.value };
    const list = notes.get(order) || [];
    list.push(note);
    notes.set(order, list);
    render();
    if (e.agentInvoked) e.respondWith(Promise.resolve({ order, notes: list }));
  });
  document.getElementById('order-form').addEventListener('submit', (e) => {
    submits.push({ form: 'place_order', agentInvoked: !!e.agentInvoked });
    e.preventDefault();
    const order = { item: e.target.item.value, quantity: Number(e.target.quantity.value) };
    placed.push(order);
    render();
    // An agent's call waits until the user submits the form it filled (in
    // Chromium and in the bridge's polyfill); this answers it.
    if (e.agentInvoked) e.respondWith(Promise.resolve({ placed: order }));
  });

  const TOOLS = [
    {
      name: 'order_stats',
      title: 'Order statistics',
      description: 'How many orders have notes, and how many notes there are.',
      inputSchema: { type: 'object', properties: {} },
      outputSchema: {
        type: 'object',
        properties: { orders: { type: 'integer' }, notes: { type: 'integer' } },
        required: ['orders', 'notes'],
      },
      annotations: { readOnlyHint: true },
      execute() {
        let n = 0;
        for (const list of notes.values()) n += list.length;
        return { orders: state.badStats ? 'many' : notes.size, notes: n };
      },
    },
    {
      name: 'cancel_order',
      description: 'Cancels an order; the customer is refunded at once.',
      inputSchema: { type: 'object', properties: { order: { type: 'integer' } }, required: ['order'] },
      annotations: { consequentialHint: true },
      execute({ order }) {
        return `order ${order} cancelled`;
      },
    },
    {
      name: 'dump_orders',
      description: 'Dumps the page state, for debugging.',
      annotations: { readOnlyHint: true, debugging: true },
      execute() {
        return { notes: Object.fromEntries(notes), placed };
      },
    },
  ];

  function modelContext() {
    return document.modelContext || navigator.modelContext || null;
  }

  async function start() {
    // The browser's own document.modelContext is a built-in getter; the
    // bridge's polyfill defines one in script.
    const d = Object.getOwnPropertyDescriptor(Document.prototype, 'modelContext');
    const native = !!(d && d.get && /\[native code\]/.test(Function.prototype.toString.call(d.get)));
    const mode = native ? 'native' : modelContext() ? 'polyfill' : 'none';
    document.getElementById('mode').textContent = mode;
    window.orders.mode = mode;
    const mc = modelContext();
    if (mc) await Promise.all(TOOLS.map((t) => mc.registerTool(t)));
  }

  window.orders = {
    notes,
    placed,
    submits,
    get badStats() { return state.badStats; },
    set badStats(v) { state.badStats = !!v; },
    mode: 'none',
  };
  window.orders.ready = start();
})();
