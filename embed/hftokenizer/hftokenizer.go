// Package hftokenizer reads a Hugging Face tokenizer.json and encodes text to
// the same token ids as Hugging Face's tokenizers library (the Rust crate),
// for the tokenizers that static embedding models ship: Unigram
// (sentencepiece) and WordPiece (BERT) models with their usual normalizers and
// pre-tokenizers.
//
// The pipeline is the crate's: added tokens (such as "[SEP]" or "<mask>") are
// split out of the raw text, the rest is normalized, split out again for
// normalized added tokens, pre-tokenized, and each piece goes through the
// model. Encode never adds special tokens ([CLS], <s>, ...), like
// encode(text, add_special_tokens=False), which is how model2vec and
// sentence-transformers' StaticEmbedding call it.
//
// Supported components:
//   - models: Unigram (unk_id required, byte_fallback honoured), WordPiece;
//   - normalizers: Sequence, NFC, NFD, NFKC, NFKD, Lowercase, Strip,
//     StripAccents, Replace (String, or a Regex without Unicode classes,
//     anchors or flags), Prepend, Nmt, BertNormalizer, Precompiled
//     (sentencepiece's precompiled_charsmap);
//   - pre-tokenizers: Sequence, Metaspace, WhitespaceSplit, Whitespace,
//     BertPreTokenizer, Punctuation, Digits;
//   - added_tokens with single_word, lstrip, rstrip and normalized;
//   - truncation (max_length, direction).
//
// Anything else (BPE, byte-level, other regexes, unknown types) makes Load
// fail with an error naming it, rather than encode differently. Padding, the
// post-processor and the decoder are ignored: they do not change the ids of
// an unpadded encoding without special tokens.
//
// Text that is not valid UTF-8 has each invalid byte replaced by U+FFFD
// before encoding (Rust strings are always valid UTF-8).
//
// Character data come from Go's unicode package and golang.org/x/text,
// corrected by compat_tables.go where the crate's own tables (Unicode 9
// normalization, older categories, a newer standard library) disagree; the
// corrections were measured on the reference over every code point. Grapheme
// clusters (used by the Precompiled normalizer) follow UAX #29 on the same
// data. Scores are parsed the way serde_json does, which is not always
// correctly rounded, since a one-ulp difference can change a segmentation.
package hftokenizer

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"unicode/utf8"
)

// Tokenizer encodes text to token ids like the Hugging Face tokenizer.json
// it was loaded from. It is read-only after Load and safe for concurrent use.
type Tokenizer struct {
	normalizer normalizer   // nil: none
	pre        preTokenizer // nil: none
	model      model
	added      addedVocab
	addedIDs   map[string]int // added token content -> id
	maxLength  int            // truncation; < 0: none
	truncLeft  bool
	vocabSize  int
}

// LoadFile reads a tokenizer.json file.
func LoadFile(path string) (*Tokenizer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("hftokenizer: %w", err)
	}
	defer f.Close()
	t, err := Load(f)
	if err != nil {
		return nil, fmt.Errorf("%w (%s)", err, path)
	}
	return t, nil
}

// Load reads a tokenizer.json document.
func Load(r io.Reader) (*Tokenizer, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("hftokenizer: read tokenizer.json: %w", err)
	}
	t, err := parse(data)
	if err != nil {
		return nil, fmt.Errorf("hftokenizer: %w", err)
	}
	return t, nil
}

func parse(data []byte) (*Tokenizer, error) {
	if !utf8.Valid(data) {
		return nil, errors.New("tokenizer.json is not valid UTF-8")
	}
	var f fileJSON
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("parse tokenizer.json: %w", err)
	}
	if f.Version != nil && *f.Version != "1.0" {
		return nil, fmt.Errorf("tokenizer.json version %q is not supported", *f.Version)
	}
	t := &Tokenizer{maxLength: -1}
	var err error
	if t.model, err = parseModel(f.Model); err != nil {
		return nil, err
	}
	if !isNull(f.Normalizer) {
		if t.normalizer, err = parseNormalizer(f.Normalizer); err != nil {
			return nil, err
		}
	}
	if !isNull(f.PreTokenizer) {
		if t.pre, err = parsePreTokenizer(f.PreTokenizer); err != nil {
			return nil, err
		}
	}
	if f.Truncation != nil {
		switch f.Truncation.Direction {
		case "", "Right":
		case "Left":
			t.truncLeft = true
		default:
			return nil, fmt.Errorf("truncation direction %q is not supported", f.Truncation.Direction)
		}
		if f.Truncation.MaxLength < 0 {
			return nil, errors.New("truncation max_length is negative")
		}
		t.maxLength = f.Truncation.MaxLength
	}
	if err := t.addTokens(f.AddedTokens); err != nil {
		return nil, err
	}
	t.vocabSize = t.model.maxTokenID() + 1
	for id := range t.added.tokens {
		t.vocabSize = max(t.vocabSize, id+1)
	}
	return t, nil
}

