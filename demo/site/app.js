// A small trace viewer that offers its functions to agents through WebMCP:
// the browser's own document.modelContext, or the bridge extension's polyfill
// (installed before any page script runs). It also tells agents what the user
// is looking at, through the bridge's context providers
// (document.modelContext.registerContextProvider, which the extension adds):
//   trace.Timeline#selection  the selected slice (nothing when none is)
//   trace.Timeline#viewport   the visible time range
//
// Test hooks (kept stable for the end-to-end tests):
//   DOM     #timeline, .slice[data-id="N"], .slice.selected, #details, #status, #mode,
//           #viewport-controls button[data-action="zoom-in"|"zoom-out"|"pan-left"|"pan-right"|"reset"],
//           #viewport (the visible range as text), #filter (a search box)
//   window  demo.ready (Promise, resolves once every tool and context provider is registered),
//           demo.registerExtra(name), demo.unregisterExtra(name), demo.select(id),
//           demo.calls (tool name -> how many times the page ran it),
//           demo.slices, demo.mode ("native", "polyfill" or "none");
//           demo.setViewport(start, end), demo.viewport ({start, end} in ms),
//           demo.providers (ids of the context providers the demo registered),
//           demo.registerBrokenProvider() (test.Broken: getContext throws "provider exploded"),
//           demo.registerSlowProvider() (test.Slow: getContext's promise never settles),
//           demo.unregisterProvider(id) (aborts a provider the demo registered; true if it had one);
//           __lastAbort = {tool: "slow_task", reason}
//   ?frame=URL embeds an iframe (#frames iframe) of URL.
'use strict';

