// Command formsgen writes tokenize/english-forms.txt, the table of English
// irregular forms that package tokenize embeds (Lexicon.Forms), from the
// exception lists of Princeton WordNet 3.0 (verb.exc, noun.exc, adj.exc,
// adv.exc) as Debian's package wordnet-base installs them:
//
//	apt-get install -y wordnet-base
//	go run -tags sqlite_fts5 ./cmd/formsgen -o tokenize/english-forms.txt
//
// An exception line names an inflected form and its lemmas (ate eat; mice
// mouse; better good well). A lemma's group is the lemma and its exception
// forms, each spelled as the default analyzer (tokenize.DefaultAnalyzer)
// indexes it, its Snowball stem: eat ate eaten; mous mice; good best better.
// Only common lemmas are kept: those the part of speech's index file
// (index.verb, ...) counts as tagged in the SemCor corpus at least once
// (tagsense_cnt > 0), which leaves out aardwolf, lied (lieder) and goodly
// (goodlier, whose stem would join good's). A group is kept only when all
// its words are single words of the letters a to z of at most maxLetters
// letters (not ad-libbed, allowed_for), and of its stems only those that
// are a query term of the analyzer, not a stop word (did and done of do: a
// form the retriever searched would match every text with "did"). A form
// that stems as its lemma does (abetted abet: abet) adds nothing; a group
// left with one stem is dropped. Two kinds of groups would join words that
// chat keeps apart, and are left out: a lemma in -ly that stems as the word
// it is made from (costly, timely, lovely: cost, time, love), whose
// comparatives would stand for that word; and the forms in homographs,
// whose everyday sense is a word of their own (wound is no wind in "a
// wound", born no bear).
//
// The table is one group a line, its stems separated by a space, the
// lemma's first; the lines sorted, no repeats. The output is the same bytes
// for the same inputs. Run it again (make forms) whenever the analyzer
// changes how it stems a word: tokenize's tests fail when a stem of the
// table is no query term of the analyzer.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/omoide/omoide/tokenize"
)

// maxLetters bounds the words of a kept group: the long ones are rare
// (acciaccature, zoogeographies) and chat does not need them.
const maxLetters = 12

// homographs are exception forms left out: in chat they are words of their
// own far more often than forms of their lemma (bit of bite: "a bit";
// born and borne of bear stem as born; lives of life stems as live, the
// verb; cola of colon).
var homographs = []string{"bases", "bit", "bore", "born", "borne", "cola", "dove", "ground", "lives", "rose", "wound"}

// poses are WordNet's parts of speech: each has an exception list
// (verb.exc) and an index (index.verb).
var poses = []string{"verb", "noun", "adj", "adv"}

func main() {
	wn := flag.String("wordnet", "/usr/share/wordnet", "the directory of WordNet's exception lists and index files (verb.exc, index.verb, ...)")
	out := flag.String("o", "tokenize/english-forms.txt", "the table to write")
	flag.Parse()
	if err := run(*wn, *out); err != nil {
		fmt.Fprintln(os.Stderr, "formsgen:", err)
		os.Exit(1)
	}
}

func run(wnDir, out string) error {
	a, err := tokenize.ByName(tokenize.DefaultAnalyzer)
	if err != nil {
		return fmt.Errorf("analyzer: %w", err)
	}
	var lists []source
	for _, pos := range poses {
		var src [2][]byte
		for i, name := range []string{pos + ".exc", "index." + pos} {
			if src[i], err = os.ReadFile(filepath.Join(wnDir, name)); err != nil {
				return fmt.Errorf("read source: %w", err)
			}
		}
		lists = append(lists, source{bytes.NewReader(src[0]), bytes.NewReader(src[1])})
	}
	var buf bytes.Buffer
	st, err := generate(&buf, a, lists...)
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	fmt.Fprintf(os.Stderr, "formsgen: %d exceptions read, %d lemmas, %d groups → %s (%d bytes)\n",
		st.exceptions, st.lemmas, st.groups, out, buf.Len())
	return nil
}

// stats counts what generate read and wrote.
type stats struct{ exceptions, lemmas, groups int }

