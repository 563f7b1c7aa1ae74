package embed

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/omoide/omoide/internal/parallel"
	"github.com/omoide/omoide/internal/pytext"
)

// DefaultHashDim is the dimension NewHash uses when HashOptions.Dim is zero.
const DefaultHashDim = 256

// hashName is the Identity name of the hash embedder. The version suffix names
// the algorithm: bump it ("hash-v2", ...) whenever anything that changes the
// vectors changes (normalisation, features, weights, hash function, bucket or
// sign selection), so that a store built with the old vectors refuses to open
// instead of silently mixing two spaces.
const hashName = "hash-v1"

// hashTermsSuffix is appended to the Identity name when a Terms function is
// set: vectors with and without word features live in different spaces.
const hashTermsSuffix = "+w"

// Feature weights. Character bigrams and trigrams both count 1; a word from
// the segmenter counts 2, because a whole word (e.g. "ラーメン") is a stronger
// signal than any one of the overlapping n-grams that spell it.
const (
	ngramWeight = 1
	termWeight  = 2
)

// HashOptions configures NewHash. The zero value is valid.
type HashOptions struct {
	// Dim is the vector dimension (the number of hash buckets). Zero means
	// DefaultHashDim; negative values are rejected.
	Dim int

	// Terms optionally returns the word segmenter's terms for a text; each one
	// becomes an extra "w:"-prefixed feature with a higher weight than a
	// character n-gram. It receives the already normalised text (NFKC,
	// lower-cased, whitespace compacted) and must be deterministic and safe for
	// concurrent use. Nil means character n-grams only.
	Terms func(string) []string
}

// Hash is the offline default Embedder: a "hashing trick" bag of character
// n-grams, with no model, no network and no state.
//
// It is lexical, not semantic. Two texts are close when they share character
// bigrams and trigrams (and, with HashOptions.Terms, words); it knows nothing
// about meaning, so synonyms, paraphrases, translations and different scripts
// for the same word (e.g. "らーめん" vs "ラーメン", "ramen") are not matched.
// For semantic neighbours use OpenAI with a real embedding model.
//
// Algorithm (Identity name "hash-v1"; "hash-v1+w" when Terms is set):
//
//  1. The text is NFKC-normalised (full-width Latin and digits become ASCII,
//     half-width katakana become full-width), lower-cased, and whitespace is
//     compacted to single spaces with the ends trimmed.
//  2. Features are the character 2-grams and 3-grams over its code points,
//     with the text padded by one space at each end. Spaces are kept, so word
//     boundaries in spaced scripts become features (" ab", "b c"). Unigrams
//     are not used: for Japanese, single kana and kanji are too frequent to
//     carry signal and mostly add noise.
//  3. With Terms set, each term adds the feature "w:"+term.
//  4. Each feature is hashed with 64-bit FNV-1a followed by the MurmurHash3
//     fmix64 finaliser (plain FNV-1a's low bits depend only on the low bits of
//     each input byte, which would make buckets collide for small Dims).
//     Bucket = h mod Dim; the top bit of h chooses the sign (+ or -) added, so
//     collisions cancel out on average instead of piling up.
//  5. Term frequency is linear (a repeated n-gram counts again) and the result
//     is L2-normalised, so the dot product of two vectors is their cosine.
//
// An empty (or whitespace-only) text has no features and embeds to the zero
// vector, which has no meaningful cosine with anything: it has no neighbours.
// Callers should not embed empty queries. (A non-empty text's features can in
// theory cancel out exactly in every bucket; that, too, yields zeros.)
//
// Results are deterministic across runs, machines and architectures: nothing
// depends on map iteration order or randomness, and the per-bucket sums are of
// small integers, which float32 represents exactly in any order.
//
// Hash is immutable after construction and safe for concurrent use, provided
// the Terms function is.
type Hash struct {
	dim   int
	terms func(string) []string
	id    Identity
}

var _ Embedder = (*Hash)(nil)

// NewHash returns a hash embedder configured by opts.
func NewHash(opts HashOptions) (*Hash, error) {
	dim := opts.Dim
	switch {
	case dim == 0:
		dim = DefaultHashDim
	case dim < 0:
		return nil, fmt.Errorf("embed: hash: dimension must be positive, got %d", opts.Dim)
	}
	name := hashName
	if opts.Terms != nil {
		name += hashTermsSuffix
	}
	return &Hash{dim: dim, terms: opts.Terms, id: Identity{Name: name, Dim: dim}}, nil
}

// Identity returns {"hash-v1", Dim}, or {"hash-v1+w", Dim} when a Terms
// function is set.
func (h *Hash) Identity() Identity { return h.id }

// Lexical reports true: Hash vectors are bags of character n-grams and words.
func (h *Hash) Lexical() bool { return true }

