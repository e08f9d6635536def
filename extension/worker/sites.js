// The allowed sites, as the browser keeps them (lib/sitepatterns.js): the
// extension's host permissions, less the blocks in chrome.storage.local
// (BLOCKS_KEY). Sites reads them at start and again whenever they change
// (permissions.onAdded/onRemoved: the panel, the consent window, the
// browser's own extension settings; storage.onChanged for the blocks),
// hands the list to the registry (apply), and keeps the content scripts
// registered (chrome.scripting) for exactly those sites: a page of any
// other site gets no script of the extension at all.
//
// Granting needs the user's click in an extension page: the page calls
// chrome.permissions.request itself (ui/sitegrant.js), then tells the
// worker (allow), which checks that the browser granted it. Taking a site
// away (deny, remove) is the worker's: it gives the permission back, or
// blocks the origin where a broader grant (a required loopback one, a
// wildcard) still covers it.
//
// At start it also migrates the allow list of an earlier version (the
// storage key of lib/allowlist.js): blocks stay blocks, and sites the
// browser has not granted wait in PENDING_KEY until the user grants them
// from the panel (the browser must ask; a worker cannot).

import { STORAGE_KEY, compileAllowList, webOrigin } from '../lib/allowlist.js';
import {
  BLOCKS_KEY, PENDING_KEY, SCRIPT_IDS, blocksFrom, fromMatchPattern, migrate, originMatchPattern, scriptsFor, siteList, toMatchPattern,
} from '../lib/sitepatterns.js';

/** Sites keeps the allow list and the content scripts' registration in step with the browser's grants. */
export class Sites {
  /**
   * @param {object} o
   * @param {typeof chrome} o.chrome
   * @param {{warn: Function}} o.log
   * @param {(list: string[]) => void} o.apply takes the allow list (lib/allowlist.js form)
   */
  constructor({ chrome, log, apply }) {
    Object.assign(this, { chrome, log, apply });
    /** The allow list last applied, the blocks and the pending sites as stored. */
    this.list = [];
    this.blocks = [];
    this.pending = [];
    /** Reads and registrations, one at a time, in order. */
    this.queue = Promise.resolve();
    /** Whether the browser took matchOriginAsFallback (Firefox before it knew it did not). */
    this.fallback = true;
    /** Resolves once load() has run (settled waits for it). */
    this.loaded = new Promise((resolve) => {
      this.markLoaded = resolve;
    });
  }

  /**
   * What doctor asks (the siteAccess request): the allow list, and the
   * sites the extension asks for at install (its manifest's
   * host_permissions, the loopback ones) that the browser does not grant
   * it now.
   */
  async access() {
    await this.settled();
    const { chrome } = this;
    let required = [];
    try {
      required = chrome.runtime.getManifest().host_permissions || [];
    } catch {
      // none known
    }
    const { origins = [] } = await chrome.permissions.getAll();
    return { allowed: [...this.list], withheld: required.filter((p) => !origins.includes(p)) };
  }

  /** Listens for the browser's grants and the stored blocks changing. */
  listen() {
    const { chrome } = this;
    const again = () => {
      this.refresh().catch((e) => this.log.warn(`could not apply the changed site access: ${e.message}`));
    };
    chrome.permissions.onAdded.addListener(again);
    chrome.permissions.onRemoved.addListener(again);
    chrome.storage.onChanged.addListener((changes, area) => {
      if (area === 'local' && (BLOCKS_KEY in changes || PENDING_KEY in changes)) again();
    });
  }

  /** Migrates an earlier version's allow list, then applies the grants and registers the scripts. */
  async load() {
    try {
      return await this.migrateAndRead();
    } finally {
      this.markLoaded();
    }
  }

  async migrateAndRead() {
    const stored = await this.chrome.storage.local.get([STORAGE_KEY, BLOCKS_KEY, PENDING_KEY]);
    if (Array.isArray(stored[STORAGE_KEY])) {
      const { origins = [] } = await this.chrome.permissions.getAll();
      const m = migrate(stored[STORAGE_KEY], compileAllowList(siteList(origins, [])).allows);
      const blocks = [...new Set([...blocksFrom(stored[BLOCKS_KEY]), ...m.blocks])];
      const pending = [...new Set([...blocksFrom(stored[PENDING_KEY]), ...m.pending])];
      await this.chrome.storage.local.set({ [BLOCKS_KEY]: blocks, [PENDING_KEY]: pending });
      await this.chrome.storage.local.remove(STORAGE_KEY);
      if (m.pending.length) this.log.warn(`site access moved to the browser's permissions: ${m.pending.join(', ')} must be allowed again in the panel (the browser asks)`);
    }
    return this.refresh();
  }

  /** Reads the grants and blocks again, applies them, and registers the scripts; resolves once done. */
  refresh() {
    const run = this.queue.then(() => this.read());
    this.queue = run.catch(() => {});
    return run;
  }

  async read() {
    const { chrome } = this;
    const [{ origins = [] }, stored] = await Promise.all([
      chrome.permissions.getAll(),
      chrome.storage.local.get([BLOCKS_KEY, PENDING_KEY]),
    ]);
    this.blocks = blocksFrom(stored[BLOCKS_KEY]);
    const list = siteList(origins, this.blocks);
    const allows = compileAllowList(list).allows;
    this.pending = blocksFrom(stored[PENDING_KEY]).filter((p) => !coveredBy(p, allows));
    // The scripts first: once the registry allows a site, a page of it that
    // loads has them.
    try {
      await this.register(list);
    } finally {
      this.list = list;
      this.apply(list);
    }
    return list;
  }

