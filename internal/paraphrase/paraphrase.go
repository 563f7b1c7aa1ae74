// Package paraphrase makes labelled questions about a person's memory that
// ask in other words, from real conversation (the haystack, which may be
// learned from), so that a relevance model can learn when to trust meaning
// (docs/quality.md, "Paraphrase labels made here"). It writes the eval
// suites' format (package dataset); nothing it makes is committed.
//
// A synthetic person is a real speaker's exchanges, drawn by a seed. For a
// memory and one of its nouns, Generate asks:
//
//   - paraphrase: about the noun by an equivalent word (the thesaurus's
//     equivalents, SudachiDict's synonyms), in a question frame, sharing no
//     analyzer term with the memory; the memory is relevant.
//   - kind-of: the same by a word the noun is a kind of (柴犬 → 犬).
//   - sibling: by a co-hyponym the person's memory never names (野球 →
//     サッカー), alone or beside another word of the memory; nothing is
//     relevant.
//   - lexical: by the noun itself; the memory is relevant, so lexical skill
//     is kept.
//   - unrelated: by a noun of another speaker that nothing of the person's
//     memory names or relates to; nothing is relevant.
package paraphrase

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ikawaha/kagome-dict/ipa"
	"github.com/ikawaha/kagome/v2/tokenizer"

	"github.com/omoide/omoide/dataset"
	"github.com/omoide/omoide/thesaurus"
	"github.com/omoide/omoide/tokenize"
)

// Thesaurus is what Generate asks of a word table (thesaurus.Table).
type Thesaurus interface {
	Has(w string) bool
	Relate(a, b string) thesaurus.Relation
	Synonyms(w string) []string
	Kinds(w string) []string
	Siblings(w string) []string
}

// The defaults of Options.
const (
	DefaultPeople   = 80
	DefaultMemories = 30
	DefaultMinRunes = 8 // an exchange's user text shorter than this says too little to be a memory
	// DefaultMinCount is the fewest exchanges a word must be named in to be
	// asked by: chat's own words, not a dictionary's rarities (評決, イナカ).
	DefaultMinCount = 20
)

// generic are nouns too general to be what a memory is about, though the
// thesaurus knows them: a question by them asks about nothing.
var generic = []string{"お願い", "お話", "こと", "ところ", "もの", "イメージ", "一緒", "中", "事", "人", "今", "他", "前",
	"場合", "子", "後", "方", "最高", "本当", "気", "物", "感じ", "時", "時間", "自分", "話", "うち", "全部", "普段", "結構", "最近", "毎日", "意味", "理由", "部分", "程度", "大丈夫"}

// Options say what Generate makes; a zero field takes its default.
type Options struct {
	People   int    // synthetic people, at most one per speaker (DefaultPeople)
	Memories int    // memories of each (DefaultMemories)
	Seed     uint64 // the draw; the same seed and input make the same suite
	// Analyzer checks that a paraphrase shares no term with its memory
	// (tokenize.CJK2, the default of new stores, when nil).
	Analyzer tokenize.Analyzer
	// Thesaurus gives equivalents, kinds and siblings (required).
	Thesaurus Thesaurus
	// Synonyms gives more equivalents (synonym.Of); nil gives none.
	Synonyms func(term string) []string
	// MinCount is the fewest of the exchanges given that must name a word
	// for a question to ask by it (DefaultMinCount).
	MinCount int
}

// Stats count what Generate made, by category.
type Stats struct {
	Speakers, People, Episodes int
	Queries                    map[string]int
}

// frames are the question frames: %s is the word asked about.
var frames = []string{
	"%sはどうなった？",
	"この前話してた%sのこと覚えてる？",
	"%sの話、もう一回聞かせて",
	"そういえば%sってどうだったっけ",
	"前に言ってた%s、その後どう？",
	"%sのこと、また教えてよ",
	"%sについて話したの、いつだっけ？",
	"ねえ、%sの件ってどんな感じだった？",
}

