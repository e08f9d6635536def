// The extension's icons: every size the manifest names is a PNG of that size.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const manifest = JSON.parse(readFileSync(join(root, 'manifest.json'), 'utf8'));

function pngSize(path) {
  const b = readFileSync(join(root, path));
  assert.deepEqual([...b.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], `${path} is not a PNG`);
  return [b.readUInt32BE(16), b.readUInt32BE(20)];
}

test('the manifest names an icon of each size Chrome wants, toolbar included', () => {
  for (const icons of [manifest.icons, manifest.action?.default_icon]) {
    assert.deepEqual(Object.keys(icons ?? {}).sort(), ['128', '16', '32', '48']);
    for (const [size, path] of Object.entries(icons)) {
      assert.deepEqual(pngSize(path), [Number(size), Number(size)], path);
    }
  }
});