(function () {
  // ---- the trace -----------------------------------------------------------
  // Times are milliseconds from the start of the trace.
  const TRACKS = ['CrBrowserMain', 'CrRendererMain', 'Compositor', 'ThreadPoolWorker', 'VizCompositor'];
  const RAW = [
    // [name, track, ts, dur, depth]
    ['NavigationRequest', 'CrBrowserMain', 0, 42, 0],
    ['URLLoader::Start', 'CrBrowserMain', 2, 18, 1],
    ['CommitNavigation', 'CrBrowserMain', 44, 6, 0],
    ['BrowserMain::RunTask', 'CrBrowserMain', 120, 14, 0],
    ['UpdateWebContentsVisibility', 'CrBrowserMain', 182, 5, 0],
    ['ParseHTML', 'CrRendererMain', 52, 30, 0],
    ['EvaluateScript', 'CrRendererMain', 58, 12, 1],
    ['v8.compile', 'CrRendererMain', 58, 3, 2],
    ['v8.run', 'CrRendererMain', 61, 9, 2],
    ['RecalculateStyles', 'CrRendererMain', 84, 8, 0],
    ['Layout', 'CrRendererMain', 93, 16, 0],
    ['UpdateLayoutTree', 'CrRendererMain', 94, 5, 1],
    ['Paint', 'CrRendererMain', 110, 7, 0],
    ['FunctionCall', 'CrRendererMain', 140, 38, 0],
    ['TimerFire', 'CrRendererMain', 141, 35, 1],
    ['v8.run', 'CrRendererMain', 142, 31, 2],
    ['GC (minor)', 'CrRendererMain', 160, 4, 3],
    ['Layout', 'CrRendererMain', 180, 11, 0],
    ['Paint', 'CrRendererMain', 192, 5, 0],
    ['Commit', 'Compositor', 118, 4, 0],
    ['ProxyImpl::ScheduledActionDraw', 'Compositor', 124, 6, 0],
    ['Commit', 'Compositor', 198, 4, 0],
    ['ProxyImpl::ScheduledActionDraw', 'Compositor', 203, 5, 0],
    ['DecodeImage', 'ThreadPoolWorker', 70, 22, 0],
    ['ImageDecodeTask', 'ThreadPoolWorker', 72, 18, 1],
    ['RasterTask', 'ThreadPoolWorker', 126, 9, 0],
    ['RasterTask', 'ThreadPoolWorker', 205, 7, 0],
    ['v8.GC_MC_BACKGROUND_MARKING', 'ThreadPoolWorker', 150, 20, 0],
    ['Display::DrawAndSwap', 'VizCompositor', 131, 6, 0],
    ['SkiaOutputSurface::SwapBuffers', 'VizCompositor', 133, 3, 1],
    ['Display::DrawAndSwap', 'VizCompositor', 209, 6, 0],
    ['SkiaOutputSurface::SwapBuffers', 'VizCompositor', 211, 3, 1],
  ];
  const SLICES = RAW.map(([name, track, ts, dur, depth], i) => ({ id: i + 1, name, track, ts, dur, depth }));
  const END = Math.max(...SLICES.map((s) => s.ts + s.dur));
  const TRACE_END = Math.ceil(END / 20) * 20;

  let selected = null;
  // The visible time range, in ms from the start of the trace.
  const viewport = { start: 0, end: TRACE_END };
  const MIN_RANGE = 1;

  // ---- drawing -------------------------------------------------------------
  const timeline = document.getElementById('timeline');
  const ruler = document.getElementById('ruler');
  const details = document.getElementById('details');
  const status = document.getElementById('status');
  const viewportLabel = document.getElementById('viewport');
  const filter = document.getElementById('filter');

  function setStatus(text) {
    status.textContent = text;
  }

  function hue(name) {
    let h = 0;
    for (const c of name) h = (h * 31 + c.charCodeAt(0)) % 360;
    return h;
  }

  // A duration for people: "6 ms", "12.3 ms".
  function ms(v) {
    return `${Number(v.toFixed(3))} ms`;
  }

  // Where a time lies across the viewport, as a CSS percentage.
  function pct(t) {
    return ((t - viewport.start) / (viewport.end - viewport.start)) * 100 + '%';
  }

  function visibleSlices() {
    return SLICES.filter((s) => s.ts < viewport.end && s.ts + s.dur > viewport.start);
  }

  // Places the ruler's ticks and the slices for the current viewport.
  function layout() {
    const range = viewport.end - viewport.start;
    const step = [1, 2, 5, 10, 20, 50, 100].find((st) => range / st <= 12) || 100;
    ruler.replaceChildren();
    for (let t = Math.ceil(viewport.start / step) * step; t <= viewport.end; t += step) {
      const tick = document.createElement('div');
      tick.className = 'tick';
      tick.style.left = pct(t);
      tick.textContent = t + ' ms';
      ruler.append(tick);
    }
    const visible = new Set(visibleSlices().map((s) => s.id));
    for (const el of timeline.querySelectorAll('.slice')) {
      const s = SLICES[Number(el.dataset.id) - 1];
      el.hidden = !visible.has(s.id);
      el.style.left = pct(s.ts);
      el.style.width = `${(s.dur / range) * 100}%`;
    }
    viewportLabel.textContent = `${ms(viewport.start)} – ${ms(viewport.end)}`;
  }

  function applyFilter() {
    const q = filter.value.trim().toLowerCase();
    for (const el of timeline.querySelectorAll('.slice')) {
      el.classList.toggle('dim', q !== '' && !SLICES[Number(el.dataset.id) - 1].name.toLowerCase().includes(q));
    }
  }

  function draw() {
    for (const track of TRACKS) {
      const slices = SLICES.filter((s) => s.track === track);
      const depth = Math.max(0, ...slices.map((s) => s.depth)) + 1;
      const row = document.createElement('div');
      row.className = 'track';
      row.dataset.track = track;
      const label = document.createElement('div');
      label.className = 'track-name';
      label.textContent = track;
      const lane = document.createElement('div');
      lane.className = 'track-lane';
      lane.style.height = `calc(var(--track-h) * ${depth} + 4px)`;
      for (const s of slices) {
        const el = document.createElement('div');
        el.className = 'slice';
        el.dataset.id = String(s.id);
        el.setAttribute('role', 'listitem');
        el.title = `${s.name} · ${s.dur} ms`;
        el.textContent = s.name;
        el.style.top = `calc(var(--track-h) * ${s.depth} + 2px)`;
        el.style.background = `hsl(${hue(s.name)} 55% 45%)`;
        el.addEventListener('click', () => select(s.id));
        lane.append(el);
      }
      row.append(label, lane);
      timeline.append(row);
    }
    layout();
  }

  function copy(s) {
    return { id: s.id, name: s.name, track: s.track, ts: s.ts, dur: s.dur, depth: s.depth };
  }

  function showDetails() {
    details.replaceChildren();
    const h = document.createElement('h2');
    h.textContent = 'Selection';
    details.append(h);
    if (!selected) {
      const p = document.createElement('p');
      p.className = 'empty';
      p.textContent = 'Click a slice, or ask an agent to select one.';
      details.append(p);
      return;
    }
    const dl = document.createElement('dl');
    const rows = [
      ['name', selected.name],
      ['id', selected.id],
      ['track', selected.track],
      ['start', selected.ts + ' ms'],
      ['duration', selected.dur + ' ms'],
      ['end', selected.ts + selected.dur + ' ms'],
      ['depth', selected.depth],
    ];
    for (const [k, v] of rows) {
      const dt = document.createElement('dt');
      dt.textContent = k;
      const dd = document.createElement('dd');
      dd.textContent = String(v);
      dd.dataset.field = k;
      dl.append(dt, dd);
    }
    details.append(dl);
  }

  function select(id) {
    const s = SLICES.find((x) => x.id === id);
    if (!s) throw new Error(`no slice with id ${id}`);
    selected = s;
    for (const el of timeline.querySelectorAll('.slice.selected')) el.classList.remove('selected');
    const el = timeline.querySelector(`.slice[data-id="${s.id}"]`);
    if (el) el.classList.add('selected');
    showDetails();
    contextChanged('trace.Timeline#selection');
    return copy(s);
  }

  function viewportData() {
    return { start: viewport.start, end: viewport.end, unit: 'ms', visibleSlices: visibleSlices().length };
  }

  // Shows start..end (ms from the start of the trace), kept inside the trace.
  function setViewport(start, end) {
    if (typeof start !== 'number' || typeof end !== 'number' || !Number.isFinite(start) || !Number.isFinite(end)) {
      throw new Error('start and end must be numbers (milliseconds from the start of the trace)');
    }
    if (start < 0 || end > TRACE_END || end - start < MIN_RANGE) {
      throw new Error(`the viewport must lie within 0..${TRACE_END} ms and span at least ${MIN_RANGE} ms; got ${start}..${end}`);
    }
    viewport.start = start;
    viewport.end = end;
    layout();
    contextChanged('trace.Timeline#viewport');
    return viewportData();
  }

  // Zooms by factor (< 1 zooms in) around the middle, or pans by a share of
  // the range; both stay inside the trace.
  function zoom(factor) {
    const mid = (viewport.start + viewport.end) / 2;
    const range = Math.min(TRACE_END, Math.max(MIN_RANGE * 4, (viewport.end - viewport.start) * factor));
    let start = Math.max(0, mid - range / 2);
    const end = Math.min(TRACE_END, start + range);
    start = Math.max(0, end - range);
    setViewport(round(start), round(end));
  }

  function pan(share) {
    const range = viewport.end - viewport.start;
    const start = Math.min(TRACE_END - range, Math.max(0, viewport.start + range * share));
    setViewport(round(start), round(start + range));
  }

  function round(v) {
    return Math.round(v * 1000) / 1000;
  }

  function onControl(e) {
    const b = e.target.closest('button[data-action]');
    if (!b) return;
    switch (b.dataset.action) {
      case 'zoom-in': zoom(0.5); break;
      case 'zoom-out': zoom(2); break;
      case 'pan-left': pan(-0.25); break;
      case 'pan-right': pan(0.25); break;
      case 'reset': setViewport(0, TRACE_END); break;
    }
  }

  // ---- tools ---------------------------------------------------------------
  function reasonText(reason) {
    if (reason && typeof reason === 'object' && 'name' in reason) return `${reason.name}: ${reason.message}`;
    return String(reason);
  }

  function slowTask(input, client) {
    const ms = input && input.ms;
    if (!Number.isInteger(ms) || ms < 0 || ms > 600000) throw new Error('ms must be an integer from 0 to 600000');
    const signal = client && client.signal;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        clearTimeout(timer);
        window.__lastAbort = { tool: 'slow_task', reason: reasonText(signal.reason) };
        setStatus('slow_task aborted');
        reject(signal.reason instanceof Error ? signal.reason : new DOMException('slow_task was aborted', 'AbortError'));
      };
      const timer = setTimeout(() => {
        if (signal) signal.removeEventListener('abort', onAbort);
        setStatus(`slow_task done after ${ms} ms`);
        resolve({ waited: ms });
      }, ms);
      if (signal) {
        if (signal.aborted) {
          onAbort();
          return;
        }
        signal.addEventListener('abort', onAbort, { once: true });
      }
      setStatus(`slow_task running (${ms} ms)`);
    });
  }

  const TOOLS = [
    {
      name: 'find_slices',
      title: 'Find slices',
      description: 'Lists the trace slices whose name contains `name` (case-insensitive) and that last at least `minDur` milliseconds. ' +
        'Each slice has id, name, track (thread), ts (start, ms from trace start), dur (ms) and depth (nesting level).',
      inputSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'A part of the slice name, e.g. "Layout".' },
          minDur: { type: 'number', description: 'The shortest duration to list, in milliseconds.' },
        },
      },
      annotations: { readOnlyHint: true },
      execute(input) {
        const name = typeof input.name === 'string' ? input.name.toLowerCase() : '';
        const minDur = typeof input.minDur === 'number' ? input.minDur : 0;
        return SLICES.filter((s) => s.name.toLowerCase().includes(name) && s.dur >= minDur).map(copy);
      },
    },
    {
      name: 'select_slice',
      title: 'Select a slice',
      description: 'Selects the slice with this id in the timeline (the user sees it highlighted and its details) and returns it.',
      inputSchema: {
        type: 'object',
        properties: { id: { type: 'integer', description: 'The slice id, as find_slices lists it.' } },
        required: ['id'],
      },
      execute(input) {
        return select(input.id);
      },
    },
    {
      name: 'get_selection',
      title: 'Get the selection',
      description: 'Returns the slice the user selected in the timeline, or null when nothing is selected.',
      inputSchema: { type: 'object', properties: {} },
      annotations: { readOnlyHint: true },
      execute() {
        return selected ? copy(selected) : null;
      },
    },
    {
      name: 'set_viewport',
      title: 'Set the visible time range',
      description: `Shows the time range start..end of the timeline (the user sees it zoomed and panned there) and returns {start, end, unit, visibleSlices}. ` +
        `start and end are milliseconds from the start of the trace, within 0..${TRACE_END}, at least ${MIN_RANGE} ms apart.`,
      inputSchema: {
        type: 'object',
        properties: {
          start: { type: 'number', minimum: 0, maximum: TRACE_END, description: 'The first visible millisecond.' },
          end: { type: 'number', minimum: 0, maximum: TRACE_END, description: 'The last visible millisecond.' },
        },
        required: ['start', 'end'],
      },
      annotations: { idempotentHint: true },
      execute(input) {
        return setViewport(input.start, input.end);
      },
    },
    {
      name: 'slow_task',
      title: 'Slow task',
      description: 'Waits `ms` milliseconds, then returns {waited: ms}. Stops early when the call is cancelled.',
      inputSchema: {
        type: 'object',
        properties: { ms: { type: 'integer', minimum: 0, maximum: 600000, description: 'How long to wait.' } },
        required: ['ms'],
      },
      annotations: { readOnlyHint: true, idempotentHint: true },
      execute: slowTask,
    },
    {
      name: 'fail',
      title: 'Fail on purpose',
      description: 'Always throws an error ("boom from the page"); shows how page errors reach the agent.',
      inputSchema: { type: 'object', properties: {} },
      execute() {
        throw new Error('boom from the page');
      },
    },
    {
      name: 'echo',
      title: 'Echo',
      description: 'Returns `text` unchanged.',
      inputSchema: {
        type: 'object',
        properties: { text: { type: 'string' } },
        required: ['text'],
      },
      annotations: { readOnlyHint: true, idempotentHint: true },
      execute(input) {
        return input.text;
      },
    },
  ];

  const extras = new Map();
  const calls = {};

  // Counts the runs of each tool (window.demo.calls), so that tests can tell
  // whether a call reached the page at all.
  function counted(t) {
    const run = t.execute;
    return {
      ...t,
      execute(input, client) {
        calls[t.name] = (calls[t.name] || 0) + 1;
        return run.call(this, input, client);
      },
    };
  }

  function modelContext() {
    return document.modelContext || navigator.modelContext || null;
  }

  // ---- context providers -----------------------------------------------------
  // What the user is looking at, for agents (the bridge extension's API; in the
  // seeds' style: a plain-language summary and small JSON data, the units and
  // ids explained once in the description).
  const PROVIDERS = [
    {
      id: 'trace.Timeline#selection',
      description: 'The slice selected in the timeline (data.type "slice"). "ts" (start) and "dur" (duration) are in ' +
        'milliseconds; "ts" is relative to the start of the trace. "id" is accepted by the select_slice tool and is ' +
        'the id that find_slices lists; "track" is the thread the slice ran on.',
      getContext() {
        if (!selected) return undefined;
        const s = selected;
        return {
          summary: `Selected slice "${s.name}" (${ms(s.dur)} on ${s.track})`,
          data: { type: 'slice', id: s.id, name: s.name, track: s.track, ts: s.ts, dur: s.dur },
        };
      },
    },
    {
      id: 'trace.Timeline#viewport',
      description: 'The time range visible in the timeline: "start" and "end" are in milliseconds from the start of ' +
        `the trace ("unit": "ms"; the trace lasts ${TRACE_END} ms); "visibleSlices" counts the slices that overlap ` +
        'the range. The set_viewport tool takes the same start and end.',
      getContext() {
        const d = viewportData();
        return {
          summary: `Viewing ${ms(d.start)} – ${ms(d.end)} of the trace (${d.visibleSlices} slices visible)`,
          data: d,
        };
      },
    },
  ];
  const providerCtls = new Map(); // id -> AbortController of the demo's providers

  function canProvide() {
    const mc = modelContext();
    return !!mc && typeof mc.registerContextProvider === 'function';
  }

  function registerProvider(provider) {
    if (!canProvide()) return Promise.reject(new Error('no context providers here: the WebMCP bridge extension adds them'));
    const ctl = new AbortController();
    providerCtls.set(provider.id, ctl);
    return modelContext().registerContextProvider(provider, { signal: ctl.signal }).catch((e) => {
      if (providerCtls.get(provider.id) === ctl) providerCtls.delete(provider.id);
      throw e;
    });
  }

  function unregisterProvider(id) {
    const ctl = providerCtls.get(id);
    if (!ctl) return false;
    providerCtls.delete(id);
    ctl.abort();
    return true;
  }

  // Tells the bridge that a provider's answer changed (a selection or a
  // viewport set by a tool, which no user input announced).
  function contextChanged(id) {
    const mc = modelContext();
    if (mc && typeof mc.contextChanged === 'function') mc.contextChanged(id);
  }

  function registerBrokenProvider() {
    return registerProvider({
      id: 'test.Broken',
      description: 'A provider that always throws, for tests.',
      getContext() {
        throw new Error('provider exploded');
      },
    });
  }

  function registerSlowProvider() {
    return registerProvider({
      id: 'test.Slow',
      description: 'A provider that never answers, for tests.',
      getContext: () => new Promise(() => {}),
    });
  }

  // The browser's own document.modelContext is a built-in getter; the
  // bridge's polyfill defines one in script.
  function detectMode() {
    const d = Object.getOwnPropertyDescriptor(Document.prototype, 'modelContext');
    if (d && d.get && /\[native code\]/.test(Function.prototype.toString.call(d.get))) return 'native';
    return modelContext() ? 'polyfill' : 'none';
  }

  async function waitForModelContext() {
    for (const ev of ['DOMContentLoaded', 'load']) {
      if (modelContext()) break;
      if (ev === 'load' && document.readyState === 'complete') break;
      if (ev === 'DOMContentLoaded' && document.readyState !== 'loading') continue;
      await new Promise((r) => window.addEventListener(ev, r, { once: true }));
    }
    return modelContext();
  }

  async function registerAll() {
    const mc = await waitForModelContext();
    const mode = detectMode();
    document.getElementById('mode').textContent = mode;
    window.demo.mode = mode;
    if (!mc) {
      throw new Error('WebMCP is not available: install the WebMCP bridge extension, or start Chromium with --enable-features=WebMCP');
    }
    await Promise.all(TOOLS.map((t) => mc.registerTool(counted(t))));
    if (canProvide()) {
      await Promise.all(PROVIDERS.map(registerProvider));
      setStatus(`ready: ${TOOLS.length} tools, ${PROVIDERS.length} context providers`);
    } else {
      setStatus(`ready: ${TOOLS.length} tools (no context providers: the WebMCP bridge extension adds them)`);
    }
    return TOOLS.map((t) => t.name);
  }

  function registerExtra(name) {
    const mc = modelContext();
    if (!mc) return;
    const ctl = new AbortController();
    extras.set(name, ctl);
    mc.registerTool(counted({
      name,
      title: `Extra tool ${name}`,
      description: 'A tool that tests add and remove; returns its own name and the input it got.',
      inputSchema: { type: 'object' },
      execute: (input) => ({ tool: name, input }),
    }), { signal: ctl.signal }).catch((e) => {
      if (extras.get(name) === ctl) extras.delete(name);
      if (!ctl.signal.aborted) setStatus(`registerExtra(${name}) failed: ${e.message}`);
    });
  }

  function unregisterExtra(name) {
    const ctl = extras.get(name);
    if (!ctl) return;
    extras.delete(name);
    ctl.abort();
  }

  function embedFrame() {
    const url = new URLSearchParams(location.search).get('frame');
    if (!url) return;
    const f = document.createElement('iframe');
    f.src = url;
    f.title = 'embedded frame';
    // WebMCP's permissions-policy feature "tools" is granted to the page's
    // own origin only; a cross-origin frame needs it delegated.
    f.allow = 'tools';
    document.getElementById('frames').append(f);
  }

  draw();
  showDetails();
  embedFrame();
  document.getElementById('viewport-controls').addEventListener('click', onControl);
  filter.addEventListener('input', applyFilter);
  window.demo = {
    slices: SLICES.map(copy),
    select,
    registerExtra,
    unregisterExtra,
    setViewport,
    get viewport() {
      return { start: viewport.start, end: viewport.end };
    },
    get providers() {
      return [...providerCtls.keys()];
    },
    registerBrokenProvider,
    registerSlowProvider,
    unregisterProvider,
    calls,
    mode: '',
    ready: null,
  };
  window.demo.ready = registerAll();
  window.demo.ready.catch((e) => setStatus(e.message));
})();
