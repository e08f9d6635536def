// Declarative WebMCP tools in the polyfill (declarative-api-explainer.md of
// webmachinelearning/webmcp): every <form toolname="…" tooldescription="…">
// of the document is a tool; its schema comes from its controls
// (formschema.js). It follows the DOM: a form added, removed or renamed, or
// its controls changed, is a tool change.
//
// A call (run):
//  1. fills the controls (input and change events fire) and marks the form
//     as running: the attribute data-tool-form-active on the form and
//     data-tool-submit-active on its submit button stand in for the
//     :tool-form-active and :tool-submit-active pseudo-classes, which a
//     script cannot define; toolactivated fires;
//  2. with toolautosubmit, submits it (requestSubmit: the page's
//     constraints apply). The submit event has agentInvoked true and
//     respondWith(promise) (submit.js): the call's result is what that
//     promise resolves to. A submission the page prevents without
//     respondWith is an error (as in Chromium 156); one that navigates the
//     page ends the call with the navigated error (the draft leaves
//     cross-document responses open, issue #135; Chromium's executeTool
//     resolves to null then); one that goes to another browsing context
//     (target) is a result that says where;
//  3. without toolautosubmit, focuses the submit button and waits, as
//     Chromium does, until the user submits the form (then as in 2: the
//     submit event has agentInvoked true and respondWith, and the call's
//     result is the page's answer), resets it, or the call is cancelled
//     (the agent's timeout).
// The running state ends when the respondWith promise settles, the form is
// submitted by the user, reset, or the call is cancelled (toolcancel fires,
// as for imperative tools). A form removed or renamed ends a call that the
// page has not answered yet (an UnknownError, without toolcancel, as in
// Chromium 156); one the page answers (respondWith) ends with that answer.

import { DOMExc, PromiseCtor, jsonStringify, queueTask, resolved, then } from '../../source/builtins.js';
import { TOOL_NAME_PATTERN, navigatedError } from '../../source/toolcopy.js';
import { fillForm, formSchema, isFillable } from './formschema.js';

/** The attributes that stand in for the draft's pseudo-classes. */
export const ACTIVE_FORM_ATTR = 'data-tool-form-active';
export const ACTIVE_SUBMIT_ATTR = 'data-tool-submit-active';

/**
 * @param {object} o
 * @param {object} o.dom  the DOM as forms.js needs it: attr(el, name),
 *   setAttr(el, name, value), removeAttr(el, name), toolForms() (the
 *   document's form[toolname] elements), controls(form), labelText(el), text(el) (its textContent),
 *   submitButton(form), requestSubmit(form), focus(el), fire(el, type),
 *   isConnected(el), target(form) (the submission's target name, '' for
 *   the form's own browsing context)
 * @param {object} o.submits  submit.js's registry: agent(event, call), forget(event)
 * @param {() => void} o.changed  the form tools changed
 * @param {(name: string) => void} o.activated  fires toolactivated
 * @param {(name: string) => void} o.cancelled  fires toolcancel
 * @param {(fn: () => void) => void} [o.queueTask]  queues a task
 */
