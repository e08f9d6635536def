// Declarative WebMCP in the polyfill (content/main/polyfill/forms.js,
// formschema.js, submit.js) on a fake DOM (test/fakes/forms.js): the cases
// of the draft's declarative-api-explainer.md (webmachinelearning/webmcp),
// and what Chromium 156 does where the draft is open. The real DOM is
// covered by e2e/webmcp2026_test.go.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ACTIVE_FORM_ATTR, ACTIVE_SUBMIT_ATTR } from '../content/main/polyfill/forms.js';
import { formSchema } from '../content/main/polyfill/formschema.js';
import { definePolyfill } from '../content/main/polyfill/polyfill.js';
import { mapPseudoClasses, mapToolPseudoClasses } from '../content/main/polyfill/pseudo.js';
import { errorCode } from '../content/source/toolcopy.js';
import { drain } from './fakes/clock.js';
import { el, fakeDocument, form } from './fakes/forms.js';

function setup() {
  const doc = fakeDocument();
  let changed = 0;
  const tasks = [];
  const poly = definePolyfill({
    win: { location: { origin: 'http://localhost:1' } },
    changed: () => changed++,
    queueTask: (fn) => tasks.push(fn),
    declarative: { dom: doc.dom, start: (forms) => doc.start(forms), submitProto: doc.submitProto },
  });
  const events = [];
  poly.mc.addEventListener('toolactivated', (e) => events.push(['activated', e.toolName]));
  poly.mc.addEventListener('toolcancel', (e) => events.push(['cancel', e.toolName]));
  poly.mc.addEventListener('toolchange', () => events.push(['toolchange']));
  const flush = () => {
    while (tasks.length) tasks.shift()();
  };
  return { doc, poly, events, changed: () => changed, flush };
}

// The explainer's search-cars example.
function carsForm(extra = {}) {
  const make = el('input', { type: 'text', name: 'make', toolparamdescription: "The vehicle's make (i.e., BMW, Ford)", required: '' });
  const model = el('input', { type: 'text', name: 'model', toolparamdescription: "The vehicle's model (i.e., 330i, F-150)", required: '' });
  return form({ toolname: 'search-cars', tooldescription: 'Perform a car make/model search', ...extra }, [make, model]);
}

test('the explainer\'s search-cars form is the imperative example\'s schema', () => {
  const { dom } = fakeDocument();
  assert.deepEqual(formSchema(carsForm(), dom), {
    type: 'object',
    properties: {
      make: { type: 'string', description: "The vehicle's make (i.e., BMW, Ford)" },
      model: { type: 'string', description: "The vehicle's model (i.e., 330i, F-150)" },
    },
    required: ['make', 'model'],
  });
});

