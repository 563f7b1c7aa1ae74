// Probes the reference crate's per-character behaviour over all of Unicode,
// for the Go side to derive compat_tables.go (the crate mixes older and newer
// Unicode tables than Go's; see ../../compat_gen_test.go).
//
//   node unicode_probe.js > unicode_probe.json   (about 40 s; not committed)
'use strict';

const hf = require('tokenizers');
const { buildCharsmap } = require('./darts.js');

const norm = {
  nfd: hf.nfdNormalizer(),
  nfkd: hf.nfkdNormalizer(),
  nfc: hf.nfcNormalizer(),
  nfkc: hf.nfkcNormalizer(),
  lower: hf.lowercase(),
};
const bclean = hf.bertNormalizer({ cleanText: true, handleChineseChars: false, stripAccents: false, lowercase: false });
const bstrip = hf.bertNormalizer({ cleanText: false, handleChineseChars: false, stripAccents: true, lowercase: false });
const sacc = hf.stripAccentsNormalizer();
const wsSplit = hf.whitespaceSplitPreTokenizer();
const punct = hf.punctuationPreTokenizer();
const digits = hf.digitsPreTokenizer(true);
const white = hf.whitespacePreTokenizer();
// Grapheme clusters seen through Precompiled: a key X maps to "#", so X+Y
// gives "#" alone when X and Y form one cluster shorter than 6 bytes.
const bases = ['a', '\r', '\u0600'];
const graph = hf.precompiled([...buildCharsmap(bases.map((x) => [x, '#']))]);

class RangeSet {
  constructor() {
    this.ranges = [];
  }
  add(cp) {
    const last = this.ranges[this.ranges.length - 1];
    if (last && last[1] === cp - 1) last[1] = cp;
    else this.ranges.push([cp, cp]);
  }
}

const out = { nfd: {}, nfkd: {}, nfc: {}, nfkc: {}, lower: {}, ccc: {} };
const sets = { removedByClean: new RangeSet(), nonspacingMark: new RangeSet(), combiningMark: new RangeSet(), whitespace: new RangeSet(), punctuation: new RangeSet(), numeric: new RangeSet(), word: new RangeSet() };
const joins = Object.fromEntries(bases.map((b) => [b, new RangeSet()]));

for (let cp = 0; cp <= 0x10ffff; cp++) {
  if (cp >= 0xd800 && cp <= 0xdfff) continue;
  const c = String.fromCodePoint(cp);
  for (const [k, n] of Object.entries(norm)) {
    const r = n.normalizeString(c);
    if (r !== c) out[k][cp] = r;
  }
  const nfd = out.nfd[cp] ?? c;
  const cc = norm.nfd.normalizeString('a' + c + '\u0334');
  if (cc !== 'a' + nfd + '\u0334') out.ccc[cp] = cc;
  if (bclean.normalizeString(c) === '') sets.removedByClean.add(cp);
  if (nfd === c && bstrip.normalizeString(c) === '') sets.nonspacingMark.add(cp);
  if (sacc.normalizeString('a' + c) === 'a') sets.combiningMark.add(cp);
  if (wsSplit.preTokenizeString('a' + c + 'a').length === 2) sets.whitespace.add(cp);
  if (punct.preTokenizeString('a' + c + 'a').length === 3) sets.punctuation.add(cp);
  if (digits.preTokenizeString('a' + c + 'a').length === 3) sets.numeric.add(cp);
  const w = white.preTokenizeString('a' + c).map((p) => p[0]);
  if (w.length === 1 && w[0] !== 'a') sets.word.add(cp);
  for (const b of bases) {
    if (Buffer.byteLength(b + c) < 6 && graph.normalizeString(b + c) === '#') joins[b].add(cp);
  }
}
for (const [k, s] of Object.entries(sets)) out[k] = s.ranges;
out.joins = Object.fromEntries(Object.entries(joins).map(([k, s]) => [k, s.ranges]));
process.stdout.write(JSON.stringify(out) + '\n');
