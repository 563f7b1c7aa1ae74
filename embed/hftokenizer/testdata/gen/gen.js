// Generates the hftokenizer parity fixtures with Hugging Face's official
// `tokenizers` Node binding (native build of the Rust crate).
//
//   cd embed/hftokenizer/testdata/gen && npm ci && node gen.js
//
// For each configuration it writes ../<name>/tokenizer.json and
// ../<name>/cases.jsonl ({"text", "normalized", "tokens", "ids"} per line).
// Vocabularies are derived here from the texts in texts.js (no downloads).
'use strict';

const fs = require('fs');
const path = require('path');
const hf = require('tokenizers');
const texts = require('./texts.js');
const { buildCharsmap, lookup } = require('./darts.js');

const outRoot = path.join(__dirname, '..');
const corpus = [...texts.japanese, ...texts.chinese, ...texts.korean, ...texts.english];
const allTexts = texts.all();

// ---------- helpers ----------

function loadHF(json) {
  return hf.Tokenizer.fromString(JSON.stringify(json));
}

// Words of the corpus as the reference pipeline sees them (normalizer then
// pre-tokenizer), so vocabularies fit the configuration.
function corpusWords(json) {
  const tok = loadHF(json);
  const norm = tok.getNormalizer();
  const pre = tok.getPreTokenizer();
  const words = [];
  for (const t of corpus) {
    const n = norm ? norm.normalizeString(t) : t;
    const pieces = pre ? pre.preTokenizeString(n).map((p) => p[0]) : [n];
    words.push(...pieces.filter((p) => p.length > 0));
  }
  return words;
}

function countSubstrings(words, minLen, maxLen) {
  const counts = new Map();
  for (const w of words) {
    const cps = [...w];
    for (let i = 0; i < cps.length; i++) {
      for (let l = minLen; l <= maxLen && i + l <= cps.length; l++) {
        const s = cps.slice(i, i + l).join('');
        counts.set(s, (counts.get(s) || 0) + 1);
      }
    }
  }
  return counts;
}

// A deterministic subset of characters left out of every vocabulary so that
// known-script text still hits the unknown-token paths.
function excludedChar(c) {
  const cp = c.codePointAt(0);
  return cp > 0x7f && cp % 11 === 3;
}

function unigramVocab(words, { size, quantize }) {
  const singles = countSubstrings(words, 1, 1);
  const multi = countSubstrings(words, 2, 6);
  let total = 0;
  for (const v of singles.values()) total += v;
  const vocab = [['<unk>', 0], ['<s>', 0], ['</s>', 0]];
  const seen = new Set(vocab.map((v) => v[0]));
  const score = (count, len) => {
    const s = Math.log(count / total) - 0.35 * (len - 1);
    return quantize ? Math.round(s * 4) / 4 : Number(s.toFixed(6));
  };
  const chars = [...singles.entries()].filter(([c]) => !excludedChar(c));
  chars.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  for (const [c, n] of chars) {
    vocab.push([c, score(n, 1)]);
    seen.add(c);
  }
  const cands = [...multi.entries()].filter(([s, n]) => n >= 2 && ![...s].some(excludedChar));
  cands.sort((a, b) => b[1] * [...b[0]].length - a[1] * [...a[0]].length || (a[0] < b[0] ? -1 : 1));
  for (const [s, n] of cands) {
    if (vocab.length >= size) break;
    if (seen.has(s)) continue;
    vocab.push([s, score(n, [...s].length)]);
    seen.add(s);
  }
  return vocab;
}