test('form schema: what Chromium 156 derives from each kind of control', () => {
  const { dom } = fakeDocument();
  const year = el('input', { type: 'number', name: 'year', min: '1990', max: '2030' });
  year.labels = ['Model year'];
  const price = el('input', { type: 'range', name: 'price', step: 'any' });
  const used = el('input', { type: 'checkbox', name: 'used' });
  const red = el('input', { type: 'radio', name: 'color', value: 'red', required: '' });
  red.labels = ['Red'];
  const blue = el('input', { type: 'radio', name: 'color', value: 'blue', toolparamdescription: 'not read' });
  const lone = el('input', { type: 'radio', name: 'lone', value: 'only' });
  lone.labels = ['Only one'];
  const fuel = el('select', { name: 'fuel', toolparamtitle: 'Fuel' }, { options: [{ value: 'gas', text: 'Gas' }, { value: 'ev', text: ' Electric ' }, { value: 'x', text: 'X', disabled: true }] });
  const extras = el('select', { name: 'extras' }, { multiple: true, options: [{ value: 'roof', text: 'Roof' }] });
  extras.labels = ['Extras'];
  const notes = el('textarea', { name: 'notes', 'aria-description': 'Free notes', maxlength: '200', minlength: '2' });
  const email = el('input', { type: 'email', name: 'email', pattern: '.+@.+' });
  const day = el('input', { type: 'date', name: 'day' });
  const start = el('input', { type: 'date', name: 'start', toolparamdescription: 'First day.' });
  const at = el('input', { type: 'time', name: 'at' });
  const atSecond = el('input', { type: 'time', name: 'at_s', step: '1' });
  const when = el('input', { type: 'datetime-local', name: 'when', step: '0.5' });
  const month = el('input', { type: 'month', name: 'month' });
  const week = el('input', { type: 'week', name: 'week' });
  const color = el('input', { type: 'color', name: 'rgb' });
  const ham = el('input', { type: 'checkbox', name: 'top', value: 'ham', required: '' });
  ham.labels = ['Ham'];
  const egg = el('input', { type: 'checkbox', name: 'top', value: 'egg' });
  const skipped = [
    el('input', { type: 'hidden', name: 'csrf' }), el('input', { type: 'file', name: 'f' }), el('input', { name: 'off', disabled: '' }),
    el('input', { type: 'text' }), el('button', { name: 'go' }), el('fieldset', { name: 'fs' }),
    // A name that controls of different kinds share.
    el('input', { name: 'twice' }), el('input', { type: 'number', name: 'twice', required: '' }),
  ];
  const f = form({ toolname: 'cars', tooldescription: 'd' }, [
    year, price, used, red, blue, lone, fuel, extras, notes, email, day, start, at, atSecond, when, month, week, color, ham, egg, ...skipped,
  ]);
  const schema = formSchema(f, dom);
  assert.deepEqual(schema, {
    type: 'object',
    properties: {
      year: { type: 'number', minimum: 1990, maximum: 2030, multipleOf: 1, description: 'Model year' },
      price: { type: 'number' },
      used: { type: 'boolean' },
      color: { type: 'string', anyOf: [{ type: 'string', const: 'red', title: 'Red' }, { type: 'string', const: 'blue' }], enum: ['red', 'blue'] },
      lone: { type: 'string', anyOf: [{ type: 'string', const: 'only', title: 'Only one' }], enum: ['only'], description: 'Only one' },
      fuel: {
        type: 'string',
        anyOf: [{ type: 'string', const: 'gas', title: 'Gas' }, { type: 'string', const: 'ev', title: ' Electric ' }, { type: 'string', const: 'x', title: 'X' }],
        enum: ['gas', 'ev', 'x'],
      },
      extras: { type: 'array', items: { type: 'string', anyOf: [{ type: 'string', const: 'roof', title: 'Roof' }], enum: ['roof'] }, uniqueItems: true, description: 'Extras' },
      notes: { type: 'string', description: 'Free notes' },
      email: { type: 'string', pattern: '.+@.+' },
      day: { type: 'string', format: 'date', description: "Dates MUST be provided in 'YYYY-MM-DD' format." },
      start: { type: 'string', format: 'date', description: "First day. (Dates MUST be provided in 'YYYY-MM-DD' format.)" },
      at: { type: 'string', format: '^([01][0-9]|2[0-3]):[0-5][0-9]$' },
      at_s: { type: 'string', format: '^([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9])?$' },
      when: { type: 'string', format: '^[0-9]{4}-(0[1-9]|1[0-2])-[0-9]{2}T([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,3})?)?$' },
      month: { type: 'string', format: '^[0-9]{4}-(0[1-9]|1[0-2])$' },
      week: { type: 'string', format: '^[0-9]{4}-W(0[1-9]|[1-4][0-9]|5[0-3])$' },
      rgb: { type: 'string', format: '^#[0-9a-zA-Z]{6}$' },
      top: { type: 'array', items: { type: 'string', anyOf: [{ type: 'string', const: 'ham', title: 'Ham' }, { type: 'string', const: 'egg' }], enum: ['ham', 'egg'] }, uniqueItems: true },
    },
    required: ['color', 'top'],
  });
  // Chromium's key order too: getTools() shows the object as it is.
  assert.deepEqual(Object.keys(schema.properties.start), ['type', 'format', 'description']);
  assert.deepEqual(Object.keys(schema.properties.extras), ['type', 'items', 'uniqueItems', 'description']);
});

test('a call fires input and change as Chromium does: once on a field it changes, none on one that holds the value; change on each checkbox and the chosen radio', async () => {
  const { doc, poly } = setup();
  const text = el('input', { name: 'text' });
  const ok = el('input', { type: 'checkbox', name: 'ok' });
  const s = el('input', { type: 'radio', name: 'size', value: 's' });
  const m = el('input', { type: 'radio', name: 'size', value: 'm' });
  const ham = el('input', { type: 'checkbox', name: 'top', value: 'ham' });
  const egg = el('input', { type: 'checkbox', name: 'top', value: 'egg' });
  const options = [{ value: 'apple' }, { value: 'orange' }, { value: 'banana' }];
  const fruits = el('select', { name: 'fruits' }, { multiple: true, options });
  const f = form({ toolname: 'fill', tooldescription: 'd', toolautosubmit: '', target: 'sink' }, [text, ok, s, m, ham, egg, fruits]);
  doc.add(f);
  const input = { text: 'a', ok: true, size: 'm', top: ['egg'], fruits: ['apple', 'banana'] };
  await poly.list().get('fill').run(input, new AbortController().signal);
  assert.deepEqual(options.map((o) => !!o.selected), [true, false, true]);
  const edited = ['input', 'change'];
  const seen = () => [text, ok, s, m, ham, egg, fruits].map((e) => e.events.join(' '));
  assert.deepEqual(seen(), ['input change', 'input change', '', 'input change', 'change', 'input change', 'input change']);
  assert.deepEqual(fruits.events, edited);
  // The same input again changes nothing: no input events; the checkboxes
  // and the chosen radio button get change again.
  await poly.list().get('fill').run(input, new AbortController().signal);
  assert.deepEqual(seen(), ['input change', 'input change change', '', 'input change change', 'change change', 'input change change', 'input change']);
  assert.deepEqual(fruits.events, edited, 'a select multiple gets its events once (the WPT select-multiple-events)');
});

