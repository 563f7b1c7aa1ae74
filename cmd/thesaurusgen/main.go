// Command thesaurusgen writes thesaurus/thesaurus.txt.gz, the table package
// thesaurus embeds, from EDICT (JMdict/EDICT by the EDRDG, CC BY-SA 3.0) and
// the noun files of Princeton WordNet 3.0, as Debian's packages edict and
// wordnet-base install them:
//
//	apt-get install -y edict wordnet-base
//	go run -tags sqlite_fts5 ./cmd/thesaurusgen -o thesaurus/thesaurus.txt.gz
//
// A word of the table is the headword of a common (P) EDICT entry with a noun
// sense, spelled as exactly one query term of the default analyzer
// (tokenize.DefaultAnalyzer) in Japanese text ("cjk2+ja"; "cjk2" cuts a
// Han-only text into bigrams and characters, so 天気予報 alone is no word of
// it, though in 明日の天気予報 it is 天気 + 予報 either way): kanji and katakana headwords, and the kana
// reading of an entry marked (uk), usually written in kana. A hiragana reading
// of a kanji word is left out: many words share it.
//
// A word reaches WordNet through the English glosses of its first noun
// senses: a gloss, without its parentheticals, "to" and articles, that is a
// WordNet noun lemma maps to the lemma's first senses (WordNet orders them by
// frequency). A gloss that is no lemma ("part-time job") is a node of its
// own, so two words glossed alike are still the same thing. The table keeps
// those synsets, their hypernyms (@ and instance @i) a few steps up, and
// marks as general the synsets too broad to make two words siblings.
//
// The output is the same bytes for the same inputs. Run it again whenever
// the analyzer changes how it spells a term; thesaurus's tests fail when the
// table and the analyzer disagree.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/ikawaha/kagome-dict/ipa"
	"github.com/ikawaha/kagome/v2/tokenizer"

	"github.com/omoide/omoide/tokenize"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/transform"
)

// config holds the generator's choices, measured on thesaurus's tests.
type config struct {
	edictSenses int // noun senses of an EDICT entry whose glosses are read
	glosses     int // glosses read of each sense, the first ones
	wnSenses    int // WordNet senses a gloss maps to, the most frequent first
	up          int // hypernym steps kept above a word's synsets
	general     int // a synset with more hyponyms than this (transitively) is general
}

// defaults are the choices thesaurus/thesaurus.txt.gz is made with.
var defaults = config{edictSenses: 1, glosses: 2, wnSenses: 1, up: 3, general: 1500}

func main() {
	edict := flag.String("edict", "/usr/share/edict/edict", "EDICT, EUC-JP")
	wn := flag.String("wordnet", "/usr/share/wordnet", "the directory of WordNet's index.noun and data.noun")
	out := flag.String("o", "thesaurus/thesaurus.txt.gz", "the table to write")
	flag.IntVar(&defaults.edictSenses, "edict-senses", defaults.edictSenses, "noun senses of an EDICT entry to read")
	flag.IntVar(&defaults.glosses, "glosses", defaults.glosses, "glosses read of each sense")
	flag.IntVar(&defaults.up, "up", defaults.up, "hypernym steps kept")
	flag.IntVar(&defaults.general, "general", defaults.general, "hyponyms that make a synset general")
	flag.IntVar(&defaults.wnSenses, "wn-senses", defaults.wnSenses, "WordNet senses a gloss maps to")
	flag.Parse()
	if err := run(*edict, *wn, *out, defaults); err != nil {
		fmt.Fprintln(os.Stderr, "thesaurusgen:", err)
		os.Exit(1)
	}
}

func run(edictPath, wnDir, out string, cfg config) error {
	files := map[string][]byte{}
	for _, p := range []string{edictPath, wnDir + "/index.noun", wnDir + "/data.noun"} {
		b, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("read source: %w", err)
		}
		files[p] = b
	}
	isKey, err := keys()
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	st, err := generate(&buf, bytes.NewReader(files[edictPath]), bytes.NewReader(files[wnDir+"/index.noun"]), bytes.NewReader(files[wnDir+"/data.noun"]), isKey, cfg)
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	fmt.Fprintf(os.Stderr, "thesaurusgen: %d entries read, %d words, %d synsets (%d gloss nodes) → %s (%d bytes)\n",
		st.entries, st.words, st.synsets, st.glosses, out, buf.Len())
	return nil
}

