// Generates the tiny static-embedding test models under embed/testdata/static
// and their expected vectors, with Hugging Face's official `tokenizers` Node
// binding (native build of the Rust crate) for the token ids.
//
//   cd embed/testdata/static/gen && npm ci && node gen.js
//
// Output is deterministic: tables come from a seeded mulberry32 PRNG (uniform
// values only, no transcendental functions), safetensors files are written
// here byte for byte as the reference writer lays them out, and expected
// vectors are computed in float64.
'use strict';

const fs = require('fs');
const path = require('path');
const hf = require('tokenizers');
const texts = require('./texts.js');

const outRoot = path.join(__dirname, '..');
const tokenizerFixtures = path.join(__dirname, '..', '..', '..', 'hftokenizer', 'testdata');

// model2vec's StaticModel.encode default.
const M2V_MAX_LENGTH = 512;
// model2vec drops the unknown id only when the tokenizer's Python model
// object has an `unk_token` attribute (`hasattr(tokenizer.model,
// "unk_token")`): WordPiece, BPE and WordLevel have one, Unigram does not
// (its unknown piece is `unk_id`), so for Unigram the unknown id is KEPT and
// averaged like any other id. model2vec-rs does the same (it reads
// model.unk_token from tokenizer.json, which Unigram lacks).
const M2V_DROP_UNIGRAM_UNK = false;

// ---------- deterministic randomness ----------

function mulberry32(seed) {
  let a = seed >>> 0;
  return function next() {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ---------- float16 ----------

const f32view = new DataView(new ArrayBuffer(4));

// float32 (given as a JS number that is exactly a float32) to IEEE binary16
// bits, rounding to nearest, ties to even.
function f32ToF16Bits(f) {
  f32view.setFloat32(0, f, true);
  const x = f32view.getUint32(0, true);
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  const mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e > 0) {
    let h = sign | (e << 10) | (mant >>> 13);
    const rest = mant & 0x1fff;
    if (rest > 0x1000 || (rest === 0x1000 && (h & 1))) h++; // may carry into the exponent, up to infinity
    return h;
  }
  if (exp === 0) return sign; // float32 subnormals are far below half the smallest float16 subnormal
  // Subnormal float16: value / 2^-24 = m * 2^(exp-126) with m the 24-bit significand.
  const m = mant | 0x800000;
  const shift = 126 - exp; // >= 14
  if (shift > 24) return sign; // below half of 2^-24
  let q = m >>> shift;
  const rest = m & ((1 << shift) - 1);
  const half = 1 << (shift - 1);
  if (rest > half || (rest === half && (q & 1))) q++;
  return sign | q;
}

function f16BitsToNumber(h) {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >>> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 0x1f) return m ? NaN : s * Infinity;
  return s * (1024 + m) * 2 ** (e - 25);
}

// Checks f32ToF16Bits against a brute-force nearest-even search.
function selfTestF16() {
  const all = [];
  for (let h = 0; h < 0x7c00; h++) all.push(f16BitsToNumber(h)); // non-negative finite, increasing
  const rnd = mulberry32(12345);
  const probes = [0, 2 ** -25, 2 ** -24, 1.5 * 2 ** -24, 2.5 * 2 ** -24, 65504, 65519.99, 65520, 1 / 3, 0.1];
  for (let i = 0; i < 20000; i++) probes.push(Math.fround(rnd() * 2 ** Math.floor(rnd() * 44 - 28)));
  for (let h = 0; h < 0x7c00; h++) {
    const a = all[h];
    const b = h + 1 < 0x7c00 ? all[h + 1] : 65536;
    probes.push(Math.fround((a + b) / 2), Math.fround(a + (b - a) * 0.4999), Math.fround(a + (b - a) * 0.5001));
  }
  for (const p0 of probes) {
    const p = Math.fround(p0);
    const got = f32ToF16Bits(p);
    let want;
    if (p >= 65520) want = 0x7c00;
    else {
      let lo = 0;
      let hi = all.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (all[mid] <= p) lo = mid;
        else hi = mid - 1;
      }
      want = lo;
      if (lo + 1 < all.length || p > all[lo]) {
        const up = lo + 1 < all.length ? all[lo + 1] : 65536;
        const dl = p - all[lo];
        const du = up - p;
        if (du < dl || (du === dl && (lo & 1))) want = lo + 1;
      }
    }
    if (got !== want) throw new Error(`f16 self-test: ${p} -> ${got.toString(16)}, want ${want.toString(16)}`);
    if (f32ToF16Bits(-p) !== (want | 0x8000)) throw new Error(`f16 self-test: sign of ${-p}`);
  }
}