test('forms are tools: listed by getTools and to the bridge, and following the DOM', async () => {
  const { doc, poly, events, flush } = setup();
  assert.equal(poly.list().size, 0);
  const f = carsForm();
  doc.add(f);
  flush();
  assert.deepEqual(events, [['toolchange']]);
  const meta = poly.list().get('search-cars').meta;
  assert.equal(meta.description, 'Perform a car make/model search');
  assert.deepEqual(meta.inputSchema.required, ['make', 'model']);
  const [listed] = await poly.mc.getTools();
  assert.equal(listed.name, 'search-cars');
  assert.deepEqual(listed.inputSchema.required, ['make', 'model']);
  // Renamed: a new tool; a form without a valid name or a description is none.
  f.attrs.toolname = 'find-cars';
  doc.changed();
  assert.deepEqual([...poly.list().keys()], ['find-cars']);
  f.attrs.toolname = 'bad name';
  doc.changed();
  assert.equal(poly.list().size, 0);
  doc.add(form({ toolname: 'nodesc' }, []));
  assert.equal(poly.list().size, 0, 'tooldescription is required');
  // The same DOM again is no change.
  flush();
  events.length = 0;
  doc.changed();
  flush();
  assert.deepEqual(events, []);
});

test('a call fills the form, submits it (toolautosubmit) with agentInvoked, and answers with respondWith', async () => {
  const { doc, poly, events } = setup();
  const f = carsForm({ toolautosubmit: '' });
  let seen;
  f.onsubmit = (e) => {
    seen = { agentInvoked: e.agentInvoked, make: f.controls[0].value, active: ACTIVE_FORM_ATTR in f.attrs, activated: events.length };
    e.preventDefault();
    e.respondWith(Promise.resolve({ results: [`${f.controls[0].value} ${f.controls[1].value}`] }));
  };
  doc.add(f);
  const out = await poly.list().get('search-cars').run({ make: 'BMW', model: '330i' }, new AbortController().signal);
  assert.deepEqual(out, { results: ['BMW 330i'] });
  assert.deepEqual(seen, { agentInvoked: true, make: 'BMW', active: true, activated: 0 });
  assert.deepEqual(f.controls[0].events, ['input', 'change']);
  assert.equal(ACTIVE_FORM_ATTR in f.attrs, false, 'the running state ends when the response settles');
  assert.equal(ACTIVE_SUBMIT_ATTR in f.button.attrs, false);
  // toolactivated comes after the submit event, before the answer (as in Chromium).
  assert.deepEqual(events.filter((e) => e[0] === 'activated'), [['activated', 'search-cars']]);
  // Through executeTool, the JSON text of the response.
  const [tool] = await poly.mc.getTools();
  assert.equal(await poly.mc.executeTool(tool, { make: 'Ford', model: 'F-150' }), '{"results":["Ford F-150"]}');
});

test('respondWith: only for an agent\'s submission, after preventDefault; the last promise is the answer', async () => {
  const { doc, poly } = setup();
  const f = carsForm({ toolautosubmit: '' });
  const errors = [];
  f.onsubmit = (e) => {
    try {
      e.respondWith(Promise.resolve(1)); // before preventDefault
    } catch (err) {
      errors.push(err.name);
    }
    e.preventDefault();
    e.respondWith(Promise.resolve('ok'));
    e.respondWith(Promise.resolve(2));
  };
  doc.add(f);
  // Called twice, the second promise is the answer (as in Chromium 156).
  assert.equal(await poly.list().get('search-cars').run({ make: 'a', model: 'b' }, new AbortController().signal), 2);
  assert.deepEqual(errors, ['InvalidStateError']);
  const userEvent = doc.userSubmit(carsForm());
  assert.equal(userEvent.agentInvoked, false);
  userEvent.preventDefault();
  assert.throws(() => userEvent.respondWith(Promise.resolve(1)), { name: 'InvalidStateError' });
});