// addTokens registers the added tokens the way the crate does on load: the
// ids in the file are not used; a token takes its id in the model's vocab,
// or the next id after the vocab.
func (t *Tokenizer) addTokens(list []addedTokenJSON) error {
	t.added.tokens = make(map[int]addedToken)
	t.addedIDs = make(map[string]int)
	normCache := make(map[int]string)
	next := t.model.size()
	for _, j := range list {
		tok := addedToken{content: j.Content, singleWord: j.SingleWord, lstrip: j.LStrip,
			rstrip: j.RStrip, special: j.Special, normalized: !j.Special}
		if j.Normalized != nil {
			tok.normalized = *j.Normalized
		}
		if tok.content == "" {
			continue
		}
		if id, ok := t.addedIDs[tok.content]; ok && t.added.tokens[id] == tok {
			continue
		}
		id, ok := t.addedIDs[tok.content]
		if !ok {
			if id, ok = t.model.tokenID(tok.content); !ok {
				id = next
				next++
			}
		}
		if tok.normalized && t.normalizer != nil {
			n := newNormString(tok.content)
			t.normalizer.normalize(n)
			if n.norm != tok.content {
				normCache[id] = n.norm
			}
		}
		t.addedIDs[tok.content] = id
		t.added.tokens[id] = tok
	}
	var rawPats, normPats []string
	var rawIDs, normIDs []int
	for id, tok := range t.added.tokens {
		if tok.normalized {
			p, ok := normCache[id]
			if !ok {
				p = tok.content
			}
			normPats, normIDs = append(normPats, p), append(normIDs, id)
		} else {
			rawPats, rawIDs = append(rawPats, tok.content), append(rawIDs, id)
		}
	}
	var err error
	if t.added.raw, err = newTokenMatcher(rawPats, rawIDs); err != nil {
		return err
	}
	if t.added.norm, err = newTokenMatcher(normPats, normIDs); err != nil {
		return err
	}
	return nil
}

// Encode returns the token ids of text without special tokens, as Hugging
// Face's tokenizer.encode(text, add_special_tokens=False).ids would, with the
// tokenizer.json's truncation applied if it has one.
func (t *Tokenizer) Encode(text string) []int {
	text = sanitize(text)
	pieces := []piece{{ns: newNormString(text), id: -1}}
	pieces = splitPieces(pieces, func(n *normString) []piece { return t.added.split(n, t.added.raw) })
	pieces = splitPieces(pieces, func(n *normString) []piece {
		if t.normalizer != nil {
			t.normalizer.normalize(n)
		}
		return t.added.split(n, t.added.norm)
	})
	if t.pre != nil {
		pieces = t.pre.preTokenize(pieces)
	}
	ids := make([]int, 0, len(text)/2+1)
	for _, p := range pieces {
		if p.id >= 0 {
			ids = append(ids, p.id)
		} else {
			ids = t.model.tokenize(p.ns.norm, ids)
		}
	}
	if t.maxLength >= 0 && len(ids) > t.maxLength {
		if t.truncLeft {
			ids = ids[len(ids)-t.maxLength:]
		} else {
			ids = ids[:t.maxLength]
		}
	}
	return ids
}

// VocabSize is one more than the largest id Encode can return: every id is
// in [0, VocabSize()).
func (t *Tokenizer) VocabSize() int { return t.vocabSize }

// Vocab returns the tokens of the crate's get_vocab() (the model's and the
// added ones) in the order of their ids.
func (t *Tokenizer) Vocab() []string {
	ids := maps.Clone(t.model.vocabIDs())
	for c, id := range t.addedIDs {
		ids[c] = id
	}
	type entry struct {
		tok string
		id  int
	}
	es := make([]entry, 0, len(ids))
	for tok, id := range ids {
		es = append(es, entry{tok, id})
	}
	slices.SortFunc(es, func(a, b entry) int { return cmp.Or(cmp.Compare(a.id, b.id), strings.Compare(a.tok, b.tok)) })
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.tok
	}
	return out
}

// UnkToken returns the model's unk_token and its id: a WordPiece model has
// one; a Unigram model names only an unk_id and has none, as the crate's
// Python binding shows (model2vec drops unk_token's id from a text's ids).
func (t *Tokenizer) UnkToken() (token string, id int, ok bool) { return t.model.unkToken() }

// TokenID returns the id of a token string (an added token or a vocabulary
// piece, such as "▁東京" or "##ing"), like the crate's token_to_id.
func (t *Tokenizer) TokenID(token string) (int, bool) {
	if id, ok := t.addedIDs[token]; ok {
		return id, true
	}
	return t.model.tokenID(token)
}

// sanitize replaces each byte that is not part of valid UTF-8 with U+FFFD.
func sanitize(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && w == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+w])
		}
		i += w
	}
	return b.String()
}