// ---------- safetensors ----------

// The reference implementation's dtype order (increasing alignment); files
// are laid out by descending position here, then by name.
const DTYPE_ORDER = ['BOOL', 'F4', 'F6_E2M3', 'F6_E3M2', 'U8', 'I8', 'F8_E5M2', 'F8_E4M3', 'F8_E8M0',
  'F8_E4M3FNUZ', 'F8_E5M2FNUZ', 'I16', 'U16', 'F16', 'BF16', 'I32', 'U32', 'F32', 'C64', 'F64', 'I64', 'U64'];

function writeSafetensors(file, tensors) {
  const rank = (t) => {
    const r = DTYPE_ORDER.indexOf(t.dtype);
    if (r < 0) throw new Error(`unknown dtype ${t.dtype}`);
    return r;
  };
  const sorted = tensors.slice().sort((a, b) => rank(b) - rank(a) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  let header = '{"__metadata__":{"format":"pt"}';
  let offset = 0;
  for (const t of sorted) {
    const end = offset + t.data.length;
    header += `,${JSON.stringify(t.name)}:{"dtype":${JSON.stringify(t.dtype)},"shape":[${t.shape.join(',')}],"data_offsets":[${offset},${end}]}`;
    offset = end;
  }
  header += '}';
  while (Buffer.byteLength(header) % 8 !== 0) header += ' ';
  const hb = Buffer.from(header, 'utf8');
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(hb.length));
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, Buffer.concat([len, hb, ...sorted.map((t) => t.data)]));
}

function f32Bytes(values) {
  const b = Buffer.alloc(values.length * 4);
  values.forEach((v, i) => b.writeFloatLE(v, i * 4));
  return b;
}
function f64Bytes(values) {
  const b = Buffer.alloc(values.length * 8);
  values.forEach((v, i) => b.writeDoubleLE(v, i * 8));
  return b;
}
function u16Bytes(values) {
  const b = Buffer.alloc(values.length * 2);
  values.forEach((v, i) => b.writeUInt16LE(v, i * 2));
  return b;
}
function i64Bytes(values) {
  const b = Buffer.alloc(values.length * 8);
  values.forEach((v, i) => b.writeBigInt64LE(BigInt(v), i * 8));
  return b;
}
function i8Bytes(values) {
  const b = Buffer.alloc(values.length);
  values.forEach((v, i) => b.writeInt8(v, i));
  return b;
}

// ---------- vector maths (float64) ----------

function meanRows(rows, dim) {
  const v = new Array(dim).fill(0);
  if (rows.length === 0) return v;
  for (const r of rows) for (let j = 0; j < dim; j++) v[j] += r[j];
  for (let j = 0; j < dim; j++) v[j] /= rows.length;
  return v;
}

function l2normalize(v) {
  let s = 0;
  for (const x of v) s += x * x;
  const n = Math.sqrt(s) + 1e-32;
  return v.map((x) => x / n);
}

// ---------- tokenizer helpers ----------

async function ids(tok, text) {
  const enc = await tok.encode(text, null, { addSpecialTokens: false });
  return enc.getIds();
}

// model2vec: int(numpy.median([len(token) for token in vocab sorted by id])),
// len in code points, the vocabulary with added tokens (get_vocab()).
function medianTokenLength(tok) {
  const lens = Object.keys(tok.getVocab(true)).map((t) => [...t].length).sort((a, b) => a - b);
  const n = lens.length;
  const med = n % 2 ? lens[(n - 1) / 2] : (lens[n / 2 - 1] + lens[n / 2]) / 2;
  return { median: Math.trunc(med), raw: med, count: n };
}