// pairFrames ask about a word beside another word of the memory (%[2]s):
// the sibling that shares the memory's frame but not its thing.
var pairFrames = []string{
	"%[2]sの時の%[1]sってどうだった？",
	"%[1]sと%[2]sの話、覚えてる？",
	"%[2]sで%[1]sのこと話したよね",
}

// Generate makes a suite from exchanges (the haystack's, grouped by their
// User, each a speaker): people, their episodes and labelled queries.
// Deterministic for the same exchanges (in any order), options and tables.
func Generate(exchanges []dataset.Episode, o Options) ([]dataset.Episode, []dataset.Query, Stats, error) {
	o.People = cmpOr(o.People, DefaultPeople)
	o.Memories = cmpOr(o.Memories, DefaultMemories)
	o.MinCount = cmpOr(o.MinCount, DefaultMinCount)
	if o.Analyzer == nil {
		o.Analyzer = tokenize.CJK2()
	}
	if o.Thesaurus == nil {
		return nil, nil, Stats{}, fmt.Errorf("paraphrase: no thesaurus")
	}
	tok, err := tokenizer.New(ipa.Dict(), tokenizer.OmitBosEos())
	if err != nil {
		return nil, nil, Stats{}, fmt.Errorf("paraphrase: %w", err)
	}
	g := &generator{o: o, tok: tok, rng: rand.New(rand.NewPCG(o.Seed, 0x9e3779b97f4a7c15))}
	g.counts = g.count(exchanges)
	speakers := g.speakers(exchanges)
	st := Stats{Speakers: len(speakers), Queries: map[string]int{}}
	var eps []dataset.Episode
	var qs []dataset.Query
	pool := g.pool(speakers) // nouns of every speaker, for unrelated questions
	for _, sp := range speakers {
		if st.People == o.People {
			break
		}
		p := g.person(sp, st.People+1)
		if p == nil {
			continue
		}
		st.People++
		eps = append(eps, p.episodes...)
		for _, q := range g.questions(p, pool) {
			st.Queries[q.Category]++
			qs = append(qs, q)
		}
	}
	st.Episodes = len(eps)
	if st.People == 0 {
		return nil, nil, st, fmt.Errorf("paraphrase: no speaker has %d exchanges that name a word the thesaurus knows", o.Memories)
	}
	return eps, qs, st, nil
}

func cmpOr(v, d int) int {
	if v > 0 {
		return v
	}
	return d
}

type generator struct {
	o      Options
	tok    *tokenizer.Tokenizer
	rng    *rand.Rand
	counts map[string]int // the exchanges that name each noun
}

// count returns how many exchanges name each noun the thesaurus knows, on
// two goroutines (the tokenizer is safe for concurrent use).
func (g *generator) count(exchanges []dataset.Episode) map[string]int {
	const parts = 2
	partial := make([]map[string]int, parts)
	var wg sync.WaitGroup
	for p := range parts {
		wg.Go(func() {
			m := map[string]int{}
			for _, e := range exchanges[p*len(exchanges)/parts : (p+1)*len(exchanges)/parts] {
				for _, n := range g.nouns(e.UserText + "。" + e.ReplyText) {
					m[n]++
				}
			}
			partial[p] = m
		})
	}
	wg.Wait()
	for n, c := range partial[1] {
		partial[0][n] += c
	}
	return partial[0]
}

// common reports whether w is a word of chat to ask by: named in MinCount
// exchanges, and not too general.
func (g *generator) common(w string) bool {
	return g.counts[w] >= g.o.MinCount && !slices.Contains(generic, w)
}

// speaker is one speaker's exchanges, in time order.
type speaker struct {
	name      string
	exchanges []dataset.Episode
}

