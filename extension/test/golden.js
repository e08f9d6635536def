// Reads the golden protocol messages of testdata/protocol, which the Go
// tests of package protocol (golden_test.go) read too, and the golden
// messages of the extension's own links, testdata/frames (PROTOCOL.md),
// which the tests of each link's ends read.

import fs from 'node:fs';

const TESTDATA = new URL('../../testdata/', import.meta.url);
const DIR = new URL('protocol/', TESTDATA);

/** The cases of testdata/FILE (a golden file: {doc, cases}). */
function casesOf(file) {
  return JSON.parse(fs.readFileSync(new URL(file, TESTDATA), 'utf8')).cases;
}

/** The case named name of testdata/FILE; throws when there is none. */
function caseOf(file, name) {
  const c = casesOf(file).find((x) => x.name === name);
  if (!c) throw new Error(`testdata/${file} has no case ${JSON.stringify(name)}`);
  return c;
}

/** The cases of one message type's golden file: [{name, links, message, …}]. */
export function golden(type) {
  return casesOf(`protocol/${type}.json`);
}

/** The golden case of a type by name; throws when there is none. */
export function goldenCase(type, name) {
  return caseOf(`protocol/${type}.json`, name);
}

/** The message types that have a golden file. */
export function goldenTypes() {
  return fs.readdirSync(DIR).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -'.json'.length)).sort();
}

/** A golden sequence of testdata/protocol/sequences: {doc, steps: [{from, to, message, dropped?}]}. */
export function goldenSequence(name) {
  return JSON.parse(fs.readFileSync(new URL(`sequences/${name}.json`, DIR), 'utf8'));
}

/**
 * The golden messages of one of the extension's own links (PROTOCOL.md):
 * link "port" (relay <-> worker) or "channel" (relay <-> the page's
 * world), from testdata/frames: [{name, from, doc, message}].
 */
export function frameCases(link) {
  return casesOf(`frames/${link}.json`);
}

/** The golden message of a link by name; throws when there is none. */
export function frameCase(link, name) {
  return caseOf(`frames/${link}.json`, name).message;
}

/**
 * Why m is not a message that from may send on link, or "" when it is: its
 * type is one of the golden messages' of that sender, it has every field
 * that all of them of its type have, and no field that none has ("trace",
 * a traced call's marks, aside).
 */
export function frameProblem(link, from, m) {
  if (m === null || typeof m !== 'object') return `${JSON.stringify(m)} is not an object`;
  const same = frameCases(link).filter((c) => c.from === from && c.message.type === m.type);
  if (!same.length) return `${from} sends no ${JSON.stringify(m.type)} on the ${link} (testdata/frames/${link}.json)`;
  const keys = same.map((c) => Object.keys(c.message));
  const required = keys[0].filter((k) => keys.every((ks) => ks.includes(k)));
  const allowed = new Set([...keys.flat(), 'trace']);
  const missing = required.filter((k) => !(k in m));
  const extra = Object.keys(m).filter((k) => !allowed.has(k));
  if (missing.length || extra.length) {
    return `${from}'s ${m.type} on the ${link}: ${missing.length ? `missing ${missing.join(', ')}` : ''}${missing.length && extra.length ? '; ' : ''}${extra.length ? `unknown ${extra.join(', ')}` : ''}: ${JSON.stringify(m)}`;
  }
  return '';
}
