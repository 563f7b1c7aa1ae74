// Command synonymgen writes synonym/synonyms.txt.gz, the table package synonym
// embeds, from SudachiDict's synonym dictionary as the npm package
// sudachi-synonyms-dictionary ships it (JSON; Apache License 2.0):
//
//	npm pack sudachi-synonyms-dictionary@18.0.0
//	tar xzf sudachi-synonyms-dictionary-18.0.0.tgz
//	go run -tags sqlite_fts5 ./cmd/synonymgen -json package/sudachi-synonyms-dictionary.json
//
// Every headword is spelled as the default analyzer (tokenize.KagomeSnowball)
// spells a query: a headword that is not exactly one query term there
// ("ノートパソコン" is ノート + パソコン; "何" is no query term at all) is left
// out, because a message's terms are what the table is looked up with. A
// headword marked never to be expanded (expandControl 2) is left out; one
// marked not to trigger an expansion (1) is a synonym of the others but has
// none of its own. The kanji numerals 一 to 十 are added as synonyms of the
// digits, which the analyzer keeps apart.
//
// Kana spellings come from the IPA dictionary (kagome-dict/ipa, the
// analyzer's own): a common noun written with kanji (名詞,一般: 犬, 人参,
// 子供) has its reading in katakana and in hiragana (イヌ, いぬ) as synonyms,
// and they have it, unless more than three such nouns share the reading
// (kanaGroups).
//
// Run it again whenever the analyzer changes how it spells a term;
// synonym's tests fail when the table and the analyzer disagree.
package main

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/ikawaha/kagome-dict/ipa"
	"github.com/omoide/omoide/tokenize"
	"unicode"
)

// group is one synonym group of the dictionary.
type group struct {
	ID    string `json:"id"`
	Items []item `json:"items"`
}

// item is one headword of a group.
type item struct {
	ExpandControl int    `json:"expandControl"`
	Midashi       string `json:"midashi"`
	// exact: the headword is kept only if the analyzer spells it as it is
	// (a reading in kana that analyses as another word, いなや as いぬ, is
	// no spelling of the noun).
	exact bool
}

func main() {
	src := flag.String("json", "", "sudachi-synonyms-dictionary.json of the npm package")
	out := flag.String("out", "synonym/synonyms.txt.gz", "the table to write")
	flag.Parse()
	if err := run(*src, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// kanaGroups returns a group for each common noun of the IPA dictionary
// written with kanji and its reading in katakana and in hiragana. The noun
// finds its kana spellings; a kana spelling finds the nouns it may spell
// only when they are at most maxKanaNouns (イヌ: 犬, 戌, 狗), since a
// reading many nouns share (カキ: 柿, 牡蠣, 夏期, 下記, ...) says nothing
// of which one is meant.
func kanaGroups() []group {
	const maxKanaNouns = 3
	d := ipa.Dict()
	nouns := map[string][]string{} // reading → its kanji nouns
	for i, c := range d.Contents {
		pos := d.POSTable.POSs[i]
		if len(c) < 4 || len(pos) < 2 || d.POSTable.NameList[pos[0]] != "名詞" || d.POSTable.NameList[pos[1]] != "一般" {
			continue
		}
		base, reading := c[2], c[3]
		if reading == "" || reading == "*" || !strings.ContainsFunc(base, func(r rune) bool { return unicode.Is(unicode.Han, r) }) {
			continue
		}
		if !slices.Contains(nouns[reading], base) {
			nouns[reading] = append(nouns[reading], base)
		}
	}
	readings := make([]string, 0, len(nouns))
	for r := range nouns {
		readings = append(readings, r)
	}
	slices.Sort(readings)
	var out []group
	for _, r := range readings {
		kana := 0 // the kana spellings trigger (expandControl 0) or not (1)
		if len(nouns[r]) > maxKanaNouns {
			kana = 1
		}
		for _, n := range nouns[r] {
			out = append(out, group{ID: "ipa-" + n + "-" + r, Items: []item{
				{Midashi: n, exact: true}, {ExpandControl: kana, Midashi: r, exact: true}, {ExpandControl: kana, Midashi: hiragana(r), exact: true},
			}})
		}
	}
	return out
}

// hiragana returns s with its katakana turned into hiragana.
func hiragana(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'ァ' && r <= 'ヶ' {
			return r - 0x60
		}
		return r
	}, s)
}

func run(src, out string) error {
	if src == "" {
		return fmt.Errorf("-json is required")
	}
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	var groups []group
	if err := json.Unmarshal(b, &groups); err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	for n := 1; n <= 10; n++ {
		g := group{ID: "numeral-" + strconv.Itoa(n)}
		for _, m := range []string{strconv.Itoa(n), string([]rune("一二三四五六七八九十")[n-1])} {
			g.Items = append(g.Items, item{Midashi: m})
		}
		groups = append(groups, g)
	}
	groups = append(groups, kanaGroups()...)
	a := tokenize.KagomeSnowball()
	term := func(word string) (string, bool) {
		if ts := a.Terms(word); len(ts) == 1 {
			return ts[0], true
		}
		return "", false
	}
	syn := map[string]map[string]bool{}
	for _, g := range groups {
		var members, triggers []string
		for _, it := range g.Items {
			t, ok := term(it.Midashi)
			if !ok || it.ExpandControl == 2 || it.exact && t != it.Midashi {
				continue
			}
			members = append(members, t)
			if it.ExpandControl == 0 {
				triggers = append(triggers, t)
			}
		}
		for _, t := range triggers {
			for _, m := range members {
				if m == t {
					continue
				}
				if syn[t] == nil {
					syn[t] = map[string]bool{}
				}
				syn[t][m] = true
			}
		}
	}
	keys := make([]string, 0, len(syn))
	for k := range syn {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	w := bufio.NewWriter(zw)
	pairs := 0
	for _, k := range keys {
		alts := make([]string, 0, len(syn[k]))
		for m := range syn[k] {
			alts = append(alts, m)
		}
		slices.Sort(alts)
		pairs += len(alts)
		fmt.Fprintf(w, "%s\t%s\n", k, strings.Join(alts, " "))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "gen: %d groups, %d terms with synonyms, %d pairs → %s\n", len(groups), len(keys), pairs, out)
	return nil
}