test('a submission that navigates is the navigated error (executeTool: null); prevented without respondWith is an error', async () => {
  const { doc, poly } = setup();
  const nav = carsForm({ toolautosubmit: '' });
  doc.add(nav);
  await assert.rejects(poly.list().get('search-cars').run({ make: 'a', model: 'b' }, new AbortController().signal), (e) => errorCode(e) === 'navigated');
  const [tool] = await poly.mc.getTools();
  assert.equal(await poly.mc.executeTool(tool, { make: 'a', model: 'b' }), null);
  nav.attrs.target = 'results';
  assert.match(await poly.list().get('search-cars').run({ make: 'a', model: 'b' }, new AbortController().signal), /to "results"/);
  // The page's own executeTool resolves to null there, as Chromium's does.
  assert.equal(await poly.mc.executeTool(tool, { make: 'a', model: 'b' }), null);
  delete nav.attrs.target;
  nav.onsubmit = (e) => e.preventDefault();
  await assert.rejects(poly.list().get('search-cars').run({ make: 'a', model: 'b' }, new AbortController().signal), /without also calling respondWith/);
  nav.valid = false;
  nav.controls[0].validity = { valid: false };
  nav.controls[0].validationMessage = 'Please fill in this field.';
  await assert.rejects(poly.list().get('search-cars').run({ make: '', model: 'b' }, new AbortController().signal), /Form validation failed: make: Please fill in this field\.\. $/);
  assert.equal(ACTIVE_FORM_ATTR in nav.attrs, false);
});

test('without toolautosubmit the form is filled, marked, focused, and the call waits for the user\'s submission and its answer', async () => {
  const { doc, poly, flush } = setup();
  const f = carsForm();
  f.onsubmit = (e) => {
    e.preventDefault();
    if (e.agentInvoked) e.respondWith(Promise.resolve({ found: f.controls[1].value }));
  };
  doc.add(f);
  let settled = false;
  const p = poly.list().get('search-cars').run({ make: 'BMW', model: 'i3' }, new AbortController().signal);
  p.then(() => {
    settled = true;
  }, () => {
    settled = true;
  });
  await drain();
  assert.equal(settled, false, 'the call waits for the user');
  assert.equal(f.controls[1].value, 'i3');
  assert.equal(ACTIVE_FORM_ATTR in f.attrs, true);
  assert.equal(ACTIVE_SUBMIT_ATTR in f.button.attrs, true);
  assert.equal(f.button.focused, true);
  // The user submits: the submission is the call's, and its answer the result.
  const ev = doc.userSubmit(f);
  flush(); // the call looks at the submission once the page's listeners ran: a task later
  assert.equal(ev.agentInvoked, true);
  assert.deepEqual(await p, { found: 'i3' });
  assert.equal(ACTIVE_FORM_ATTR in f.attrs, false, 'the running state ends with the answer');
  assert.equal(ACTIVE_SUBMIT_ATTR in f.button.attrs, false);
  // A later submission by the user is no call's.
  assert.equal(doc.userSubmit(f).agentInvoked, false);
  // The user's submission prevented without respondWith: the page's error, as for toolautosubmit.
  f.onsubmit = (e) => e.preventDefault();
  const q = poly.list().get('search-cars').run({ make: 'BMW', model: 'i4' }, new AbortController().signal);
  doc.userSubmit(f);
  flush();
  await assert.rejects(q, /without also calling respondWith/);
  assert.equal(ACTIVE_FORM_ATTR in f.attrs, false);
  // Cancelled while it waits (the agent's timeout): toolcancel, the marks go.
  const ctl = new AbortController();
  const r = poly.list().get('search-cars').run({ make: 'BMW', model: 'i5' }, ctl.signal);
  ctl.abort(new Error('timed out'));
  await assert.rejects(r, /timed out/);
  assert.equal(ACTIVE_FORM_ATTR in f.attrs, false);
});

