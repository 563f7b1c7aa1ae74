// Package thesaurus tells apart the ways two Japanese words can be near: the
// same thing (試験, テスト), one a kind of the other (彼氏, 恋人), or siblings
// under a common kind (京都, 奈良; 犬, 猫; 野球, サッカー), which learned word
// vectors put equally near.
//
// The table is derived by cmd/thesaurusgen from EDICT (JMdict/EDICT, EDRDG,
// CC BY-SA 3.0) and Princeton WordNet 3.0 (see NOTICE.md and LICENSE-EDICT,
// LICENSE-WordNet here), and embedded. A word is a common EDICT noun spelled
// as one query term of the default analyzer in Japanese text; its senses are
// the WordNet noun synsets of its English glosses (each gloss's first sense),
// or the gloss itself when WordNet has no such noun. The table keeps those
// synsets' hypernyms a few steps up.
//
// The embedded table is loaded on first use (Default) and only read after
// that, so a Table is safe for concurrent use.
package thesaurus

import (
	"bytes"
	"cmp"
	"compress/gzip"
	_ "embed"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
)

//go:embed thesaurus.txt.gz
var data []byte

// Relation is what the table says two words are to each other.
type Relation uint8

// The relations, weakest first: a stronger one wins over a weaker one.
const (
	None       Relation = iota // the table knows no relation between them, or does not know a word
	Sibling                    // co-hyponyms: different senses under a common hypernym near both
	KindOf                     // one is a kind of the other (a hypernym within a few steps)
	Equivalent                 // the same thing: a shared synset through their glosses, or the same exact gloss
)

// String returns "none", "sibling", "kind-of" or "equivalent".
func (r Relation) String() string {
	switch r {
	case None:
		return "none"
	case Sibling:
		return "sibling"
	case KindOf:
		return "kind-of"
	case Equivalent:
		return "equivalent"
	}
	return "Relation(" + strconv.Itoa(int(r)) + ")"
}

// The steps up WordNet's hypernyms (instance hypernyms count as a step) the
// relations look, chosen on the tests' pairs (docs/thesaurus.md).
const (
	kindUp    = 3 // KindOf: a word's synset is at most this far above the other's
	siblingUp = 2 // Sibling: a common hypernym at most this far above each
	maxUp     = max(kindUp, siblingUp)
)

// Table is a loaded thesaurus. It is read-only, so safe for concurrent use.
type Table struct {
	words []string         // sorted
	index map[string]int32 // word → its index in words

	// a word's senses and their hypernyms up to maxUp steps: the synset ids
	// ancs[off[i]:off[i+1]], sorted, and their steps up (0: its own)
	off  []int32
	ancs []int32
	ups  []uint8

	names   []string // a synset's first lemma, or a gloss node's gloss
	general []bool   // too broad a synset to make siblings

	// by synset: the words with it as their own sense (ownOff, own), and
	// with it 1..siblingUp steps up (sibOff, sib)
	ownOff, own []int32
	sibOff, sib []int32
}

// loaded is the embedded table, read once; the package's only state.
var loaded struct {
	once sync.Once
	t    *Table
	err  error
}

// Default returns the embedded table, loaded on the first call; later calls
// return the same table (or the same error).
func Default() (*Table, error) {
	loaded.once.Do(func() { loaded.t, loaded.err = Parse(data) })
	return loaded.t, loaded.err
}

// Has reports whether the table knows w.
func (t *Table) Has(w string) bool {
	_, ok := t.index[w]
	return ok
}

// Len returns the number of words the table knows.
func (t *Table) Len() int { return len(t.words) }

// Relate returns the strongest relation between any sense of a and any of b:
// symmetric; a == b is Equivalent; a word the table does not know is None.
// It allocates nothing.
func (t *Table) Relate(a, b string) Relation {
	if a == b {
		return Equivalent
	}
	i, ok := t.index[a]
	if !ok {
		return None
	}
	j, ok := t.index[b]
	if !ok {
		return None
	}
	return t.relate(i, j)
}

// relate is Relate of two words by index: a merge of their sorted synsets.
func (t *Table) relate(i, j int32) Relation {
	as, aup := t.ancs[t.off[i]:t.off[i+1]], t.ups[t.off[i]:t.off[i+1]]
	bs, bup := t.ancs[t.off[j]:t.off[j+1]], t.ups[t.off[j]:t.off[j+1]]
	best := None
	for x, y := 0, 0; x < len(as) && y < len(bs); {
		switch {
		case as[x] < bs[y]:
			x++
		case as[x] > bs[y]:
			y++
		default:
			s, da, db := as[x], aup[x], bup[y]
			switch {
			case da == 0 && db == 0:
				return Equivalent
			case (da == 0 && db <= kindUp || db == 0 && da <= kindUp) && !t.general[s]:
				best = max(best, KindOf) // not of a general word: everything is a kind of 'event'

			case da <= siblingUp && db <= siblingUp && !t.general[s]:
				best = max(best, Sibling)
			}
			x++
			y++
		}
	}
	return best
}