// The id model2vec drops, or null.
function m2vUnkId(tokJson, tok) {
  const m = tokJson.model;
  if (m.type === 'Unigram') {
    if (!M2V_DROP_UNIGRAM_UNK || m.unk_id == null) return null;
    return m.unk_id;
  }
  if (m.unk_token == null) return null;
  const id = tok.tokenToId(m.unk_token);
  if (id == null) throw new Error(`unk_token ${m.unk_token} not in vocabulary`);
  return id;
}

// Unknown id of the tokenizer model (for checks), whatever model2vec does.
function modelUnkId(tokJson, tok) {
  const m = tokJson.model;
  if (m.type === 'Unigram') return m.unk_id;
  return tok.tokenToId(m.unk_token);
}

// ---------- models ----------

const dumpIds = process.argv.includes('--dump-ids');
const idDump = {};

function unknownOnlyTexts() {
  // Scripts none of the fixture vocabularies cover (checked below per model).
  return ['ᚠᛇᚻᛒᛦᚦ', '𓀀𓀁𓀂 ሰላም'];
}

function allTexts() {
  return [...texts.short, ...unknownOnlyTexts(), ...texts.long()];
}

function writeJSONL(file, lines) {
  fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
}

async function checkUnknownOnly(name, tok, tokJson) {
  const unk = modelUnkId(tokJson, tok);
  for (const t of unknownOnlyTexts()) {
    const got = await ids(tok, t);
    const tokens = got.map((i) => tok.idToToken(i));
    const ok = got.every((i, k) => i === unk || tokens[k] === '\u2581');
    if (!ok || !got.includes(unk)) throw new Error(`${name}: ${JSON.stringify(t)} is not unknown-only: ${JSON.stringify(tokens)}`);
    console.log(`  unknown-only ${JSON.stringify(t)}: ${JSON.stringify(tokens)}`);
  }
}

async function genStaticEmbedding() {
  const name = 'st-ja';
  const dir = path.join(outRoot, name);
  const sub = path.join(dir, '0_StaticEmbedding');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(sub, { recursive: true });
  const tokSrc = path.join(tokenizerFixtures, 'ja_unigram', 'tokenizer.json');
  fs.copyFileSync(tokSrc, path.join(sub, 'tokenizer.json'));
  const tok = hf.Tokenizer.fromFile(path.join(sub, 'tokenizer.json'));
  const tokJson = JSON.parse(fs.readFileSync(tokSrc, 'utf8'));
  if (tokJson.truncation != null || tokJson.padding != null) throw new Error(`${name}: tokenizer truncates or pads`);
  const vocab = tok.getVocabSize(true);
  const dim = 64;

  const rnd = mulberry32(0x57a71c01);
  const table = [];
  for (let i = 0; i < vocab; i++) {
    const row = [];
    for (let j = 0; j < dim; j++) row.push(Math.fround(rnd() - 0.5));
    table.push(row);
  }
  writeSafetensors(path.join(sub, 'model.safetensors'), [
    { name: 'embedding.weight', dtype: 'F32', shape: [vocab, dim], data: f32Bytes(table.flat()) },
  ]);
  fs.writeFileSync(path.join(dir, 'modules.json'), JSON.stringify([
    { idx: 0, name: '0', path: '0_StaticEmbedding', type: 'sentence_transformers.models.StaticEmbedding' },
  ], null, 2) + '\n');
  fs.writeFileSync(path.join(dir, 'config_sentence_transformers.json'), JSON.stringify({
    __version__: { sentence_transformers: '3.3.1' },
    prompts: {},
    default_prompt_name: null,
    similarity_fn_name: 'cosine',
  }, null, 2) + '\n');
  fs.writeFileSync(path.join(dir, 'README.md'), `---
language:
- ja
library_name: sentence-transformers
pipeline_tag: sentence-similarity
tags:
- sentence-transformers
- sentence-similarity
- loss:MatryoshkaLoss
---

# st-ja: tiny generated StaticEmbedding test model

A test fixture of the omoide project, not a real model: a sentence-transformers
\`StaticEmbedding\` folder whose ${vocab} x ${dim} float32 table is seeded random
numbers, with the \`ja_unigram\` test tokenizer. It stands in for a static model
trained with MatryoshkaLoss (matryoshka_dims 64, 32), so its vectors may be cut
to their first dimensions. Made by \`embed/testdata/static/gen/gen.js\`; see
\`embed/testdata/static/README.md\`. Licence: the omoide project's.
`);

  await checkUnknownOnly(name, tok, tokJson);
  const lines = [];
  const dumps = [];
  for (const D of [dim, 32]) {
    for (const text of allTexts()) {
      const got = await ids(tok, text); // unknown ids included, no truncation
      const rows = got.map((i) => table[i].slice(0, D));
      lines.push({ text, dim: D, vector: meanRows(rows, D) });
      if (D === dim) dumps.push({ text, ids: got });
    }
  }
  writeJSONL(path.join(dir, 'expected.jsonl'), lines);
  idDump[name] = dumps;
  console.log(`${name}: vocab ${vocab}, dim ${dim}, ${lines.length} expected lines`);
}

