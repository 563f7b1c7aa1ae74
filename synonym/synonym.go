// Package synonym is a thesaurus of Japanese words (and some English ones)
// spelled as the default analyzer spells query terms: 子供 → 子ども, キッズ;
// シール → ステッカー; 浜辺 → 砂浜, ビーチ; 犬 → いぬ, イヌ; 二 → 2.
//
// The table is made by cmd/synonymgen from two sources and embedded. The synonym
// dictionary of SudachiDict (Works Applications, Apache License 2.0; see
// NOTICE.md) gives orthographic variants (子供, 子ども), abbreviations,
// loanwords and their Japanese (ベッド, 寝台) and the near synonyms of its
// groups. The IPA dictionary the analyzer segments with gives the kana
// spellings of common nouns written with kanji (犬: いぬ, イヌ), and the
// nouns a kana spelling may stand for when they are few (イヌ: 犬, 戌, 狗).
// Only words that are one query term of tokenize.KagomeSnowball are kept,
// and that analyzer offers them (tokenize.Thesaurus).
// The table is loaded on first use and only read after that, so every
// function here is safe for concurrent use.
//
// A synonym group is broad by design (浜辺 holds 海岸 and ビーチ), so the table
// is for weighing evidence, not for saying two texts mean the same.
package synonym

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
)

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

// Words returns the table's headwords, sorted, and every synonym it lists,
// repeats included, for checks of their spelling. The slices are shared: do
// not modify them.
func Words() (heads, synonyms []string, err error) {
	t, err := get()
	if err != nil {
		return nil, nil, err
	}
	return t.keys, t.alts, nil
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

// maxText bounds the room parse makes ahead for the table's text.
const maxText = 64 << 20

// parse reads the gzipped table: one line a term, "term\tsyn syn ...",
// sorted by term. The terms are slices of the one decompressed string.
func parse(gz []byte) (table, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return table{}, fmt.Errorf("synonym: %w", err)
	}
	// gzip's trailer holds the text's size (mod 2³²): read the text into one
	// string, without the copies of growing a buffer and converting it
	var sb strings.Builder
	if len(gz) >= 4 {
		sb.Grow(min(int(binary.LittleEndian.Uint32(gz[len(gz)-4:])), maxText))
	}
	if _, err := io.Copy(&sb, zr); err != nil {
		return table{}, fmt.Errorf("synonym: %w", err)
	}
	text := sb.String()
	lines := strings.Count(text, "\n")
	t := table{keys: make([]string, 0, lines), offs: make([]int32, 0, lines+1), alts: make([]string, 0, 2*lines)}
	for n := 1; text != ""; n++ {
		var line string
		line, text, _ = strings.Cut(text, "\n")
		key, rest, ok := strings.Cut(line, "\t")
		if !ok || key == "" || strings.TrimSpace(rest) == "" || (len(t.keys) > 0 && key <= t.keys[len(t.keys)-1]) {
			return table{}, fmt.Errorf("synonym: line %d: want a term greater than the last, a tab and its synonyms", n)
		}
		t.keys = append(t.keys, key)
		t.offs = append(t.offs, int32(len(t.alts)))
		for rest != "" {
			var alt string
			alt, rest, _ = strings.Cut(rest, " ")
			if alt != "" {
				t.alts = append(t.alts, alt)
			}
		}
	}
	t.offs = append(t.offs, int32(len(t.alts)))
	return t, nil
}
