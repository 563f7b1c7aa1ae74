// Minimal builder for sentencepiece's precompiled_charsmap: a darts-clone
// double-array trie over the UTF-8 keys, followed by the pool of
// NUL-terminated replacement strings the trie values point into.
//
// Unit layout (darts-clone DoubleArrayUnit, 32 bits):
//   bits 0-7   label byte of the edge leading to this unit
//   bit 8      has_leaf: the key ending here has a value stored at base
//   bit 9      extension: offset is shifted left by 8 (unused here)
//   bits 10-30 offset; base = position XOR offset
//   bit 31     set on value (leaf) units so their label never matches a byte
'use strict';

function buildTrie(keys) {
  // keys: array of [Buffer key, value]; returns the root of a byte trie.
  const root = { children: new Map(), value: -1 };
  for (const [key, value] of keys) {
    let node = root;
    for (const b of key) {
      if (!node.children.has(b)) node.children.set(b, { children: new Map(), value: -1 });
      node = node.children.get(b);
    }
    node.value = value;
  }
  return root;
}

function buildDoubleArray(keys) {
  const root = buildTrie(keys);
  const units = [0];
  const used = [true];
  const usedBase = new Set();
  const ensure = (n) => {
    while (units.length <= n) {
      units.push(0);
      used.push(false);
    }
  };
  // Place node (already at pos) by choosing a base for its children (and leaf).
  const queue = [[root, 0, true]];
  while (queue.length > 0) {
    const [node, pos, isRoot] = queue.shift();
    const labels = [...node.children.keys()].sort((a, b) => a - b);
    const slots = node.value >= 0 ? [0, ...labels] : labels;
    if (slots.length === 0) continue;
    let base = 256;
    for (;; base++) {
      if (usedBase.has(base)) continue;
      if (slots.every((l) => !(used[base ^ l] === true))) break;
    }
    usedBase.add(base);
    const offset = pos ^ base;
    if (offset >= 1 << 21) throw new Error('offset too large for this simple builder');
    ensure(base | 0xff);
    let unit = units[pos] | (offset << 10);
    if (node.value >= 0) unit |= 1 << 8;
    units[pos] = unit >>> 0;
    if (node.value >= 0) {
      units[base] = ((1 << 31) | node.value) >>> 0;
      used[base] = true;
    }
    for (const l of labels) {
      const child = base ^ l;
      units[child] = l;
      used[child] = true;
      queue.push([node.children.get(l), child, false]);
    }
    void isRoot;
  }
  // Pad to a whole block so every base ^ byte stays inside the array.
  ensure(((units.length + 255) >> 8 << 8) - 1);
  return units;
}

// mappings: array of [key string, replacement string].
function buildCharsmap(mappings) {
  let pool = Buffer.alloc(0);
  const offsets = new Map();
  const keys = [];
  for (const [key, repl] of mappings) {
    if (!offsets.has(repl)) {
      offsets.set(repl, pool.length);
      pool = Buffer.concat([pool, Buffer.from(repl, 'utf8'), Buffer.from([0])]);
    }
    keys.push([Buffer.from(key, 'utf8'), offsets.get(repl)]);
  }
  keys.sort((a, b) => Buffer.compare(a[0], b[0]));
  const units = buildDoubleArray(keys);
  const trie = Buffer.alloc(units.length * 4);
  units.forEach((u, i) => trie.writeUInt32LE(u >>> 0, i * 4));
  const head = Buffer.alloc(4);
  head.writeUInt32LE(trie.length, 0);
  return Buffer.concat([head, trie, pool]);
}

// lookup walks the whole key like spm_precompiled's common_prefix_search and
// returns the value stored for exactly that key (null if none), to self-check
// the builder before the reference package sees the charsmap.
function lookup(charsmap, key) {
  const size = charsmap.readUInt32LE(0);
  const n = size >> 2;
  const unit = (i) => charsmap.readUInt32LE(4 + i * 4);
  const pool = charsmap.subarray(4 + size);
  const off = (u) => (u >>> 10) << ((u & (1 << 9)) >>> 6);
  let pos = 0;
  let found = null;
  pos ^= off(unit(0));
  for (const c of Buffer.from(key, 'utf8')) {
    found = null;
    if (c === 0) return null;
    pos ^= c;
    if (pos >= n) return null;
    const u = unit(pos);
    if ((u & ((1 << 31) | 0xff)) >>> 0 !== c) return null;
    pos ^= off(u);
    if ((u >>> 8) & 1) {
      const v = unit(pos) & 0x7fffffff;
      let end = v;
      while (end < pool.length && pool[end] !== 0) end++;
      found = pool.subarray(v, end).toString('utf8');
    }
  }
  return found;
}

module.exports = { buildCharsmap, lookup };