// analyzer returns the default analyzer as it reads Japanese text: "cjk2"
// reads a Han-only text as Chinese (野球 alone is 野球, 野, 球) but 野球 in
// 昨日野球をした as kagome does, which is how "cjk2+ja" reads every text.
func analyzer() (tokenize.Analyzer, error) {
	if a, err := tokenize.ByName(tokenize.DefaultAnalyzer + "+ja"); err == nil {
		return a, nil
	}
	a, err := tokenize.ByName(tokenize.DefaultAnalyzer)
	if err != nil {
		return nil, fmt.Errorf("analyzer: %w", err)
	}
	return a, nil
}

// generic are content nouns of chat whose glosses are too broad to relate
// them to anything by (person, time, place, thing, way): with them, every
// memory would be "a kind of" or "equivalent to" every message.
var generic = []string{"人", "時", "ごろ", "回", "度", "点", "日", "年", "高", "感じ", "様子", "所", "件", "先", "最初", "具合", "分", "物", "事", "方", "者"}

// keys returns whether a spelling may be a key: exactly one query term of
// the analyzer, and a content noun as the IPA dictionary reads it alone
// (common, verbal, proper or adjectival; not a dependent noun, a number, a
// suffix or a noun of time used as an adverb: うち, 一, 頃, 前, 時間), and
// not generic.
func keys() (func(string) bool, error) {
	a, err := analyzer()
	if err != nil {
		return nil, err
	}
	tok, err := tokenizer.New(ipa.Dict(), tokenizer.OmitBosEos())
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	return func(s string) bool {
		if ts := a.Terms(s); len(ts) != 1 || ts[0] != s || slices.Contains(generic, s) {
			return false
		}
		toks := tok.Tokenize(s)
		if len(toks) != 1 {
			return true // a compound the dictionary does not hold whole: a noun of EDICT
		}
		f := toks[0].Features()
		if len(f) < 2 || f[0] != "名詞" {
			return false
		}
		switch f[1] {
		case "一般", "サ変接続", "固有名詞", "形容動詞語幹", "代名詞", "ナイ形容詞語幹":
			return true
		}
		return false
	}, nil
}

// stats counts what generate read and wrote.
type stats struct{ entries, words, synsets, glosses int }

// entry is what generate keeps of one EDICT line: its spellings that may be
// keys and the cleaned glosses of its first noun senses.
type entry struct {
	spellings []string
	glosses   []string
}

