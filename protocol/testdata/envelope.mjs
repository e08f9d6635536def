// Reads lines as the extension does, for envelope_test.go: each input line
// is the base64 of one message's bytes; each output line is the JSON of
// what the extension reads from it: JSON.parse, then m.type and m.id, and
// the id that checkHostMessage passes on (or answers) for it.
import readline from 'node:readline';
import { checkHostMessage } from '../../extension/lib/protocol.js';

const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const b64 of rl) {
  const text = Buffer.from(b64, 'base64').toString('utf8');
  let out;
  try {
    const m = JSON.parse(text);
    const isObject = m !== null && typeof m === 'object' && !Array.isArray(m);
    const r = checkHostMessage(m);
    const passed = r.msg || r.reply;
    out = {
      parsed: true,
      object: isObject,
      type: isObject && typeof m.type === 'string' ? m.type : null,
      id: isObject && typeof m.id === 'string' ? m.id : null,
      checkedId: passed && typeof passed.id === 'string' ? passed.id : null,
    };
  } catch (e) {
    out = { parsed: false, error: String(e.message) };
  }
  process.stdout.write(JSON.stringify(out) + '\n');
}