export function createFormTools({ dom, submits, changed, activated, cancelled, queueTask: queueATask = queueTask }) {
  /** name -> {name, description, inputSchema, autosubmit, form} */
  let tools = new Map();
  let signature = '[]';
  /** form -> the call under way on it */
  const running = new Map();
  let submitting = null; // the call whose requestSubmit is on the stack

  function read(form) {
    const name = dom.attr(form, 'toolname');
    const description = dom.attr(form, 'tooldescription');
    if (!name || !TOOL_NAME_PATTERN.test(name) || !description) return null;
    return { name, description, inputSchema: formSchema(form, dom), autosubmit: dom.attr(form, 'toolautosubmit') !== null, form };
  }

  /** Reads the document's form tools again; says so when they changed. */
  function rescan() {
    const next = new Map();
    for (const form of dom.toolForms()) {
      const t = read(form);
      if (t && !next.has(t.name)) next.set(t.name, t);
    }
    // A running form that is gone or renamed ends its call, unless the
    // page answers it already (respondWith): then the answer is the call's,
    // as in Chromium 156.
    for (const [form, call] of running) {
      const t = next.get(call.name);
      if (t && t.form === form) continue;
      if (call.responding) continue;
      // Chromium 156's words.
      end(call, { error: new DOMExc('Tool execution cancelled, since tool definition was updated', 'UnknownError') });
    }
    const sig = jsonStringify([...next.values()].map((t) => [t.name, t.description, t.autosubmit, t.inputSchema]));
    tools = next;
    if (sig !== signature) {
      signature = sig;
      changed();
    }
  }

  function setActive(call, on) {
    const button = dom.submitButton(call.form);
    if (on) {
      dom.setAttr(call.form, ACTIVE_FORM_ATTR, '');
      if (button) dom.setAttr(button, ACTIVE_SUBMIT_ATTR, '');
      call.button = button;
    } else {
      dom.removeAttr(call.form, ACTIVE_FORM_ATTR);
      if (call.button) dom.removeAttr(call.button, ACTIVE_SUBMIT_ATTR);
    }
  }

  // Ends call: its running state, and its promise when still open.
  function end(call, outcome) {
    if (running.get(call.form) === call) {
      running.delete(call.form);
      setActive(call, false);
    }
    if (call.event) submits.forget(call.event);
    if (call.settled) return;
    call.settled = true;
    if (call.signal && call.onAbort) call.signal.removeEventListener('abort', call.onAbort);
    if ('error' in outcome) call.reject(outcome.error);
    else call.resolve(outcome.value);
  }

  // Why the form did not submit, in Chromium 156's words: "Form validation
  // failed: " then "NAME: MESSAGE. " for each invalid field (the browser's
  // validation message, a period and a space).
  function invalidText(form) {
    let text = 'Form validation failed: ';
    for (const el of dom.controls(form)) {
      if (isFillable(el) && el.validity && el.validity.valid === false) {
        text += `${el.name}: ${el.validationMessage || 'invalid'}. `;
      }
    }
    return text;
  }

  // forPage: the call is the page's own executeTool, which resolves to null
  // for a submission to another browsing context, as Chromium's does (the
  // bridge's calls get a result that says where instead).
  function run(name, input, signal, forPage) {
    const t = tools.get(name);
    if (!t) return PromiseCtor.reject(new DOMExc(`No tool named ${jsonStringify(String(name))} is declared.`, 'UnknownError'));
    return new PromiseCtor((resolve, reject) => {
      if (signal && signal.aborted) {
        reject(signal.reason);
        return;
      }
      const old = running.get(t.form);
      if (old) end(old, { error: new DOMExc('another call filled the form', 'AbortError') });
      const call = { name, form: t.form, resolve, reject, settled: false, signal, forPage: !!forPage };
      if (signal) {
        call.onAbort = () => {
          cancelled(name);
          end(call, { error: signal.reason });
        };
        signal.addEventListener('abort', call.onAbort, { once: true });
      }
      let unknown;
      try {
        unknown = fillForm(t.form, input, dom);
      } catch (e) {
        end(call, { error: e });
        return;
      }
      running.set(t.form, call);
      setActive(call, true);
      const ignored = unknown.length ? ` The form has no field ${unknown.map((u) => jsonStringify(u)).join(', ')}: left out.` : '';
      call.ignored = ignored;
      if (!t.autosubmit) {
        // As Chromium does: the call waits until the user submits the form
        // (onSubmit), resets it, or the call is cancelled (the agent's
        // timeout).
        activated(name);
        if (call.button) dom.focus(call.button);
        return;
      }
      submitting = call;
      let thrown = null;
      try {
        dom.requestSubmit(t.form);
      } catch (e) {
        thrown = { error: e };
      }
      submitting = null;
      // toolactivated comes once the form is filled and its submit event
      // went through the page, before the call's answer (Chromium's order).
      activated(name);
      if (thrown) {
        end(call, thrown);
        return;
      }
      if (call.settled) return;
      if (!call.event) {
        end(call, { error: new DOMExc(invalidText(t.form), 'UnknownError') });
        return;
      }
      submitted(call);
    });
  }

  // Ends call after its submit event went through the page's listeners:
  // with respondWith's promise (it ends the call), a submission the page
  // prevented without it (an error) unless its listener called
  // form.submit() (which submits all the same, as in Chromium), one to
  // another browsing context (a result that says where), or one that
  // navigates this page.
  function submitted(call) {
    if (call.settled || call.responding) return;
    const { name, form, event } = call;
    if (event.defaultPrevented && !call.submitMethod) {
      // Chromium 156's words.
      end(call, { error: new DOMExc("The site has a programming error: it called preventDefault() on the 'submit' event, without also calling respondWith() with the tool result", 'UnknownError') });
      return;
    }
    const target = dom.target(form, event);
    if (target) {
      end(call, { value: call.forPage ? null : `Submitted the form of tool ${jsonStringify(name)} to ${jsonStringify(target)}; its response shows there, not here.${call.ignored}` });
      return;
    }
    end(call, { error: navigatedError(name) });
  }

  return {
    rescan,
    run,
    /** This document's form tools: name -> {name, description, inputSchema}. */
    list: () => tools,
    /** A submit event reached the document (capture phase, before the page's listeners). */
    onSubmit(event, form) {
      const call = running.get(form);
      if (!call || call.event) return;
      // The agent's submission, or the user's of the form the call filled
      // (without toolautosubmit): either is the call's, agentInvoked, with
      // respondWith (as in Chromium).
      call.event = event;
      submits.agent(event, {
        // respondWith: the last promise the page passed is the answer (as
        // in Chromium, which takes a second call too).
        respond(p) {
          call.responding = true;
          const mine = {};
          call.response = mine;
          const settle = (outcome) => {
            if (call.response === mine) end(call, outcome);
          };
          then(resolved(p), (value) => settle({ value }), (error) => settle({ error }));
        },
      });
      // run() looks at the agent's submission once requestSubmit returns;
      // the user's, once the page's listeners have run (a task later).
      if (call !== submitting) queueATask(() => submitted(call));
    },
    /** The page called form.submit(): within a call's submit event, it submits the call's form. */
    onSubmitMethod(form) {
      const call = running.get(form);
      if (call && call.event && !call.settled) call.submitMethod = true;
    },
    /** A form was reset: its call under way ends. */
    onReset(form) {
      const call = running.get(form);
      // Chromium 156's words.
      if (call) end(call, { error: new DOMExc('Tool execution cancelled by a form reset', 'UnknownError') });
    },
  };
}
