// The polyfill's events: toolactivated and toolcancel carry the tool's name.

import { Evt, isObject } from '../../source/builtins.js';

// A class named name, extending Event, whose init dictionary has toolName.
function toolEventClass(name) {
  const C = class extends Evt {
    #toolName;
    constructor(type, init) {
      super(type, init);
      const name = isObject(init) ? init.toolName : undefined;
      this.#toolName = name === undefined ? '' : String(name);
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