// generate reads EDICT (EUC-JP) and WordNet's index.noun and data.noun and
// writes the gzipped table to w. isKey says whether a spelling may be a key
// (keys).
func generate(w io.Writer, edict, index, data io.Reader, isKey func(string) bool, cfg config) (stats, error) {
	var st stats
	entries, err := readEdict(transform.NewReader(edict, japanese.EUCJP.NewDecoder()), cfg.edictSenses, cfg.glosses)
	if err != nil {
		return st, fmt.Errorf("edict: %w", err)
	}
	st.entries = len(entries)
	lemmas, err := readIndex(index, cfg.wnSenses)
	if err != nil {
		return st, fmt.Errorf("index.noun: %w", err)
	}
	syns, err := readData(data)
	if err != nil {
		return st, fmt.Errorf("data.noun: %w", err)
	}

	// each word's nodes: WordNet synsets (offsets) and gloss nodes ("" + gloss)
	type node struct {
		off   int64  // a synset's offset, or -1
		gloss string // a gloss that is no lemma
	}
	words := map[string]map[node]bool{}
	for _, e := range entries {
		var nodes []node
		for _, g := range e.glosses {
			offs, ok := lemmas[strings.ReplaceAll(g, " ", "_")]
			if !ok {
				nodes = append(nodes, node{off: -1, gloss: g})
				continue
			}
			for _, o := range offs {
				if _, ok := syns[o]; ok {
					nodes = append(nodes, node{off: o})
				}
			}
		}
		if len(nodes) == 0 {
			continue
		}
		for _, s := range e.spellings {
			if !isKey(s) {
				continue
			}
			if words[s] == nil {
				words[s] = map[node]bool{}
			}
			for _, n := range nodes {
				words[s][n] = true
			}
		}
	}

	// the synsets kept: the words' and their hypernyms up to cfg.up steps
	kept := map[int64]bool{}
	var frontier []int64
	glossSet := map[string]bool{}
	for _, ns := range words {
		for n := range ns {
			if n.off < 0 {
				glossSet[n.gloss] = true
			} else if !kept[n.off] {
				kept[n.off] = true
				frontier = append(frontier, n.off)
			}
		}
	}
	for range cfg.up {
		var next []int64
		for _, o := range frontier {
			for _, h := range syns[o].hypers {
				if _, ok := syns[h]; ok && !kept[h] {
					kept[h] = true
					next = append(next, h)
				}
			}
		}
		frontier = next
	}
	general := generalSynsets(syns, cfg.general)

	// ids: kept synsets by offset, then gloss nodes by text
	offs := make([]int64, 0, len(kept))
	for o := range kept {
		offs = append(offs, o)
	}
	slices.Sort(offs)
	glosses := make([]string, 0, len(glossSet))
	for g := range glossSet {
		glosses = append(glosses, g)
	}
	slices.Sort(glosses)
	id := make(map[int64]int, len(offs))
	for i, o := range offs {
		id[o] = i
	}
	glossID := make(map[string]int, len(glosses))
	for i, g := range glosses {
		glossID[g] = len(offs) + i
	}

	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return st, fmt.Errorf("gzip: %w", err)
	}
	bw := bufio.NewWriter(zw)
	fmt.Fprintf(bw, "omoide-thesaurus 1\nsynsets %d\n", len(offs)+len(glosses))
	for _, o := range offs {
		s := syns[o]
		var hs []int
		for _, h := range s.hypers {
			if i, ok := id[h]; ok {
				hs = append(hs, i)
			}
		}
		slices.Sort(hs)
		hs = slices.Compact(hs)
		flag := "-"
		if general[o] {
			flag = "g"
		}
		fmt.Fprintf(bw, "%s\t%s\t%s\n", flag, s.name, joinInts(hs))
	}
	for _, g := range glosses {
		fmt.Fprintf(bw, "q\t%s\t\n", g)
	}
	keys := make([]string, 0, len(words))
	for k := range words {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	fmt.Fprintf(bw, "words %d\n", len(keys))
	for _, k := range keys {
		var ids []int
		for n := range words[k] {
			if n.off < 0 {
				ids = append(ids, glossID[n.gloss])
			} else {
				ids = append(ids, id[n.off])
			}
		}
		slices.Sort(ids)
		fmt.Fprintf(bw, "%s\t%s\n", k, joinInts(ids))
	}
	if err := bw.Flush(); err != nil {
		return st, fmt.Errorf("write table: %w", err)
	}
	if err := zw.Close(); err != nil {
		return st, fmt.Errorf("write table: %w", err)
	}
	st.words, st.synsets, st.glosses = len(keys), len(offs)+len(glosses), len(glosses)
	return st, nil
}

func joinInts(xs []int) string {
	var b strings.Builder
	for i, x := range xs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(x))
	}
	return b.String()
}

// nounPOS are the EDICT part-of-speech tags of a noun sense.
var nounPOS = map[string]bool{"n": true, "n-adv": true, "n-t": true, "vs": true, "n-suf": true, "n-pref": true, "n-pr": true}