// IsHash reports whether id names a Hash embedder's vectors, lexical ones.
func IsHash(id Identity) bool { return id.Name == hashName || id.Name == hashName+hashTermsSuffix }

// Embed returns one L2-normalised vector of Dim values per text, in order. It
// returns an error only when ctx is done (checked before every text) or h is
// a zero-value Hash not made by NewHash.
func (h *Hash) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("embed: hash: %w", err)
	}
	if h.dim <= 0 {
		return nil, errNoDim
	}
	out := make([][]float32, len(texts))
	// Large batches (ingest) are spread over the cores; ctx is checked as
	// each text starts.
	var cancelled atomic.Bool
	parallel.For(len(texts), func(i int) {
		if cancelled.Load() || (i > 0 && ctx.Err() != nil) {
			cancelled.Store(true)
			return
		}
		out[i] = h.embed(texts[i])
	})
	if cancelled.Load() {
		return nil, fmt.Errorf("embed: hash: %w", ctx.Err())
	}
	return out, nil
}

// errNoDim guards against a zero-value Hash (not made by NewHash).
var errNoDim = errors.New("embed: hash: zero-value Hash; use NewHash")

// embed computes the vector of one text.
func (h *Hash) embed(text string) []float32 {
	v := make([]float32, h.dim)
	s := normalizeForHash(text)
	if s == "" {
		return v
	}
	h.addNgrams(v, s)
	if h.terms != nil {
		for _, t := range h.terms(s) {
			t = strings.ToLower(t) // no allocation when already lower-case
			if t == "" {
				continue
			}
			h.add(v, fnvString(fnvString(fnvOffset64, "w:"), t), termWeight)
		}
	}
	l2normalize(v)
	return v
}

// normalizeForHash applies NFKC, lower-casing and whitespace compaction. Each
// step returns its input unchanged (without allocating) when there is nothing
// to do.
func normalizeForHash(text string) string {
	return pytext.Compact(strings.ToLower(norm.NFKC.String(text)))
}

// Sentinels for the n-gram window: padStart marks the virtual leading space,
// none marks "no rune yet".
const (
	padStart = -1
	none     = -2
)

// addNgrams adds the 2- and 3-grams of " "+s+" " to v without building the
// padded string or any substring: every n-gram is a byte range of s, possibly
// preceded and/or followed by the virtual pad space.
func (h *Hash) addNgrams(v []float32, s string) {
	// w1 and w2 are the byte offsets of the starts of the previous rune and
	// the one before it (padStart for the leading pad, none before that).
	w2, w1 := none, padStart
	for i := 0; i < len(s); {
		_, size := utf8.DecodeRuneInString(s[i:]) // an invalid byte is 1 wide
		end := i + size
		h.add(v, hashSpan(s, w1, end, false), ngramWeight)
		if w2 != none {
			h.add(v, hashSpan(s, w2, end, false), ngramWeight)
		}
		w2, w1 = w1, i
		i = end
	}
	// Trailing pad. s is non-empty, so w1 >= 0.
	h.add(v, hashSpan(s, w1, len(s), true), ngramWeight)
	if w2 != none {
		h.add(v, hashSpan(s, w2, len(s), true), ngramWeight)
	}
}

// hashSpan hashes s[from:to], preceded by a space when from is padStart and
// followed by one when trailPad is set.
func hashSpan(s string, from, to int, trailPad bool) uint64 {
	hv := uint64(fnvOffset64)
	if from == padStart {
		hv = fnvByte(hv, ' ')
		from = 0
	}
	hv = fnvString(hv, s[from:to])
	if trailPad {
		hv = fnvByte(hv, ' ')
	}
	return hv
}

// add folds a feature hash into v with weight w.
func (h *Hash) add(v []float32, fh uint64, w float32) {
	m := fmix64(fh)
	b := m % uint64(h.dim)
	if m>>63 != 0 {
		w = -w
	}
	v[b] += w
}

// l2normalize scales v to unit length; a zero vector stays zero.
func l2normalize(v []float32) {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return
	}
	inv := 1 / math.Sqrt(sum)
	for i, x := range v {
		v[i] = float32(float64(x) * inv)
	}
}

// 64-bit FNV-1a (the same function as hash/fnv.New64a), inlined so hashing a
// feature allocates nothing.
const (
	fnvOffset64 = 14695981039346656037
	fnvPrime64  = 1099511628211
)

func fnvByte(h uint64, c byte) uint64 {
	return (h ^ uint64(c)) * fnvPrime64
}

func fnvString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * fnvPrime64
	}
	return h
}

// fmix64 is MurmurHash3's 64-bit finaliser: it makes every output bit depend
// on every input bit.
func fmix64(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	k ^= k >> 33
	return k
}
