package hftokenizer

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// model turns one pre-tokenized piece into ids.
type model interface {
	tokenize(s string, dst []int) []int
	tokenID(piece string) (int, bool)
	size() int       // the crate's get_vocab_size
	maxTokenID() int // largest id the model can return
	vocabIDs() map[string]int
	// unkToken is the model's unk_token (WordPiece has one; Unigram names
	// only an unk_id, as the crate's Python binding shows).
	unkToken() (string, int, bool)
}

// byteTrie is a read-only trie over the vocabulary's bytes for
// common-prefix search. Node 0 is the root; children are kept sorted.
type byteTrie struct {
	root   [256]int32 // child of the root per byte, -1 if none
	id     []int32    // vocabulary id ending at each node, -1 if none
	first  []int32    // index of the node's first edge in labels/child
	count  []int32
	labels []byte
	child  []int32
}

func newByteTrie(pieces []string, ids []int) *byteTrie {
	// Sort the pieces themselves (not indexes into them): the comparisons
	// read neighbouring memory, which at 500k pieces is most of the load.
	type entry struct {
		piece string
		id    int
	}
	es := make([]entry, len(pieces))
	size := 0
	for i, p := range pieces {
		es[i] = entry{p, ids[i]}
		size += len(p)
	}
	slices.SortFunc(es, func(a, b entry) int { return strings.Compare(a.piece, b.piece) })
	pieces, ids = make([]string, len(es)), make([]int, len(es))
	order := make([]int, len(es))
	for i, e := range es {
		pieces[i], ids[i], order[i] = e.piece, e.id, i
	}
	t := &byteTrie{id: make([]int32, 0, size+1), first: make([]int32, 0, size+1), count: make([]int32, 0, size+1),
		labels: make([]byte, 0, size), child: make([]int32, 0, size)}
	for i := range t.root {
		t.root[i] = -1
	}
	newNode := func() int32 {
		t.id = append(t.id, -1)
		t.first = append(t.first, 0)
		t.count = append(t.count, 0)
		return int32(len(t.id) - 1)
	}
	var bounds []int // group boundaries of the nodes being built, as a stack
	// build fills node from the sorted pieces order[lo:hi], which share
	// their first depth bytes.
	var build func(node int32, lo, hi, depth int)
	build = func(node int32, lo, hi, depth int) {
		if lo < hi && len(pieces[order[lo]]) == depth {
			t.id[node] = int32(ids[order[lo]])
			lo++
		}
		base := len(bounds)
		for i := lo; i < hi; i++ {
			if i == lo || pieces[order[i]][depth] != pieces[order[i-1]][depth] {
				bounds = append(bounds, i)
			}
		}
		bounds = append(bounds, hi)
		groups := len(bounds) - base - 1
		first := int32(len(t.labels))
		t.first[node], t.count[node] = first, int32(groups)
		for g := 0; g < groups; g++ {
			t.labels = append(t.labels, pieces[order[bounds[base+g]]][depth])
			t.child = append(t.child, 0)
		}
		for g := 0; g < groups; g++ {
			child := newNode()
			t.child[first+int32(g)] = child
			build(child, bounds[base+g], bounds[base+g+1], depth+1)
		}
		bounds = bounds[:base]
	}
	build(newNode(), 0, len(order), 0)
	for e := t.first[0]; e < t.first[0]+t.count[0]; e++ {
		t.root[t.labels[e]] = t.child[e]
	}
	return t
}

