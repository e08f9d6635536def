// The declarative draft's additions to SubmitEvent, for the polyfill:
// agentInvoked (true for a submission an agent's call made) and
// respondWith(promise) (the call's result; the page must have called
// preventDefault() first, so the form does not navigate; a later call's
// promise replaces an earlier one's, as in Chromium 156).

import { DOMExc, defineProperty, hasOwn } from '../../source/builtins.js';

/**
 * Puts agentInvoked and respondWith on proto (SubmitEvent.prototype) unless
 * it has them, and returns the registry that forms.js marks agent-invoked
 * submit events in: agent(event, {respond(promise)}), forget(event).
 */
export function defineSubmitAdditions(proto) {
  /** event -> {respond(promise)} while its call waits */
  const agentEvents = new WeakMap();
  const responded = new WeakSet();
  if (proto && !hasOwn(proto, 'agentInvoked')) {
    defineProperty(proto, 'agentInvoked', {
      get() {
        return agentEvents.has(this) || responded.has(this);
      },
      enumerable: true,
      configurable: true,
    });
  }
  if (proto && !hasOwn(proto, 'respondWith')) {
    const methods = {
      respondWith(agentResponse) {
        const call = agentEvents.get(this);
        if (!call) {
          throw new DOMExc("Failed to execute 'respondWith' on 'SubmitEvent': the submission was not invoked by an agent (agentInvoked is false).", 'InvalidStateError');
        }
        if (!this.defaultPrevented) {
          // Chromium 156's words.
          throw new DOMExc("Failed to execute 'respondWith' on 'SubmitEvent': To call respondWith, you must first call preventDefault.", 'InvalidStateError');
        }
        // Called again, the later promise is the answer (as in Chromium).
        responded.add(this);
        call.respond(agentResponse);
      },
    };
    defineProperty(proto, 'respondWith', { value: methods.respondWith, writable: true, enumerable: true, configurable: true });
  }
  return {
    agent(event, call) {
      agentEvents.set(event, call);
    },
    forget(event) {
      agentEvents.delete(event);
    },
  };
}
