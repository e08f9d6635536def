// The requests a shim makes of the extension besides tool calls (Go package
// webmcp: sampleContext, pin, unpin, contextTools, setContextTool): their parameters, the tab they are
// about, and the pin they make. Pure: each function returns a value or
// {code, message} for the error to answer with.

import { makePin } from './pinlist.js';
import { Code } from './protocol.js';
import * as S from './snapshot.js';

/**
 * Reads the optional tabId of a request's params: a tab id, or null for "the
 * focused tab" (tabId absent, null or 0; Chrome's tab ids start at 1).
 */
export function tabIdParam(method, params) {
  const t = params.tabId;
  if (t === undefined || t === null || t === 0) return { tabId: null };
  if (!Number.isSafeInteger(t) || t < 0) return { code: Code.badRequest, message: `${method}: "tabId" must be a tab id (an integer), or left out for the focused tab` };
  return { tabId: t };
}

/** Reads the params of pin: {providerId, tabId?}. */
export function pinParams(params) {
  const { providerId } = params;
  if (typeof providerId !== 'string' || providerId === '') {
    return { code: Code.badRequest, message: 'pin: "providerId" must name a context provider, e.g. "trace.Timeline#selection"' };
  }
  const t = tabIdParam('pin', params);
  if (t.code) return t;
  return { providerId, tabId: t.tabId };
}

/** Reads the params of unpin: {providerId} for that provider's pin, {} for all. */
export function unpinParams(params) {
  const { providerId } = params;
  if (providerId === undefined || providerId === null) return { providerId: null };
  if (typeof providerId !== 'string' || providerId === '') {
    return { code: Code.badRequest, message: 'unpin: "providerId" must name a pinned provider, or be left out to unpin everything' };
  }
  return { providerId };
}

/** Reads the params of setContextTool: {name, on, tabId?, frameId?}. */
export function setContextToolParams(params) {
  const { name, on, frameId } = params;
  if (typeof name !== 'string' || name === '') {
    return { code: Code.badRequest, message: 'setContextTool: "name" must name a tool of the tab (its page name, as contextTools lists it)' };
  }
  if (typeof on !== 'boolean') return { code: Code.badRequest, message: 'setContextTool: "on" must be true or false' };
  if (frameId !== undefined && frameId !== null && (!Number.isSafeInteger(frameId) || frameId < 0)) {
    return { code: Code.badRequest, message: 'setContextTool: "frameId" must be a frame id (an integer), or left out' };
  }
  const t = tabIdParam('setContextTool', params);
  if (t.code) return t;
  return { name, on, tabId: t.tabId, frameId: Number.isSafeInteger(frameId) ? frameId : undefined };
}

/**
 * Finds the tab a request is about in the registry: tabId, or the focused tab
 * (the active tab of the last focused window) when tabId is null. It returns
 * {tab} (a protocol Tab whose context may leave the browser) or an error.
 */
export function resolveTab(registry, tabId) {
  if (tabId === null) {
    const tab = registry.focusedTab();
    if (!tab) {
      return { code: Code.notFound, message: 'no focused tab with a web page: the browser has not said which tab the user is looking at; click into a tab of an allowed site, or name a tab (list_tabs lists them)' };
    }
    if (!tab.allowed) {
      return { code: Code.notFound, message: `the focused tab (${tab.id}, ${tab.origin}) is not on the bridge's allow list: focus a tab of an allowed site, or the user can allow this one in the extension` };
    }
    return { tab };
  }
  const t = registry.tabs.get(tabId);
  const tab = t && registry.wireTab(t);
  if (!tab) return { code: Code.notFound, message: `no tab ${tabId} with a web page (it closed, or the bridge never saw it); list the tabs again` };
  if (!tab.allowed) return { code: Code.notAllowed, message: `${tab.origin} is not on the bridge's allow list; the user can allow it in the extension` };
  return { tab };
}

/**
 * Makes the pin of providerId from a freshly sampled Context of its tab.
 * registered lists the ids of the providers the tab's pages registered (for
 * the message when providerId is not among them).
 */
export function pinFromContext(ctx, providerId, registered, now) {
  const snap = (ctx.providers || []).find((p) => p.id === providerId);
  if (!snap) {
    if (!registered.includes(providerId)) {
      const list = registered.length
        ? `its providers are ${registered.map((id) => JSON.stringify(id)).join(', ')}`
        : 'it has no context providers';
      return { code: Code.notFound, message: `tab ${ctx.tabId} has no context provider ${JSON.stringify(providerId)}: ${list}` };
    }
    return { code: Code.notFound, message: `context provider ${JSON.stringify(providerId)} of tab ${ctx.tabId} has nothing to show right now (its getContext returned undefined), so there is nothing to pin` };
  }
  if (snap.note) {
    return { code: Code.toolError, message: `context provider ${JSON.stringify(providerId)} of tab ${ctx.tabId} could not be sampled (${snap.note}); nothing was pinned` };
  }
  if (!S.isValidProviderId(snap.id)) return { code: Code.internal, message: 'a sampled provider has an invalid id' };
  return { pin: makePin(snap, ctx, now) };
}