// Equivalents returns the words that share a sense with w, sorted, without w;
// nil when it has none or the table does not know w.
func (t *Table) Equivalents(w string) []string {
	i, ok := t.index[w]
	if !ok {
		return nil
	}
	return t.namesOf(t.reached(i, own, t.ownOff, t.own), i, nil)
}

// MaxSynonyms is the most equivalents a word may have for Synonyms to give
// them: a word with more is one of many senses (主人: head, chief, owner,
// master, …), and most of its equivalents are of another sense.
const MaxSynonyms = 3

// Synonyms returns the equivalents of w when it has at most MaxSynonyms of
// them, the ones that stand for it; nil otherwise.
func (t *Table) Synonyms(w string) []string {
	if eq := t.Equivalents(w); len(eq) <= MaxSynonyms {
		return eq
	}
	return nil
}

// Kinds returns the words w is a kind of: the words of its hypernyms, the
// nearest first (then sorted), without w and its equivalents; nil when it
// has none or the table does not know w.
func (t *Table) Kinds(w string) []string {
	i, ok := t.index[w]
	if !ok {
		return nil
	}
	var out []string
	seen := map[int32]bool{i: true}
	for up := uint8(1); up <= kindUp; up++ {
		ids := t.reached(i, func(u uint8, _ int32) bool { return u == up }, t.ownOff, t.own)
		slices.Sort(ids)
		for _, id := range slices.Compact(ids) {
			if !seen[id] && t.relate(i, id) == KindOf {
				seen[id] = true
				out = append(out, t.words[id])
			}
		}
	}
	return out
}

// Siblings returns the words Relate calls w's siblings, sorted (so without its
// equivalents and kinds); nil when it has none or the table does not know w.
func (t *Table) Siblings(w string) []string {
	i, ok := t.index[w]
	if !ok {
		return nil
	}
	ids := t.reached(i, t.siblingAncestor, t.sibOff, t.sib)
	return t.namesOf(ids, i, func(id int32) bool { return t.relate(i, id) == Sibling })
}

// own reports whether a synset up steps above a word is its own sense.
func own(up uint8, _ int32) bool { return up == 0 }

// siblingAncestor reports whether synset s, up steps above a word, can make
// it a sibling of another word below s.
func (t *Table) siblingAncestor(up uint8, s int32) bool {
	return up >= 1 && up <= siblingUp && !t.general[s]
}

// reached returns the words inverted (by its offsets off) lists under each
// synset of word i that keep accepts, repeats included.
func (t *Table) reached(i int32, keep func(uint8, int32) bool, off, inverted []int32) []int32 {
	var ids []int32
	for k := t.off[i]; k < t.off[i+1]; k++ {
		if s := t.ancs[k]; keep(t.ups[k], s) {
			ids = append(ids, inverted[off[s]:off[s+1]]...)
		}
	}
	return ids
}

// namesOf returns the words of ids, sorted and without repeats, leaving out
// the word self and those keep (when not nil) rejects.
func (t *Table) namesOf(ids []int32, self int32, keep func(int32) bool) []string {
	slices.Sort(ids) // the words are sorted, so their indices are too
	var out []string
	for _, id := range slices.Compact(ids) {
		if id != self && (keep == nil || keep(id)) {
			out = append(out, t.words[id])
		}
	}
	return out
}

// Parse reads a table as cmd/thesaurusgen writes it, gzipped:
//
//	omoide-thesaurus 1
//	synsets N
//	flag TAB name TAB hypernym ids     (N lines; synset i is line i; flag - g q)
//	words M
//	word TAB synset ids                (M lines, sorted by word)
//
// where flag g marks a general synset and q a gloss node, and ids are
// comma-separated indices of the synset lines.
func Parse(gz []byte) (*Table, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("thesaurus: %w", err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("thesaurus: %w", err)
	}
	p := parser{text: string(b)}
	t, err := p.table()
	if err != nil {
		return nil, fmt.Errorf("thesaurus: line %d: %w", p.line, err)
	}
	return t, nil
}

// parser reads the table's text a line at a time.
type parser struct {
	text string
	line int
}