// readEdict returns the common (P) entries with a noun sense among their
// first senses: their keys' spellings and the cleaned glosses of their first
// maxSenses noun senses, the first maxGlosses of each.
func readEdict(r io.Reader, maxSenses, maxGlosses int) ([]entry, error) {
	var out []entry
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		head, body, ok := strings.Cut(line, " /")
		if !ok || !strings.Contains(body, "/(P)/") {
			continue
		}
		kanji, reading, _ := strings.Cut(head, " [")
		reading = strings.TrimSuffix(reading, "]")
		var (
			e        entry
			pos      []string // the tags of the sense being read
			uk       bool     // the first sense is usually written in kana
			sense    int      // senses started
			noun     int      // noun senses read
			readThis bool
			read     int // glosses read of this sense
		)
		for _, part := range strings.Split(body, "/") {
			if part == "" || part == "(P)" || strings.HasPrefix(part, "EntL") {
				continue
			}
			tags, gloss := leadingTags(part)
			newSense := sense == 0
			var newPOS []string
			for _, t := range tags {
				if _, err := strconv.Atoi(t); err == nil {
					newSense = true
					continue
				}
				if isPOS(t) {
					newPOS = append(newPOS, strings.Split(t, ",")...)
				}
			}
			if newSense {
				sense++
				if newPOS != nil {
					pos = newPOS
				}
				readThis, read = false, 0
				if slices.ContainsFunc(pos, func(p string) bool { return nounPOS[p] }) && noun < maxSenses {
					noun++
					readThis = true
				}
				if sense == 1 {
					for _, t := range tags {
						uk = uk || t == "uk"
					}
				}
			}
			if readThis && read < maxGlosses {
				read++
				if g := cleanGloss(gloss); g != "" && !slices.Contains(e.glosses, g) {
					e.glosses = append(e.glosses, g)
				}
			}
		}
		if len(e.glosses) == 0 {
			continue
		}
		if hasKanji(kanji) || isKatakana(kanji) {
			e.spellings = append(e.spellings, kanji)
		}
		if reading != "" && uk {
			e.spellings = append(e.spellings, reading)
		}
		if len(e.spellings) > 0 {
			out = append(out, e)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// leadingTags splits the parenthesized tags off the start of a gloss:
// "(n,vs) (1) part-time job" is [n,vs 1], "part-time job".
func leadingTags(s string) ([]string, string) {
	var tags []string
	for strings.HasPrefix(s, "(") {
		end := strings.IndexByte(s, ')')
		if end < 0 {
			break
		}
		tags = append(tags, s[1:end])
		s = strings.TrimLeft(s[end+1:], " ")
	}
	return tags, s
}

// posTags are EDICT's part-of-speech tags other than those posPrefixes
// cover; every other tag ((uk), (abbr), (comp), 1, 2...) is no part of speech.
var posTags = map[string]bool{"adv": true, "adv-to": true, "aux": true, "aux-v": true, "aux-adj": true, "conj": true,
	"cop": true, "ctr": true, "exp": true, "int": true, "num": true, "pn": true, "pref": true, "prt": true, "suf": true,
	"unc": true, "vk": true, "vn": true, "vr": true, "vz": true, "vi": true, "vt": true}

var posPrefixes = []string{"adj-", "v1", "v2", "v4", "v5", "vs"}

// isPOS reports whether a tag is a part-of-speech list ("n", "n,vs", "adj-na,n").
func isPOS(t string) bool {
	for _, p := range strings.Split(t, ",") {
		if !nounPOS[p] && !posTags[p] && !slices.ContainsFunc(posPrefixes, func(x string) bool { return strings.HasPrefix(p, x) }) {
			return false
		}
	}
	return true
}

// cleanGloss returns a gloss as a WordNet lemma would spell it: lower case,
// without parentheticals, a leading "to" or article, and outer spaces.
func cleanGloss(g string) string {
	var b strings.Builder
	depth := 0
	for _, r := range g {
		switch {
		case r == '(' || r == '{':
			depth++
		case (r == ')' || r == '}') && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	s := strings.ToLower(strings.Join(strings.Fields(b.String()), " "))
	for _, p := range []string{"to ", "a ", "an ", "the "} {
		s = strings.TrimPrefix(s, p)
	}
	if strings.ContainsAny(s, ";:\"") {
		return ""
	}
	return s
}

func hasKanji(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r >= 0x4E00 && r <= 0x9FFF || r >= 0x3400 && r <= 0x4DBF })
}

func isKatakana(s string) bool {
	return s != "" && strings.IndexFunc(s, func(r rune) bool { return !(r >= 'ァ' && r <= 'ヺ' || r == 'ー') }) < 0
}

// readIndex returns each noun lemma's first n synset offsets, the most
// frequent sense first (wndb(5): lemma pos synset_cnt p_cnt [ptr_symbol...]
// sense_cnt tagsense_cnt synset_offset...).
func readIndex(r io.Reader, n int) (map[string][]int64, error) {
	out := map[string][]int64{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for ln := 1; sc.Scan(); ln++ {
		line := sc.Text()
		if strings.HasPrefix(line, " ") || line == "" {
			continue // the licence header
		}
		f := strings.Fields(line)
		if len(f) < 6 {
			return nil, fmt.Errorf("line %d: too few fields", ln)
		}
		synCnt, err1 := strconv.Atoi(f[2])
		pCnt, err2 := strconv.Atoi(f[3])
		if err1 != nil || err2 != nil || len(f) != 4+pCnt+2+synCnt {
			return nil, fmt.Errorf("line %d: counts do not match the fields", ln)
		}
		offs := f[4+pCnt+2:]
		for _, o := range offs[:min(n, len(offs))] {
			v, err := strconv.ParseInt(o, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", ln, err)
			}
			out[f[0]] = append(out[f[0]], v)
		}
	}
	return out, sc.Err()
}

// synset is what the table keeps of a WordNet noun synset.
type synset struct {
	name   string  // its first lemma
	hypers []int64 // its hypernyms and instance hypernyms
}

// readData returns the noun synsets by offset (wndb(5): synset_offset
// lex_filenum ss_type w_cnt word lex_id [word lex_id...] p_cnt [ptr...] |
// gloss, where w_cnt is hexadecimal and a ptr is symbol offset pos
// source/target).
func readData(r io.Reader) (map[int64]synset, error) {
	out := map[int64]synset{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for ln := 1; sc.Scan(); ln++ {
		line := sc.Text()
		if strings.HasPrefix(line, " ") || line == "" {
			continue
		}
		line, _, _ = strings.Cut(line, " | ")
		f := strings.Fields(line)
		if len(f) < 4 {
			return nil, fmt.Errorf("line %d: too few fields", ln)
		}
		off, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("line %d: offset: %w", ln, err)
		}
		wCnt, err := strconv.ParseInt(f[3], 16, 32)
		if err != nil || len(f) < 4+2*int(wCnt)+1 {
			return nil, fmt.Errorf("line %d: word count", ln)
		}
		s := synset{name: f[4]}
		i := 4 + 2*int(wCnt)
		pCnt, err := strconv.Atoi(f[i])
		if err != nil || len(f) < i+1+4*pCnt {
			return nil, fmt.Errorf("line %d: pointer count", ln)
		}
		for p := range pCnt {
			ptr := f[i+1+4*p : i+5+4*p]
			if (ptr[0] == "@" || ptr[0] == "@i") && ptr[2] == "n" {
				h, err := strconv.ParseInt(ptr[1], 10, 64)
				if err != nil {
					return nil, fmt.Errorf("line %d: pointer: %w", ln, err)
				}
				s.hypers = append(s.hypers, h)
			}
		}
		out[off] = s
	}
	return out, sc.Err()
}

// generalSynsets returns the synsets with more than limit hyponyms and
// instances below them (counted along every path, so a hyponym with two
// hypernyms counts twice): too broad for two words under them to be siblings.
func generalSynsets(syns map[int64]synset, limit int) map[int64]bool {
	children := map[int64][]int64{}
	for o, s := range syns {
		for _, h := range s.hypers {
			children[h] = append(children[h], o)
		}
	}
	count := map[int64]int{}
	var below func(o int64) int
	below = func(o int64) int {
		if c, ok := count[o]; ok {
			return c
		}
		count[o] = 0 // a cycle, which WordNet has none of, ends here
		c := 0
		for _, ch := range children[o] {
			c += 1 + below(ch)
		}
		count[o] = c
		return c
	}
	out := map[int64]bool{}
	for o := range syns {
		if below(o) > limit {
			out[o] = true
		}
	}
	return out
}