async function genModel2Vec(spec) {
  const { name, tokenizer, seed, dim, dtype, rows: nRows, mapping: useMapping, weights: useWeights, config, truncDims } = spec;
  const dir = path.join(outRoot, name);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const tokSrc = path.join(tokenizerFixtures, tokenizer, 'tokenizer.json');
  fs.copyFileSync(tokSrc, path.join(dir, 'tokenizer.json'));
  const tok = hf.Tokenizer.fromFile(path.join(dir, 'tokenizer.json'));
  const tokJson = JSON.parse(fs.readFileSync(tokSrc, 'utf8'));
  if (tokJson.truncation != null || tokJson.padding != null) throw new Error(`${name}: tokenizer truncates or pads`);
  const vocab = tok.getVocabSize(true);
  const idsById = Object.values(tok.getVocab(true)).sort((a, b) => a - b);
  if (idsById.length !== vocab || idsById.some((v, i) => v !== i)) throw new Error(`${name}: vocabulary ids are not 0..n-1`);
  const rnd = mulberry32(seed);
  const rows = useMapping ? nRows : vocab;

  // Table, as stored and as exact float64 values.
  let stored;
  let values;
  if (dtype === 'F16') {
    stored = [];
    for (let i = 0; i < rows * dim; i++) stored.push(f32ToF16Bits(Math.fround(rnd() - 0.5)));
    // A few exact special values so decoders meet subnormals, -0 and the
    // smallest normal.
    const special = [[0, 5, 0x0003], [1, 7, 0x8000], [2, 0, 0x03ff], [3, 1, 0x0400], [4, 2, 0x8001], [5, 3, 0x4180]];
    for (const [r, c, h] of special) stored[r * dim + c] = h;
    values = stored.map(f16BitsToNumber);
  } else if (dtype === 'I8') {
    stored = [];
    for (let i = 0; i < rows * dim; i++) stored.push(Math.floor(rnd() * 255) - 127);
    values = stored.slice();
  } else {
    throw new Error(`unsupported dtype ${dtype}`);
  }
  const table = [];
  for (let r = 0; r < rows; r++) table.push(values.slice(r * dim, (r + 1) * dim));

  let mapping = null;
  if (useMapping) {
    mapping = [];
    for (let i = 0; i < vocab; i++) mapping.push(Math.floor(rnd() * rows));
    const used = new Set(mapping);
    if (used.size !== rows) throw new Error(`${name}: mapping leaves rows unused`);
  }
  let weights = null;
  if (useWeights) {
    weights = [];
    for (let i = 0; i < vocab; i++) weights.push(0.2 + 1.8 * rnd());
  }

  const tensors = [{
    name: 'embeddings', dtype, shape: [rows, dim],
    data: dtype === 'F16' ? u16Bytes(stored) : i8Bytes(stored),
  }];
  if (mapping) tensors.push({ name: 'mapping', dtype: 'I64', shape: [vocab], data: i64Bytes(mapping) });
  if (weights) tensors.push({ name: 'weights', dtype: 'F64', shape: [vocab], data: f64Bytes(weights) });
  writeSafetensors(path.join(dir, 'model.safetensors'), tensors);
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config, null, 4) + '\n');

  const med = medianTokenLength(tok);
  const unkDrop = m2vUnkId(tokJson, tok);
  const cut = M2V_MAX_LENGTH * med.median;
  console.log(`${name}: vocab ${vocab}, rows ${rows}, dim ${dim}, median token length ${med.raw} -> ${med.median}` +
    ` (of ${med.count}), character cut ${cut}, model unk id ${modelUnkId(tokJson, tok)}, dropped id ${unkDrop}`);
  await checkUnknownOnly(name, tok, tokJson);

  const encodeIds = async (text) => {
    const cps = [...text];
    let got = await ids(tok, cps.slice(0, cut).join(''));
    const nTok = got.length;
    if (unkDrop != null) got = got.filter((i) => i !== unkDrop);
    const nKept = got.length;
    got = got.slice(0, M2V_MAX_LENGTH);
    return { got, cps: cps.length, nTok, nKept };
  };

  const lines = [];
  const dumps = [];
  for (const D of [dim, ...truncDims]) {
    for (const text of allTexts()) {
      const { got, cps, nTok, nKept } = await encodeIds(text);
      if (D === dim && cps > 1000) {
        // Would a cut in UTF-16 units have given other ids?
        const u16 = await ids(tok, text.slice(0, cut));
        let u = unkDrop != null ? u16.filter((i) => i !== unkDrop) : u16;
        u = u.slice(0, M2V_MAX_LENGTH);
        const differs = u.length !== got.length || u.some((v, i) => v !== got[i]);
        console.log(`  long text: ${cps} code points, cut ${Math.min(cps, cut)}, ${nTok} ids, ${nKept} after unk removal,` +
          ` ${got.length} used${nKept > M2V_MAX_LENGTH ? ' (token cap applied)' : ''}; UTF-16 cut would ${differs ? 'differ' : 'NOT differ'}`);
      }
      const emb = got.map((i) => {
        const row = table[mapping ? mapping[i] : i].slice(0, D);
        return weights ? row.map((x) => x * weights[i]) : row;
      });
      let v = meanRows(emb, D);
      if (config.normalize) v = l2normalize(v);
      lines.push({ text, dim: D, vector: v });
      if (D === dim && dumpIds) {
        const cutText = [...text].slice(0, cut).join('');
        dumps.push({ text, cutText, raw: await ids(tok, cutText), ids: got });
      }
    }
  }
  writeJSONL(path.join(dir, 'expected.jsonl'), lines);
  idDump[name] = dumps;
  console.log(`${name}: ${lines.length} expected lines`);
}