test('a reset ends the call; a removal or a rename ends one the page has not answered; a cancel fires toolcancel', async () => {
  const { doc, poly, events } = setup();
  const f = carsForm({ toolautosubmit: '' });
  let respond;
  f.onsubmit = (e) => {
    e.preventDefault();
    e.respondWith(new Promise((r) => {
      respond = r;
    }));
  };
  doc.add(f);
  const run = () => poly.list().get('search-cars').run({ make: 'a', model: 'b' }, new AbortController().signal);
  let p = run();
  doc.reset(f);
  await assert.rejects(p, { name: 'UnknownError', message: 'Tool execution cancelled by a form reset' });
  assert.equal(ACTIVE_FORM_ATTR in f.attrs, false);
  // Answered (respondWith) already: the page's answer is the call's, renamed
  // or removed (as in Chromium 156).
  p = run();
  f.attrs.toolname = 'renamed';
  doc.changed();
  respond('answered after the rename');
  assert.equal(await p, 'answered after the rename');
  f.attrs.toolname = 'search-cars';
  doc.changed();
  p = run();
  doc.remove(f);
  respond('answered after the removal');
  assert.equal(await p, 'answered after the removal');
  doc.add(f);
  // Not answered yet (it waits for the user's submission): the call ends,
  // with Chromium 156's error and without toolcancel.
  const waiting = carsForm();
  waiting.attrs.toolname = 'waiting';
  doc.add(waiting);
  p = poly.list().get('waiting').run({ make: 'a', model: 'b' }, new AbortController().signal);
  assert.equal(ACTIVE_FORM_ATTR in waiting.attrs, true);
  doc.remove(waiting);
  await assert.rejects(p, { name: 'UnknownError', message: 'Tool execution cancelled, since tool definition was updated' });
  assert.equal(ACTIVE_FORM_ATTR in waiting.attrs, false);
  doc.add(waiting);
  p = poly.list().get('waiting').run({ make: 'a', model: 'b' }, new AbortController().signal);
  delete waiting.attrs.tooldescription;
  doc.changed();
  await assert.rejects(p, { name: 'UnknownError', message: 'Tool execution cancelled, since tool definition was updated' });
  assert.deepEqual(events.filter((e) => e[0] === 'cancel'), []);
  const ctl = new AbortController();
  p = poly.list().get('search-cars').run({ make: 'a', model: 'b' }, ctl.signal);
  ctl.abort(new Error('the agent cancelled'));
  await assert.rejects(p, /the agent cancelled/);
  assert.deepEqual(events.filter((e) => e[0] === 'cancel'), [['cancel', 'search-cars']]);
  respond('late'); // a late response goes nowhere
  await drain();
});

test('the pseudo-classes map to the attributes that stand in for them, and nothing else changes', () => {
  assert.equal(mapPseudoClasses('form:tool-form-active'), 'form[data-tool-form-active]');
  assert.equal(mapPseudoClasses(':is(:TOOL-SUBMIT-ACTIVE, a) > :tool-form-active'), ':is([data-tool-submit-active], a) > [data-tool-form-active]');
  for (const other of ['form', ':tool-form-activex', 'a\\:tool-form-active', ':tool-form-active-not', 5]) assert.equal(mapPseudoClasses(other), null, String(other));
  // A window whose selector engine knows neither: the methods retry a
  // refused selector that names one, and leave every other alone.
  const known = /^(form|button|\[data-tool-form-active\]|\[data-tool-submit-active\])$/;
  const refuse = (s) => {
    if (!known.test(s)) throw new DOMException(`'${s}' is not a valid selector.`, 'SyntaxError');
  };
  class Element {
    matches(s) {
      refuse(s);
      return s === '[data-tool-form-active]';
    }
    closest(s) {
      refuse(s);
      return s;
    }
    querySelector(s) {
      refuse(s);
      return s;
    }
  }
  class Document {
    querySelector(s) {
      refuse(s);
      return s;
    }
    querySelectorAll(s) {
      refuse(s);
      return [s];
    }
  }
  const win = { Element, Document, DocumentFragment: undefined, document: new Document() };
  assert.equal(mapToolPseudoClasses(win), true);
  const e = new Element();
  assert.equal(e.matches(':tool-form-active'), true);
  assert.equal(e.matches('form'), false);
  assert.equal(e.closest(':tool-submit-active'), '[data-tool-submit-active]');
  assert.deepEqual(win.document.querySelectorAll(':tool-form-active'), ['[data-tool-form-active]']);
  assert.throws(() => e.matches(':bogus'), { name: 'SyntaxError' });
  assert.equal(Element.prototype.matches.name, 'matches');
  assert.equal(Element.prototype.matches.length, 1);
  // A browser that knows them keeps its own methods.
  class KnowingDocument {
    querySelector() {
      return null;
    }
  }
  const before = KnowingDocument.prototype.querySelector;
  assert.equal(mapToolPseudoClasses({ Element, Document: KnowingDocument, document: new KnowingDocument() }), false);
  assert.equal(KnowingDocument.prototype.querySelector, before);
});
