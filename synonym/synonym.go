// Package synonym is a thesaurus of Japanese words (and some English ones)
// spelled as the default analyzer spells query terms: 子供 → 子ども, キッズ;
// シール → ステッカー; 浜辺 → 砂浜, ビーチ; 二 → 2.
//
// The table is derived from the synonym dictionary of SudachiDict (Works
// Applications, Apache License 2.0; see NOTICE.md) by synonym/gen, and
// embedded. It holds, for each term, the other members of its synonym groups
// that are single query terms under tokenize.KagomeSnowball: orthographic
// variants (子供, 子ども), abbreviations, loanwords and their Japanese
// (ベッド, 寝台) and near synonyms of the same group. It is loaded on first
// use (about 350 KB compressed) and only read after that, so every function
// here is safe for concurrent use.
//
// A synonym group is broad by design (浜辺 holds 海岸 and ビーチ), so the table
// is for weighing evidence, not for saying two texts mean the same.
package synonym

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/omoide/omoide/tokenize"
)

// Analyzer is the Name of the analyzer whose query terms the table is spelled
// in; with a store of another analyzer its terms would not match.
const Analyzer = tokenize.KagomeSnowballName

//go:embed synonyms.txt.gz
var data []byte

// table is the loaded thesaurus: keys sorted, the synonyms of keys[i] are
// alts[offs[i]:offs[i+1]].
type table struct {
	keys []string
	offs []int32
	alts []string
}

// loaded is the table, read once from data; the package's only state.
var loaded struct {
	once sync.Once
	t    table
	err  error
}

func get() (*table, error) {
	loaded.once.Do(func() { loaded.t, loaded.err = parse(data) })
	return &loaded.t, loaded.err
}

// Load reads the table now, rather than on the first Of, and reports an
// error if the embedded data cannot be read.
func Load() error {
	_, err := get()
	return err
}

// Of returns the synonyms of term, sorted, without term itself; nil when it
// has none or the table cannot be read (Load says why). The slice is shared:
// do not modify it.
func Of(term string) []string {
	t, err := get()
	if err != nil {
		return nil
	}
	i, ok := slices.BinarySearch(t.keys, term)
	if !ok {
		return nil
	}
	return t.alts[t.offs[i]:t.offs[i+1]:t.offs[i+1]]
}

// Len returns how many terms have synonyms.
func Len() int {
	t, err := get()
	if err != nil {
		return 0
	}
	return len(t.keys)
}

// parse reads the gzipped table: one line a term, "term\tsyn syn ...",
// sorted by term.
func parse(gz []byte) (table, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return table{}, fmt.Errorf("synonym: %w", err)
	}
	var t table
	sc := bufio.NewScanner(zr)
	for n := 1; sc.Scan(); n++ {
		key, rest, ok := strings.Cut(sc.Text(), "\t")
		alts := strings.Fields(rest)
		if !ok || key == "" || len(alts) == 0 || (len(t.keys) > 0 && key <= t.keys[len(t.keys)-1]) {
			return table{}, fmt.Errorf("synonym: line %d: want a term greater than the last, a tab and its synonyms", n)
		}
		t.keys = append(t.keys, key)
		t.offs = append(t.offs, int32(len(t.alts)))
		t.alts = append(t.alts, alts...)
	}
	if err := sc.Err(); err != nil {
		return table{}, fmt.Errorf("synonym: %w", err)
	}
	t.offs = append(t.offs, int32(len(t.alts)))
	return t, nil
}