// source is one part of speech's files: its exception list (each line
// "form lemma...") and its index (index.verb's lines "lemma pos
// synset_cnt p_cnt ptr_symbol... sense_cnt tagsense_cnt synset_offset...").
type source struct{ exc, index io.Reader }

// generate reads the sources, one a part of speech, and writes the table
// of the analyzer a's stems to w.
func generate(w io.Writer, a tokenize.Analyzer, lists ...source) (stats, error) {
	var st stats
	// a lemma's group within its part of speech: the lemma, then its forms
	// in the order read
	type key struct {
		pos   int
		lemma string
	}
	groups := map[key][]string{}
	var order []key
	for pos, src := range lists {
		tagged, err := readTagged(src.index)
		if err != nil {
			return st, err
		}
		sc := bufio.NewScanner(src.exc)
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) < 2 {
				continue
			}
			st.exceptions++
			if slices.Contains(homographs, f[0]) {
				continue
			}
			for _, lemma := range f[1:] {
				if !tagged[lemma] || derivedLy(a, lemma) {
					continue // a rare lemma, or one whose forms would join another word
				}
				k := key{pos, lemma}
				if _, ok := groups[k]; !ok {
					groups[k] = []string{lemma}
					order = append(order, k)
				}
				groups[k] = append(groups[k], f[0])
			}
		}
		if err := sc.Err(); err != nil {
			return st, fmt.Errorf("read exceptions: %w", err)
		}
	}
	st.lemmas = len(order)
	lines := map[string]bool{}
	for _, k := range order {
		words := groups[k]
		if !slices.ContainsFunc(words, isLong) && !slices.ContainsFunc(words, notPlain) {
			if stems := stemsOf(a, words); len(stems) > 1 {
				lines[strings.Join(stems, " ")] = true
			}
		}
	}
	sorted := make([]string, 0, len(lines))
	for l := range lines {
		sorted = append(sorted, l)
	}
	slices.Sort(sorted)
	st.groups = len(sorted)
	bw := bufio.NewWriter(w)
	for _, l := range sorted {
		bw.WriteString(l)
		bw.WriteByte('\n')
	}
	return st, bw.Flush()
}

// readTagged returns the lemmas of an index file that SemCor tagged at
// least once (tagsense_cnt > 0). Its license header lines begin with a
// space.
func readTagged(r io.Reader) (map[string]bool, error) {
	tagged := map[string]bool{}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == ' ' {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 4 {
			return nil, fmt.Errorf("index: short line %q", line)
		}
		p, err := strconv.Atoi(f[3])
		if err != nil || len(f) < 6+p {
			return nil, fmt.Errorf("index: bad line %q", line)
		}
		if f[5+p] != "0" {
			tagged[f[0]] = true
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	return tagged, nil
}

// stemsOf returns the distinct stems of words as a indexes them, in order,
// without those that are no query term of a (stop words).
func stemsOf(a tokenize.Analyzer, words []string) []string {
	var out []string
	for _, w := range words {
		idx := a.Index(w)
		if strings.Contains(idx, " ") || slices.Contains(out, idx) {
			continue
		}
		if q := a.Terms(w); len(q) != 1 || q[0] != idx {
			continue // a stop word: never asked for, and searched it would match every text
		}
		out = append(out, idx)
	}
	return out
}

// derivedLy reports whether lemma ends in -ly and a stems it as the word
// without -ly: costly and cost are both cost.
func derivedLy(a tokenize.Analyzer, lemma string) bool {
	base, ok := strings.CutSuffix(lemma, "ly")
	return ok && base != "" && a.Index(lemma) == a.Index(base)
}

// isLong reports whether w has more than maxLetters letters.
func isLong(w string) bool { return len(w) > maxLetters }

// notPlain reports whether w is anything but a word of the letters a to z:
// a multiword lemma (allowed_for), a hyphenated one (ad-libbed), a capital.
func notPlain(w string) bool {
	return w == "" || strings.ContainsFunc(w, func(r rune) bool { return r < 'a' || r > 'z' })
}
