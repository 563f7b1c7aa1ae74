"""Independent check of the generated fixtures with numpy.

    node gen.js --dump-ids /tmp/static_ids.json && python3 check.py /tmp/static_ids.json

Parses each model.safetensors (header, padding, layout order, offsets),
recomputes every expected.jsonl line with numpy the way the libraries do
(model2vec's StaticModel._encode_batch and tokenize, sentence-transformers'
EmbeddingBag mean), redoing model2vec's character cut, unknown-id removal
and 512-token cap from the raw ids of the cut text, and compares.
Needs numpy (Debian: python3-numpy); make test never runs it.
"""
import json
import os
import struct
import sys

import numpy as np

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..') + '/'
dump = json.load(open(sys.argv[1]))
ORDER = ['BOOL','F4','F6_E2M3','F6_E3M2','U8','I8','F8_E5M2','F8_E4M3','F8_E8M0','F8_E4M3FNUZ','F8_E5M2FNUZ','I16','U16','F16','BF16','I32','U32','F32','C64','F64','I64','U64']
NP = {'F16': np.float16, 'F32': np.float32, 'F64': np.float64, 'I8': np.int8, 'I64': np.int64}

def load(path):
    b = open(path, 'rb').read()
    n = struct.unpack('<Q', b[:8])[0]
    assert n % 8 == 0
    hs = b[8:8+n].decode()
    assert hs.rstrip(' ').endswith('}') and len(hs) - len(hs.rstrip(' ')) < 8  # padded with spaces only
    h = json.loads(hs, object_pairs_hook=list)
    keys = [k for k, _ in h]
    assert keys[0] == '__metadata__' and dict(h)['__metadata__'] == [('format', 'pt')], h
    ents = h[1:]
    # layout order = header order, sorted by dtype desc then name
    exp = sorted(ents, key=lambda e: (-ORDER.index(dict(e[1])['dtype']), e[0]))
    assert [e[0] for e in exp] == [e[0] for e in ents]
    data = b[8+n:]
    off = 0; out = {}
    for name, info in ents:
        info = dict(info)
        s, e = info['data_offsets']; assert s == off; off = e
        arr = np.frombuffer(data[s:e], dtype=np.dtype(NP[info['dtype']]).newbyteorder('<')).reshape(info['shape'])
        out[name] = arr
    assert off == len(data)
    print(' ', os.path.relpath(path, root), [(k, dict(v)['dtype'], dict(v)['shape']) for k, v in ents], 'header', n)
    return out

def vocab_tokens(tj):
    m = tj['model']
    if m['type'] == 'Unigram':
        toks = {p[0]: i for i, p in enumerate(m['vocab'])}
    else:
        toks = dict(m['vocab'])
    for a in tj['added_tokens']:
        toks[a['content']] = a['id']
    return [t for t, _ in sorted(toks.items(), key=lambda x: x[1])], toks

def compare(name, expected_path, compute):
    worst = 0; n = 0
    for line in open(expected_path):
        o = json.loads(line)
        want = compute(o['text'], o['dim'])
        got = np.array(o['vector'])
        assert got.shape == want.shape
        d = np.max(np.abs(got - want)) if len(got) else 0
        worst = max(worst, d); n += 1
    print(f'  {name}: {n} lines, max abs diff {worst:.3g}')
    assert worst < 1e-12

# st-ja
t = load(root + 'st-ja/0_StaticEmbedding/model.safetensors')['embedding.weight']
ids = {d['text']: d['ids'] for d in dump['st-ja']}
def st(text, D):
    i = ids[text]
    if not i: return np.zeros(D)
    return t[i][:, :D].astype(np.float64).mean(axis=0)
compare('st-ja', root + 'st-ja/expected.jsonl', st)

for name in ['m2v-multi', 'm2v-en']:
    tj = json.load(open(root + name + '/tokenizer.json'))
    cfg = json.load(open(root + name + '/config.json'))
    ts = load(root + name + '/model.safetensors')
    emb = ts['embeddings']; weights = ts.get('weights'); mapping = ts.get('mapping')
    tokens, tokmap = vocab_tokens(tj)
    median = int(np.median([len(x) for x in tokens]))
    # model2vec: hasattr(tokenizer.model, 'unk_token'); the Python Unigram model has none.
    unk = tokmap[tj['model']['unk_token']] if 'unk_token' in tj['model'] else None
    print(f'  {name}: median {median} unk {unk} emb {emb.dtype} {emb.shape}')
    dd = {d['text']: d for d in dump[name]}
    def m2v(text, D, max_length=512):
        d = dd[text]
        m = max_length * median
        assert text[:m] == d['cutText']
        x = d['raw']
        if unk is not None: x = [i for i in x if i != unk]
        x = x[:max_length]
        assert x == d['ids']
        E = emb[:, :D]
        if x:
            r = E[x] if mapping is None else E[mapping[x]]
            if weights is not None: r = r * weights[x][:, None]
            v = r.mean(axis=0)
        else:
            v = np.zeros(D)
        v = v[None, :]
        if cfg['normalize']:
            v = v / (np.linalg.norm(v, axis=1, keepdims=True) + 1e-32)
        return v[0].astype(np.float64)
    compare(name, root + name + '/expected.jsonl', m2v)
print('OK')