function wordPieceVocab(words, { size }) {
  const specials = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
  const vocab = new Map();
  const add = (t) => {
    if (!vocab.has(t)) vocab.set(t, vocab.size);
  };
  specials.forEach(add);
  const chars = countSubstrings(words, 1, 1);
  const sortedChars = [...chars.keys()].filter((c) => !excludedChar(c)).sort();
  for (const c of sortedChars) add(c);
  for (const c of sortedChars) add('##' + c);
  const wordCounts = new Map();
  for (const w of words) wordCounts.set(w, (wordCounts.get(w) || 0) + 1);
  const ws = [...wordCounts.entries()].filter(([w, n]) => n >= 2 && [...w].length > 1);
  ws.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  for (const [w] of ws) if (vocab.size < size / 2) add(w);
  // Frequent word-initial and word-internal fragments.
  const pre = new Map();
  const suf = new Map();
  for (const w of words) {
    const cps = [...w];
    for (let l = 2; l <= Math.min(8, cps.length); l++) {
      const p = cps.slice(0, l).join('');
      pre.set(p, (pre.get(p) || 0) + 1);
    }
    for (let i = 1; i < cps.length; i++) {
      for (let l = 2; l <= 6 && i + l <= cps.length; l++) {
        const s = cps.slice(i, i + l).join('');
        suf.set(s, (suf.get(s) || 0) + 1);
      }
    }
  }
  const frag = [
    ...[...pre.entries()].filter(([, n]) => n >= 2).map(([s, n]) => [s, n]),
    ...[...suf.entries()].filter(([, n]) => n >= 2).map(([s, n]) => ['##' + s, n]),
  ];
  frag.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  for (const [s] of frag) {
    if (vocab.size >= size) break;
    if (![...s.replace(/^##/, '')].some(excludedChar)) add(s);
  }
  return Object.fromEntries(vocab);
}

// Compact, stable JSON: one vocabulary entry per line.
function writeTokenizerJSON(file, json) {
  const { model, ...rest } = json;
  const head = JSON.stringify(rest, null, 2).replace(/\n}$/, '');
  const { vocab, ...modelRest } = model;
  let vocabText;
  if (Array.isArray(vocab)) {
    vocabText = '[\n' + vocab.map((v) => '      ' + JSON.stringify(v)).join(',\n') + '\n    ]';
  } else {
    vocabText = '{\n' + Object.entries(vocab).map(([k, v]) => '      ' + JSON.stringify(k) + ': ' + v).join(',\n') + '\n    }';
  }
  const modelHead = JSON.stringify(modelRest, null, 4).replace(/\n}$/, '').replace(/\n/g, '\n  ');
  const text = `${head},\n  "model": ${modelHead},\n    "vocab": ${vocabText}\n  }\n}\n`;
  JSON.parse(text); // sanity
  fs.writeFileSync(file, text);
}

async function writeCases(name, json) {
  const dir = path.join(outRoot, name);
  fs.mkdirSync(dir, { recursive: true });
  writeTokenizerJSON(path.join(dir, 'tokenizer.json'), json);
  // Reload from the written file so the ids come from exactly what is committed.
  const tok = hf.Tokenizer.fromFile(path.join(dir, 'tokenizer.json'));
  const norm = tok.getNormalizer();
  const lines = [];
  for (const text of allTexts) {
    const enc = await tok.encode(text, null, { addSpecialTokens: false });
    const row = { text };
    if (norm) row.normalized = norm.normalizeString(text);
    row.tokens = enc.getTokens();
    row.ids = enc.getIds();
    lines.push(JSON.stringify(row));
  }
  fs.writeFileSync(path.join(dir, 'cases.jsonl'), lines.join('\n') + '\n');
  console.log(`${name}: ${lines.length} cases, vocab ${tok.getVocabSize(true)}`);
}

// ---------- precompiled charsmap ----------

// Keys: NFKC-changed characters seen in the texts or in the full-width and
// half-width blocks, whitespace and control handling like sentencepiece's
// nmt_nfkc, deletions, and a few multi-character keys.
function charsmapMappings() {
  const m = new Map();
  const consider = (c) => {
    const n = c.normalize('NFKC');
    if (n !== c) m.set(c, n);
  };
  for (const t of allTexts) for (const c of t) consider(c);
  for (let cp = 0xff01; cp <= 0xffef; cp++) consider(String.fromCodePoint(cp));
  for (let cp = 0x2460; cp <= 0x24ff; cp++) consider(String.fromCodePoint(cp));
  for (let cp = 0x3300; cp <= 0x33ff; cp++) consider(String.fromCodePoint(cp));
  for (const c of ['\t', '\n', '\r', '\u00a0', '\u3000', '\u2002', '\u2003', '\u2028', '\u0085']) m.set(c, ' ');
  for (const c of ['\u0001', '\u0007', '\u007f', '\u200b', '\u00ad', '\ufeff', '\u200d']) m.set(c, '');
  m.set('\ufffd', ' ');
  // Multi-character keys (shorter than 6 bytes reach the grapheme path).
  m.set('e\u0301', 'é');
  m.set('a\u0308', 'ä');
  m.set('o\u0308', 'ö');
  m.set('n\u0303', 'ñ');
  m.set('\r\n', '\n\n'); // "\r" is a shorter prefix key: the reference uses it
  m.set('ｶﾞ', 'ガ'); // 6 bytes: never reached, half-width dakuten goes per char
  m.set('…', '...');
  m.set('〜', '~');
  return [...m.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

// ---------- configurations ----------

const metaspace = (prepend, split) => ({ type: 'Metaspace', replacement: '▁', prepend_scheme: prepend, split });
const added = (id, content, opts = {}) => ({
  id,
  content,
  single_word: false,
  lstrip: false,
  rstrip: false,
  normalized: false,
  special: true,
  ...opts,
});
const spmAdded = [added(0, '<unk>'), added(1, '<s>'), added(2, '</s>')];
const spmPost = {
  type: 'TemplateProcessing',
  single: [{ SpecialToken: { id: '<s>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '</s>', type_id: 0 } }],
  pair: [{ SpecialToken: { id: '<s>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { Sequence: { id: 'B', type_id: 1 } }, { SpecialToken: { id: '</s>', type_id: 0 } }],
  special_tokens: { '<s>': { id: '<s>', ids: [1], tokens: ['<s>'] }, '</s>': { id: '</s>', ids: [2], tokens: ['</s>'] } },
};
const base = { version: '1.0', truncation: null, padding: null };
const unigram = (vocab) => ({ type: 'Unigram', unk_id: 0, vocab, byte_fallback: false });

// Numbers as the crate reads Unigram scores: serde_json without
// float_roundtrip is not correctly rounded, so the pairs (text, value the
// crate saves back) let the Go parser be checked bit for bit.
function serdeFloats() {
  const texts = ['0', '-0', '5', '-7', '0.5', '-1.25', '1e-5', '-2.5E+3', '1E2', '-0.000001',
    '12345678901234567890', '-123456789012345678901234', '0.1234567890123456789012345',
    '-98765432109876543210.5', '1e-320', '-4.9e-324', '-13.999999999999998', '-10.987654321098765'];
  let seed = 12345;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  for (let i = 0; i < 400; i++) texts.push(String(-(rand() * 20)));
  for (let i = 0; i < 100; i++) texts.push((-(rand() * 30)).toFixed(3 + (i % 17)));
  const vocab = [['<unk>', 0], ...texts.map((t, i) => ['p' + i, 0])];
  let json = JSON.stringify({ ...base, added_tokens: [], normalizer: null, pre_tokenizer: null, post_processor: null, decoder: null, model: unigram(vocab) });
  // Splice the literal number texts in place of the placeholder zeros.
  texts.forEach((t, i) => {
    json = json.replace(`["p${i}",0]`, `["p${i}",${t}]`);
  });
  const tok = hf.Tokenizer.fromString(json);
  const tmp = path.join(require('os').tmpdir(), 'hftokenizer-serde.json');
  tok.save(tmp, false);
  const saved = fs.readFileSync(tmp, 'utf8');
  fs.unlinkSync(tmp);
  const back = saved.match(/\["p\d+",[^\]]+\]/g).map((m) => m.slice(m.indexOf(',') + 1, -1));
  if (back.length !== texts.length) throw new Error('serde float round trip lost entries');
  const pairs = texts.map((t, i) => [t, back[i]]);
  fs.writeFileSync(path.join(outRoot, 'serde_floats.json'), '[\n' + pairs.map((p) => JSON.stringify(p)).join(',\n') + '\n]\n');
  console.log(`serde_floats: ${pairs.length} numbers, ${pairs.filter(([a, b]) => Number(a) !== Number(b)).length} read off by the crate`);
}

async function main() {
  serdeFloats();
  // 1. hotchpotch/static-embedding-japanese style.
  const jaNorm = { type: 'Sequence', normalizers: [{ type: 'NFKC' }, { type: 'Lowercase' }] };
  const jaProbe = { ...base, added_tokens: [], normalizer: jaNorm, pre_tokenizer: metaspace('always', true), post_processor: null, decoder: null, model: unigram([['<unk>', 0]]) };
  const jaVocab = unigramVocab(corpusWords(jaProbe), { size: 2500, quantize: true });
  await writeCases('ja_unigram', {
    ...base,
    added_tokens: spmAdded,
    normalizer: jaNorm,
    pre_tokenizer: metaspace('always', true),
    post_processor: spmPost,
    decoder: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true },
    model: unigram(jaVocab),
  });

  // 1b. Same vocabulary, prepend "first" without split, after a left Strip
  // (the reference then measures "first" on the stripped text's offsets).
  await writeCases('ja_unigram_first_nosplit', {
    ...base,
    added_tokens: spmAdded,
    normalizer: { type: 'Sequence', normalizers: [{ type: 'Strip', strip_left: true, strip_right: false }, { type: 'NFKC' }, { type: 'Lowercase' }] },
    pre_tokenizer: metaspace('first', false),
    post_processor: null,
    decoder: null,
    model: unigram(jaVocab),
  });

  // 2. minishlab/potion-multilingual-128M style: Precompiled charsmap.
  const mappings = charsmapMappings();
  const charsmap = buildCharsmap(mappings);
  for (const [k, v] of mappings) {
    if (lookup(charsmap, k) !== v) throw new Error(`charsmap self-check failed for ${JSON.stringify(k)}`);
  }
  const multiNorm = {
    type: 'Sequence',
    normalizers: [
      { type: 'Precompiled', precompiled_charsmap: charsmap.toString('base64') },
      { type: 'Strip', strip_left: false, strip_right: true },
      { type: 'Replace', pattern: { Regex: ' {2,}' }, content: '▁' },
    ],
  };
  const multiPre = { type: 'Sequence', pretokenizers: [{ type: 'WhitespaceSplit' }, metaspace('first', true)] };
  const multiProbe = { ...base, added_tokens: [], normalizer: multiNorm, pre_tokenizer: multiPre, post_processor: null, decoder: null, model: unigram([['<unk>', 0]]) };
  const multiVocab = unigramVocab(corpusWords(multiProbe), { size: 3000, quantize: false });
  multiVocab.splice(1, 0, ['<pad>', 0]);
  multiVocab.push(['<mask>', 0]);
  await writeCases('multi_unigram_precompiled', {
    ...base,
    added_tokens: [
      added(0, '<unk>'),
      added(1, '<pad>'),
      added(2, '<s>'),
      added(3, '</s>'),
      added(multiVocab.length - 1, '<mask>', { lstrip: true }),
    ],
    normalizer: multiNorm,
    pre_tokenizer: multiPre,
    post_processor: null,
    decoder: null,
    model: unigram(multiVocab),
  });
  fs.writeFileSync(
    path.join(outRoot, 'multi_unigram_precompiled', 'charsmap_mappings.json'),
    JSON.stringify(mappings.map(([k, v]) => ({ key: k, value: v })), null, 0).replace(/\},\{/g, '},\n{') + '\n',
  );

  // 3. minishlab/potion-base-8M style: BERT WordPiece.
  const bertNorm = { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true };
  const bertProbe = { ...base, added_tokens: [], normalizer: bertNorm, pre_tokenizer: { type: 'BertPreTokenizer' }, post_processor: null, decoder: null, model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab: { '[UNK]': 0 } } };
  const bertVocab = wordPieceVocab(corpusWords(bertProbe), { size: 3000 });
  const bertAdded = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'].map((t) => added(bertVocab[t], t));
  await writeCases('en_wordpiece', {
    ...base,
    added_tokens: bertAdded,
    normalizer: bertNorm,
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: { type: 'BertProcessing', sep: ['[SEP]', bertVocab['[SEP]']], cls: ['[CLS]', bertVocab['[CLS]']] },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab: bertVocab },
  });

  // 4. Simple steps: NFD/StripAccents/NFC/Lowercase/Replace/Strip with
  // Whitespace + Digits, a normalized single-word added token, truncation.
  await writeCases('misc_wordpiece', {
    ...base,
    truncation: { direction: 'Right', max_length: 24, strategy: 'LongestFirst', stride: 0 },
    added_tokens: [...bertAdded, added(Object.keys(bertVocab).length, 'Omoide', { single_word: true, normalized: true, special: false })],
    normalizer: {
      type: 'Sequence',
      normalizers: [
        { type: 'NFD' },
        { type: 'StripAccents' },
        { type: 'NFC' },
        { type: 'Lowercase' },
        { type: 'Replace', pattern: { String: '’' }, content: "'" },
        { type: 'Strip', strip_left: true, strip_right: true },
      ],
    },
    pre_tokenizer: { type: 'Sequence', pretokenizers: [{ type: 'Whitespace' }, { type: 'Digits', individual_digits: true }] },
    post_processor: null,
    decoder: null,
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab: bertVocab },
  });

  // 1c. Byte fallback: unknown pieces become <0xXX> tokens when every byte
  // has one (bytes 0xF0-0xFF are left out, so emoji stay unknown).
  const byteVocab = [...jaVocab];
  for (let b = 0; b < 0xf0; b++) byteVocab.push([`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`, 0]);
  await writeCases('ja_unigram_bytefallback', {
    ...base,
    added_tokens: spmAdded,
    normalizer: jaNorm,
    pre_tokenizer: metaspace('always', true),
    post_processor: null,
    decoder: null,
    model: { ...unigram(byteVocab), byte_fallback: true },
  });

  // 5. More steps on the Japanese vocabulary: Nmt, NFKD, Replace(Regex),
  // left Strip, Prepend, WhitespaceSplit + Punctuation + Digits + Metaspace "never",
  // lstrip/rstrip added token, left truncation.
  await writeCases('misc_unigram', {
    ...base,
    truncation: { direction: 'Left', max_length: 20, strategy: 'LongestFirst', stride: 0 },
    added_tokens: [...spmAdded, added(jaVocab.length, 'omoide', { lstrip: true, rstrip: true, normalized: true, special: false })],
    normalizer: {
      type: 'Sequence',
      normalizers: [
        { type: 'Nmt' },
        { type: 'NFKD' },
        { type: 'Replace', pattern: { Regex: ' {2,}' }, content: ' ' },
        { type: 'Strip', strip_left: true, strip_right: false },
        { type: 'NFKC' },
        { type: 'Prepend', prepend: '▁' },
      ],
    },
    pre_tokenizer: {
      type: 'Sequence',
      pretokenizers: [{ type: 'WhitespaceSplit' }, { type: 'Punctuation', behavior: 'MergedWithPrevious' }, { type: 'Digits', individual_digits: false }, metaspace('never', true)],
    },
    post_processor: null,
    decoder: null,
    model: unigram(jaVocab),
  });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
