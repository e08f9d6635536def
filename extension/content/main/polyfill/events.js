// The polyfill's events: toolactivated and toolcancel carry the tool's name.

import { Evt, isObject } from '../builtins.js';

// A class named name, extending Event, whose init dictionary has toolName.
function toolEventClass(name) {
  const C = class extends Evt {
    #toolName;
    constructor(type, init) {
      super(type, init);
      this.#toolName = String((isObject(init) && init.toolName) ?? '');
    }
    get toolName() {
      return this.#toolName;
    }
  };
  Object.defineProperty(C, 'name', { value: name });
  return C;
}

/** Two fresh classes, ToolActivatedEvent and ToolCancelEvent. */
export function defineToolEvents() {
  return {
    ToolActivatedEvent: toolEventClass('ToolActivatedEvent'),
    ToolCancelEvent: toolEventClass('ToolCancelEvent'),
  };
}