func (p *parser) next() (string, bool) {
	if p.text == "" {
		return "", false
	}
	p.line++
	var l string
	l, p.text, _ = strings.Cut(p.text, "\n")
	return l, true
}

// count reads a "name N" line.
func (p *parser) count(name string) (int, error) {
	l, _ := p.next()
	rest, ok := strings.CutPrefix(l, name+" ")
	n, err := strconv.Atoi(rest)
	if !ok || err != nil || n < 0 || n > 1<<24 {
		return 0, fmt.Errorf("want %q and a count", name)
	}
	return n, nil
}

// ids reads comma-separated synset ids below n.
func ids(s string, n int, into []int32) ([]int32, error) {
	for s != "" {
		var f string
		f, s, _ = strings.Cut(s, ",")
		v, err := strconv.Atoi(f)
		if err != nil || v < 0 || v >= n {
			return nil, fmt.Errorf("bad synset id %q", f)
		}
		into = append(into, int32(v))
	}
	return into, nil
}

func (p *parser) table() (*Table, error) {
	if l, _ := p.next(); l != "omoide-thesaurus 1" {
		return nil, fmt.Errorf("want the header omoide-thesaurus 1")
	}
	n, err := p.count("synsets")
	if err != nil {
		return nil, err
	}
	t := &Table{names: make([]string, n), general: make([]bool, n)}
	hyperOff := make([]int32, n+1)
	var hypers []int32
	for s := range n {
		l, _ := p.next()
		f := strings.Split(l, "\t")
		if len(f) != 3 || f[1] == "" || (f[0] != "-" && f[0] != "g" && f[0] != "q") {
			return nil, fmt.Errorf("want a flag, a name and hypernyms")
		}
		t.names[s], t.general[s] = f[1], f[0] == "g"
		if hypers, err = ids(f[2], n, hypers); err != nil {
			return nil, err
		}
		hyperOff[s+1] = int32(len(hypers))
	}
	m, err := p.count("words")
	if err != nil {
		return nil, err
	}
	t.words, t.index, t.off = make([]string, 0, m), make(map[string]int32, m), make([]int32, 1, m+1)
	ups := make([]uint8, n) // a word's steps up to each synset, +1 (0: not reached)
	var reached, frontier, next []int32
	for w := range m {
		l, _ := p.next()
		word, rest, ok := strings.Cut(l, "\t")
		if !ok || word == "" || rest == "" || (w > 0 && word <= t.words[w-1]) {
			return nil, fmt.Errorf("want a word greater than the last, a tab and its synsets")
		}
		if frontier, err = ids(rest, n, frontier[:0]); err != nil {
			return nil, err
		}
		reached = reached[:0]
		for up := 0; up <= maxUp && len(frontier) > 0; up++ {
			next = next[:0]
			for _, s := range frontier {
				if ups[s] != 0 {
					continue
				}
				ups[s] = uint8(up + 1)
				reached = append(reached, s)
				next = append(next, hypers[hyperOff[s]:hyperOff[s+1]]...)
			}
			frontier, next = next, frontier
		}
		slices.Sort(reached)
		for _, s := range reached {
			t.ancs = append(t.ancs, s)
			t.ups = append(t.ups, ups[s]-1)
			ups[s] = 0
		}
		t.words = append(t.words, word)
		t.index[word] = int32(w)
		t.off = append(t.off, int32(len(t.ancs)))
	}
	if _, more := p.next(); more {
		return nil, fmt.Errorf("more lines than the %d words", m)
	}
	t.ownOff, t.own = t.invert(n, own)
	t.sibOff, t.sib = t.invert(n, t.siblingAncestor)
	return t, nil
}

// invert returns, for each of the n synsets, the words (in order) that reach
// it at the steps up that keep accepts, as offsets into one slice.
func (t *Table) invert(n int, keep func(uint8, int32) bool) ([]int32, []int32) {
	type pair struct{ s, w int32 }
	var ps []pair
	for w := range t.words {
		for k := t.off[w]; k < t.off[w+1]; k++ {
			if keep(t.ups[k], t.ancs[k]) {
				ps = append(ps, pair{t.ancs[k], int32(w)})
			}
		}
	}
	slices.SortFunc(ps, func(a, b pair) int { return cmp.Or(cmp.Compare(a.s, b.s), cmp.Compare(a.w, b.w)) })
	off, words := make([]int32, n+1), make([]int32, len(ps))
	for i, p := range ps {
		off[p.s+1]++
		words[i] = p.w
	}
	for s := range n {
		off[s+1] += off[s]
	}
	return off, words
}