// speakers groups exchanges by speaker, sorted by name, each speaker's in
// time order (then id), and shuffles the speakers by the seed.
func (g *generator) speakers(exchanges []dataset.Episode) []speaker {
	by := map[string][]dataset.Episode{}
	for _, e := range exchanges {
		by[e.User] = append(by[e.User], e)
	}
	names := make([]string, 0, len(by))
	for n := range by {
		names = append(names, n)
	}
	slices.Sort(names)
	out := make([]speaker, 0, len(names))
	for _, n := range names {
		es := by[n]
		slices.SortFunc(es, func(a, b dataset.Episode) int {
			if c := a.OccurredAt.Compare(b.OccurredAt); c != 0 {
				return c
			}
			return strings.Compare(a.ID, b.ID)
		})
		out = append(out, speaker{n, es})
	}
	g.rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// memory is one episode of a synthetic person, with what the generator
// needs of it.
type memory struct {
	ep    dataset.Episode
	terms map[string]bool // its indexed terms (user and reply text)
	nouns []string        // its user text's nouns the thesaurus knows, in order, once each
}

// person is a synthetic person: a speaker's memories.
type person struct {
	name     string
	episodes []dataset.Episode
	mems     []memory
	terms    map[string]bool // every memory's indexed terms
	nouns    []string        // every memory's nouns, sorted, once each
	last     time.Time
}

// nouns returns the nouns of text that the thesaurus knows: common nouns,
// verbal nouns and proper nouns, once each, in order.
func (g *generator) nouns(text string) []string {
	var out []string
	for _, t := range g.tok.Tokenize(text) {
		f := t.Features()
		if len(f) < 2 || f[0] != "名詞" {
			continue
		}
		switch f[1] {
		case "一般", "サ変接続", "固有名詞":
		default:
			continue
		}
		if !g.o.Thesaurus.Has(t.Surface) || slices.Contains(out, t.Surface) {
			continue
		}
		out = append(out, t.Surface)
	}
	return out
}

// indexed returns the terms the store indexes for texts.
func (g *generator) indexed(texts ...string) map[string]bool {
	m := map[string]bool{}
	for _, s := range texts {
		for _, t := range strings.Fields(g.o.Analyzer.Index(s)) {
			m[t] = true
		}
	}
	return m
}

// person draws a synthetic person from a speaker: Memories exchanges that
// name a word the thesaurus knows, spread over the speaker's time, or nil
// when the speaker has too few.
func (g *generator) person(sp speaker, n int) *person {
	var ok []memory
	for _, e := range sp.exchanges {
		if utf8.RuneCountInString(e.UserText) < DefaultMinRunes {
			continue
		}
		if ns := slices.DeleteFunc(g.nouns(e.UserText), func(n string) bool { return !g.common(n) }); len(ns) > 0 {
			ok = append(ok, memory{ep: e, nouns: ns})
		}
	}
	if len(ok) < g.o.Memories {
		return nil
	}
	// every k-th from a random start: spread over the speaker's time
	picked := make([]memory, 0, g.o.Memories)
	step := float64(len(ok)) / float64(g.o.Memories)
	off := g.rng.Float64() * step
	for i := range g.o.Memories {
		picked = append(picked, ok[int(off+float64(i)*step)])
	}
	p := &person{name: fmt.Sprintf("para-%03d", n), terms: map[string]bool{}}
	for i := range picked {
		m := &picked[i]
		m.ep.User = p.name
		m.ep.ID = fmt.Sprintf("%s:%02d", p.name, i+1)
		m.ep.Source = ""
		m.terms = g.indexed(m.ep.UserText, m.ep.ReplyText)
		for t := range m.terms {
			p.terms[t] = true
		}
		p.nouns = append(p.nouns, m.nouns...)
		p.episodes = append(p.episodes, m.ep)
		p.last = m.ep.OccurredAt
	}
	slices.Sort(p.nouns)
	p.nouns = slices.Compact(p.nouns)
	p.mems = picked
	return p
}

// pool returns nouns of every speaker's exchanges (a sample), sorted once
// each: the unrelated questions' words.
func (g *generator) pool(speakers []speaker) []string {
	var out []string
	for _, sp := range speakers {
		for i := 0; i < len(sp.exchanges); i += 97 {
			out = append(out, slices.DeleteFunc(g.nouns(sp.exchanges[i].UserText), func(n string) bool { return !g.common(n) })...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Per person, at most this many queries of each category.
var perPerson = map[string]int{"paraphrase": 4, "kind-of": 2, "sibling": 4, "lexical": 3, "unrelated": 2}

// categories in the order questions are made.
var categories = []string{"paraphrase", "kind-of", "sibling", "lexical", "unrelated"}

// questions makes a person's labelled queries.
func (g *generator) questions(p *person, pool []string) []dataset.Query {
	var out []dataset.Query
	now := p.last.Add(7 * 24 * time.Hour)
	count := map[string]int{}
	add := func(cat, text string, rel []string) {
		count[cat]++
		if rel == nil {
			rel = []string{}
		}
		out = append(out, dataset.Query{ID: fmt.Sprintf("%s:q%02d", p.name, len(out)+1), User: p.name, Text: text,
			Context: []dataset.Message{}, Now: now, Relevant: rel, Category: cat})
	}
	order := g.rng.Perm(len(p.mems))
	for _, cat := range categories {
		for _, mi := range order {
			if count[cat] >= perPerson[cat] {
				break
			}
			m := p.mems[mi]
			if cat == "unrelated" {
				if text, ok := g.unrelated(p, pool); ok {
					add(cat, text, nil)
				}
				continue
			}
			for _, n := range m.nouns {
				text, ok := g.ask(cat, p, m, n)
				if !ok {
					continue
				}
				var rel []string
				if cat != "sibling" {
					rel = []string{m.ep.ID}
				}
				add(cat, text, rel)
				break
			}
		}
	}
	return out
}

// ask makes a question of category cat about noun n of memory m, or false.
func (g *generator) ask(cat string, p *person, m memory, n string) (string, bool) {
	th := g.o.Thesaurus
	switch cat {
	case "lexical":
		// the noun itself, named by no other memory of the person
		for _, o := range p.mems {
			if o.ep.ID != m.ep.ID && slices.Contains(o.nouns, n) {
				return "", false
			}
		}
		return g.frame(n, nil)
	case "paraphrase", "kind-of":
		var words []string
		if cat == "paraphrase" {
			words = g.equivalents(n)
		} else {
			words = slices.Clone(th.Kinds(n))
		}
		for _, w := range g.shuffled(words) {
			if t, ok := g.frame(w, m.terms); ok {
				return t, true
			}
		}
	case "sibling":
		for _, w := range g.shuffled(slices.Clone(th.Siblings(n))) {
			if !g.foreign(p, w) {
				continue
			}
			if other := g.otherNoun(m, n); other != "" && g.rng.IntN(2) == 0 {
				f := pairFrames[g.rng.IntN(len(pairFrames))]
				t := fmt.Sprintf(f, w, other)
				if g.termsOnly(t, w, other) {
					return t, true
				}
			}
			if t, ok := g.frame(w, nil); ok {
				return t, true
			}
		}
	}
	return "", false
}

// equivalents returns the words a paraphrase may ask by instead of n:
// SudachiDict's synonyms in Japanese script that are not n's reading
// (シュジン for 主人 is no one's spelling), and the thesaurus's
// equivalents of a word that has few (thesaurus.Table.Synonyms).
func (g *generator) equivalents(n string) []string {
	var out []string
	if g.o.Synonyms != nil {
		reading := g.reading(n)
		for _, w := range g.o.Synonyms(n) {
			if japanese(w) && w != reading && w != kanaToHiragana(reading) {
				out = append(out, w)
			}
		}
	}
	return append(out, g.o.Thesaurus.Synonyms(n)...)
}

// reading returns n's reading in katakana as the IPA dictionary gives it
// ("" when n is not one word of it).
func (g *generator) reading(n string) string {
	toks := g.tok.Tokenize(n)
	if len(toks) != 1 {
		return ""
	}
	r, _ := toks[0].Reading()
	return r
}

// japanese reports whether w is written in Japanese script only.
func japanese(w string) bool {
	for _, r := range w {
		if !unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) && r != 'ー' {
			return false
		}
	}
	return w != ""
}

// kanaToHiragana returns katakana s in hiragana.
func kanaToHiragana(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'ァ' && r <= 'ヶ' {
			return r - 'ァ' + 'ぁ'
		}
		return r
	}, s)
}

// foreign reports whether w names nothing of the person's memory: none of
// its terms is indexed there and it relates to none of their nouns but as
// a sibling.
func (g *generator) foreign(p *person, w string) bool {
	for _, t := range g.wordTerms(w) {
		if p.terms[t] {
			return false
		}
	}
	for _, n := range p.nouns {
		if r := g.o.Thesaurus.Relate(w, n); r == thesaurus.Equivalent || r == thesaurus.KindOf {
			return false
		}
	}
	return true
}

// unrelated makes a question about a noun of the pool that relates to
// nothing of the person's memory.
func (g *generator) unrelated(p *person, pool []string) (string, bool) {
	for range 50 {
		w := pool[g.rng.IntN(len(pool))]
		if !g.foreign(p, w) {
			continue
		}
		related := false
		for _, n := range p.nouns {
			if g.o.Thesaurus.Relate(w, n) != thesaurus.None {
				related = true
				break
			}
		}
		if !related {
			return g.frame(w, nil)
		}
	}
	return "", false
}

// otherNoun returns another noun of m than n, one that names nothing of n.
func (g *generator) otherNoun(m memory, n string) string {
	for _, o := range m.nouns {
		if o != n && !strings.Contains(o, n) && !strings.Contains(n, o) {
			return o
		}
	}
	return ""
}

// frame puts w in a question frame drawn by the seed; with avoid, only a
// question none of whose terms avoid holds (a paraphrase: no shared term).
func (g *generator) frame(w string, avoid map[string]bool) (string, bool) {
	if len(g.wordTerms(w)) == 0 {
		return "", false
	}
	for _, i := range g.rng.Perm(len(frames)) {
		t := fmt.Sprintf(frames[i], w)
		if avoid == nil {
			if g.termsOnly(t, w) {
				return t, true
			}
			continue
		}
		shared := false
		for _, term := range g.o.Analyzer.Terms(t) {
			if avoid[term] {
				shared = true
				break
			}
		}
		if !shared && g.termsOnly(t, w) {
			return t, true
		}
	}
	return "", false
}

// termsOnly reports whether the question t still holds the terms of each
// word: the frame did not fuse a word with its neighbour.
func (g *generator) termsOnly(t string, words ...string) bool {
	qt := g.o.Analyzer.Terms(t)
	for _, w := range words {
		for _, term := range g.wordTerms(w) {
			if !slices.Contains(qt, term) {
				return false
			}
		}
	}
	return true
}

// wordTerms returns the query terms of w as a Japanese sentence holds it (a
// bare Han word reads as Chinese).
func (g *generator) wordTerms(w string) []string {
	frame := g.o.Analyzer.Terms("それはです")
	return slices.DeleteFunc(g.o.Analyzer.Terms("それは"+w+"です"), func(t string) bool { return slices.Contains(frame, t) })
}

// shuffled returns the common words of words (common), sorted, once each,
// in the seed's order.
func (g *generator) shuffled(words []string) []string {
	words = slices.DeleteFunc(words, func(w string) bool { return !g.common(w) })
	slices.Sort(words)
	words = slices.Compact(words)
	g.rng.Shuffle(len(words), func(i, j int) { words[i], words[j] = words[j], words[i] })
	return words
}