func (t *byteTrie) step(node int32, b byte) int32 {
	if node == 0 {
		return t.root[b]
	}
	lo, hi := t.first[node], t.first[node]+t.count[node]
	for lo < hi {
		mid := (lo + hi) / 2
		switch l := t.labels[mid]; {
		case l == b:
			return t.child[mid]
		case l < b:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return -1
}

// unigram is the crate's Unigram model (sentencepiece's unigram LM).
type unigram struct {
	pieces       []string
	scores       []float64
	ids          map[string]int // piece -> id; a repeated piece keeps its last id
	trie         *byteTrie
	unkID        int
	minScore     float64
	byteFallback bool
}

const unkPenalty = 10.0

func newUnigram(pieces []string, scores []float64, unkID *int, byteFallback bool) (*unigram, error) {
	if unkID == nil {
		return nil, errors.New("Unigram without unk_id is not supported")
	}
	if len(pieces) == 0 {
		return nil, errors.New("Unigram vocab is empty")
	}
	if *unkID < 0 || *unkID >= len(pieces) {
		return nil, fmt.Errorf("Unigram unk_id %d is outside the vocab of %d", *unkID, len(pieces))
	}
	m := &unigram{pieces: pieces, scores: scores, ids: make(map[string]int, len(pieces)),
		unkID: *unkID, byteFallback: byteFallback}
	m.minScore = math.Inf(1)
	for i, p := range pieces {
		m.ids[p] = i
		if scores[i] < m.minScore { // NaN never lowers it, as in the crate
			m.minScore = scores[i]
		}
	}
	uniq := make([]string, 0, len(m.ids))
	uids := make([]int, 0, len(m.ids))
	for p, id := range m.ids {
		uniq = append(uniq, p)
		uids = append(uids, id)
	}
	m.trie = newByteTrie(uniq, uids)
	return m, nil
}

func (m *unigram) size() int { return len(m.pieces) }

func (m *unigram) maxTokenID() int { return len(m.pieces) - 1 }

func (m *unigram) vocabIDs() map[string]int { return m.ids }

func (m *unigram) unkToken() (string, int, bool) { return "", 0, false }

func (m *unigram) tokenID(p string) (int, bool) {
	id, ok := m.ids[p]
	return id, ok
}

type bestPath struct {
	score float64
	start int // -1 until reached
	id    int
}

// tokenize is the crate's encode_optimized Viterbi: for each char boundary
// take every vocabulary piece starting there (shortest first), plus an unk
// node of one char when no single-char piece exists; keep the first best
// score per end position; then walk back, fusing runs of unk nodes.
func (m *unigram) tokenize(s string, dst []int) []int {
	if s == "" {
		return dst
	}
	n := len(s)
	best := make([]bestPath, n+1)
	for i := range best {
		best[i].start = -1
	}
	unkScore := m.minScore - unkPenalty
	for start := 0; start < n; {
		till := best[start].score
		mblen := runeWidth(s, start)
		hasSingle := false
		node := int32(0)
		for i := start; i < n; i++ {
			node = m.trie.step(node, s[i])
			if node < 0 {
				break
			}
			id := m.trie.id[node]
			if id < 0 {
				continue
			}
			end := i + 1
			cand := m.scores[id] + till
			if t := &best[end]; t.start < 0 || cand > t.score {
				t.score, t.start, t.id = cand, start, int(id)
			}
			if end-start == mblen {
				hasSingle = true
			}
		}
		if !hasSingle {
			cand := unkScore + till
			if t := &best[start+mblen]; t.start < 0 || cand > t.score {
				t.score, t.start, t.id = cand, start, m.unkID
			}
		}
		start += mblen
	}
	// Walk back from the end; pieces come out reversed.
	var rev []string
	fused := -1 // start of the pending run of unk nodes
	unkEnd := 0
	for end := n; end > 0; {
		b := best[end]
		if b.start < 0 || b.start >= end {
			break // unreachable: every char boundary has a node
		}
		if b.id == m.unkID {
			if fused < 0 {
				unkEnd = end
			}
			fused = b.start
		} else {
			if fused >= 0 {
				rev = append(rev, s[fused:unkEnd])
				fused = -1
			}
			rev = append(rev, s[b.start:end])
		}
		end = b.start
	}
	if fused >= 0 {
		rev = append(rev, s[fused:unkEnd])
	}
	for i := len(rev) - 1; i >= 0; i-- {
		dst = m.appendID(dst, rev[i])
	}
	return dst
}

// appendID maps a piece string to its id like the crate's tokenize: a vocab
// hit, else byte-fallback tokens <0xXX> if enabled and all present, else unk.
func (m *unigram) appendID(dst []int, p string) []int {
	if id, ok := m.ids[p]; ok {
		return append(dst, id)
	}
	if m.byteFallback {
		start := len(dst)
		var sb strings.Builder
		for i := 0; i < len(p); i++ {
			sb.Reset()
			fmt.Fprintf(&sb, "<0x%02X>", p[i])
			id, ok := m.ids[sb.String()]
			if !ok {
				dst = dst[:start]
				return append(dst, m.unkID)
			}
			dst = append(dst, id)
		}
		return dst
	}
	return append(dst, m.unkID)
}