  /** Registers the content scripts for list, changing nothing when they are registered so already. */
  async register(list) {
    const { scripting } = this.chrome;
    const want = scriptsFor(list, { fallback: this.fallback });
    const have = await scripting.getRegisteredContentScripts({ ids: Object.values(SCRIPT_IDS) });
    if (sameScripts(have, want)) return;
    if (have.length) await scripting.unregisterContentScripts({ ids: have.map((s) => s.id) });
    if (want.length === 0) return;
    try {
      await scripting.registerContentScripts(want);
    } catch (e) {
      if (!this.fallback) throw e;
      // A browser without matchOriginAsFallback (older Firefox) refuses the
      // property: register without it (about:blank frames go without).
      this.fallback = false;
      this.log.warn(`content scripts registered without matchOriginAsFallback: ${e.message}`);
      await scripting.registerContentScripts(scriptsFor(list, { fallback: false }));
    }
  }

  /** Resolves once the start-up read and the reads and registrations asked for so far are done. */
  settled() {
    return this.loaded.then(() => this.queue);
  }

  /** Whether origin is allowed now. */
  allows(origin) {
    return compileAllowList(this.list).allows(origin);
  }

  /**
   * Turns a site (an origin) on: the browser must hold its grant already
   * (the page that asked the user called permissions.request); its blocks
   * go. Resolves once the scripts are registered for it.
   */
  async allow(origin) {
    const o = webOrigin(origin);
    const mp = originMatchPattern(o || origin);
    const blocks = this.blocks.filter((b) => b.includes('*') || webOrigin(b) !== o);
    if (blocks.length !== this.blocks.length) await this.store({ [BLOCKS_KEY]: blocks });
    await this.dropPending((p) => webOrigin(p) === o);
    await this.refresh();
    if (!this.allows(o)) {
      const granted = await this.chrome.permissions.contains({ origins: [mp] }).catch(() => false);
      throw new Error(granted
        ? `${o} is still turned off by an entry of the allowed sites; remove it there`
        : `the browser has not granted access to ${o}: allow it from the extension's panel, where the browser asks you`);
    }
  }

  /**
   * Turns a site off: the browser's grant naming exactly it goes back, and
   * a block is stored when a broader grant still covers it. Resolves once
   * the scripts are registered without it.
   */
  async deny(origin) {
    const o = webOrigin(origin);
    if (o === '') throw new Error(`${JSON.stringify(origin)} is not the origin of a web page (http or https)`);
    const { origins = [] } = await this.chrome.permissions.getAll();
    // The grant allowing it would have asked for, and any naming its very port.
    const own = originMatchPattern(o);
    const exact = origins.filter((mp) => {
      const p = fromMatchPattern(mp);
      return mp === own || (p !== '' && !p.includes('*') && webOrigin(p) === o);
    });
    if (exact.length) await this.removeGrants(exact);
    // Still allowed by a broader grant: block it, then apply once (no view
    // in between that shows the site on).
    const { origins: now = [] } = await this.chrome.permissions.getAll();
    if (compileAllowList(siteList(now, this.blocks)).allows(o)) await this.store({ [BLOCKS_KEY]: [...this.blocks, o] });
    await this.refresh();
  }

  /**
   * Removes one entry of the list as the panel shows it: a block
   * ("!pattern") goes; a grant goes back to the browser (a required one,
   * which the browser keeps, is blocked instead); a pending site is
   * forgotten.
   */
  async remove(entry) {
    if (entry.startsWith('!')) {
      await this.store({ [BLOCKS_KEY]: this.blocks.filter((b) => b !== entry.slice(1)) });
    } else if (this.pending.includes(entry) && !this.list.includes(entry)) {
      await this.dropPending((p) => p === entry);
    } else if (this.list.includes(entry)) {
      const mp = toMatchPattern(entry);
      const { origins = [] } = await this.chrome.permissions.getAll();
      const grants = origins.filter((g) => fromMatchPattern(g) === entry);
      let removed = false;
      try {
        removed = await this.chrome.permissions.remove({ origins: grants.length ? grants : [mp] });
      } catch {
        removed = false; // "You cannot remove required permissions."
      }
      if (!removed && !this.blocks.includes(entry)) await this.store({ [BLOCKS_KEY]: [...this.blocks, entry] });
    } else {
      throw new Error(`${JSON.stringify(entry)} is not on the allow list (any more); the list is shown again`);
    }
    return this.refresh();
  }

  /** Stores items; a failed write says that nothing changed. */
  async store(items) {
    try {
      await this.chrome.storage.local.set(items);
    } catch (e) {
      throw new Error(`the change could not be stored (${e.message}); nothing changed, try again`);
    }
  }

  async removeGrants(origins) {
    try {
      await this.chrome.permissions.remove({ origins });
    } catch (e) {
      this.log.warn(`could not give back access to ${origins.join(', ')}: ${e.message}`);
    }
  }

  async dropPending(drop) {
    const pending = this.pending.filter((p) => !drop(p));
    if (pending.length !== this.pending.length) {
      this.pending = pending;
      await this.store({ [PENDING_KEY]: pending });
    }
  }
}

/** Whether a pending allow-list pattern is allowed now (exact origins only; a wildcard stays pending until granted as such). */
function coveredBy(pattern, allows) {
  if (pattern.includes('*')) return false;
  return allows(pattern);
}

/** Whether the registered scripts are the wanted ones (ids, files, worlds, matches). */
function sameScripts(have, want) {
  if (have.length !== want.length) return false;
  const key = (s) => JSON.stringify([
    s.id, s.js, s.world || 'ISOLATED', [...(s.matches || [])].sort(), [...(s.excludeMatches || [])].sort(),
    !!s.allFrames, s.runAt || 'document_idle', !!s.matchOriginAsFallback,
  ]);
  const a = have.map(key).sort();
  const b = want.map(key).sort();
  return a.every((k, i) => k === b[i]);
}