async function main() {
  selfTestF16();
  await genStaticEmbedding();
  await genModel2Vec({
    name: 'm2v-multi',
    tokenizer: 'multi_unigram_precompiled',
    seed: 0x6d2f7601,
    dim: 64,
    dtype: 'F16',
    rows: 97,
    mapping: true,
    weights: true,
    truncDims: [32],
    config: {
      model_type: 'model2vec',
      architectures: ['StaticModel'],
      tokenizer_name: 'omoide/multi_unigram_precompiled (generated test tokenizer)',
      apply_pca: 64,
      apply_zipf: true,
      hidden_dim: 64,
      seq_length: 1000000,
      normalize: true,
      embedding_dtype: 'float16',
      vocabulary_quantization: 97,
    },
  });
  await genModel2Vec({
    name: 'm2v-en',
    tokenizer: 'en_wordpiece',
    seed: 0x6d2f7602,
    dim: 48,
    dtype: 'I8',
    mapping: false,
    weights: false,
    truncDims: [],
    config: {
      model_type: 'model2vec',
      architectures: ['StaticModel'],
      tokenizer_name: 'omoide/en_wordpiece (generated test tokenizer)',
      apply_pca: null,
      apply_zipf: true,
      hidden_dim: 48,
      seq_length: 1000000,
      normalize: false,
      embedding_dtype: 'int8',
    },
  });
  if (dumpIds) {
    const file = process.argv[process.argv.indexOf('--dump-ids') + 1];
    fs.writeFileSync(file, JSON.stringify(idDump));
    console.log(`ids written to ${file}`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
