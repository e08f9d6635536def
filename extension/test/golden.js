// Reads the golden protocol messages of testdata/protocol, which the Go
// tests of package webmcp (golden_test.go) read too.

import fs from 'node:fs';

const DIR = new URL('../../testdata/protocol/', import.meta.url);

/** The cases of one message type's golden file: [{name, links, message, …}]. */
export function golden(type) {
  return JSON.parse(fs.readFileSync(new URL(`${type}.json`, DIR), 'utf8')).cases;
}

/** The golden case of a type by name; throws when there is none. */
export function goldenCase(type, name) {
  const c = golden(type).find((x) => x.name === name);
  if (!c) throw new Error(`testdata/protocol/${type}.json has no case ${JSON.stringify(name)}`);
  return c;
}

/** The message types that have a golden file. */
export function goldenTypes() {
  return fs.readdirSync(DIR).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -'.json'.length)).sort();
}

/** A golden sequence of testdata/protocol/sequences: {doc, steps: [{from, to, message, dropped?}]}. */
export function goldenSequence(name) {
  return JSON.parse(fs.readFileSync(new URL(`sequences/${name}.json`, DIR), 'utf8'));
}
