package retriever

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/internal/pytext"
	"github.com/omoide/omoide/lang"
	"github.com/omoide/omoide/ngram"
	"github.com/omoide/omoide/thesaurus"
	"github.com/omoide/omoide/tokenize"
)

// fetch reads the fused candidates' episodes, their n-grams and, when the
// ranking measures terms or candidates are asked for, their term coverage of
// the message and proximity.
func (rt *retrieval) fetch(ctx context.Context) error {
	t := time.Now()
	if rt.opts.Rank.MeasuresTerms() || rt.withCandidates {
		terms := rt.q.terms[0] // the message's, unless clipped for BM25
		if c := rt.opts.BM25.MaxChars; c > 0 && utf8.RuneCountInString(pytext.Compact(rt.text)) > c {
			q := queryTexts{terms: [][]string{rt.analyzer.Terms(rt.text)}}
			q.withoutTimeTerms(rt.timeTerms)
			terms = q.terms[0]
		}
		var context []string // the recent turns' terms, newest first (BM25.MessageFirst's Q2)
		if len(rt.q.terms) > 1 && rt.opts.BM25.MessageFirst && rt.wants("context_coverage") {
			context = rt.q.terms[1]
		}
		var err error
		if rt.cover, err = rt.termWeights(ctx, terms, context); err != nil {
			return err
		}
		if nf, ok := rt.analyzer.(tokenize.NameFinder); ok && rt.cover != nil {
			rt.cover.markNames(nf.Names(rt.text))
		}
		if kana, _, _, _ := lang.Shares(rt.text); rt.bridges != nil && rt.opts.Bridges && kana > 0 {
			rt.bridge = newBridgeWords(rt.bridges, terms)
		}
	}
	ids := make([]int64, len(rt.fused))
	for i, f := range rt.fused {
		ids[i] = f.ID
	}
	if rt.opts.Meaning != nil {
		rt.meaning = rt.opts.Meaning.TermsVector(strings.Fields(rt.analyzer.Index(rt.text)))
	}
	var err error
	if rt.eps, rt.grams, rt.matches, err = rt.read(ctx, ids, rt.measures()); err != nil {
		return err
	}
	rt.tr.Fetch = time.Since(t)
	rt.tr.Fetched = len(rt.eps)
	return nil
}

// wants reports whether a feature of the candidates (rerank.FeatureNames) is
// needed: the decision's model reads it, or the candidates are asked for.
// What no one reads is not measured (context_coverage's second DocFreq,
// the candidates' standing).
func (rt *retrieval) wants(feature string) bool {
	m := rt.opts.Rank.Inject.Model
	return rt.withCandidates || m != nil && slices.Contains(m.Features, feature)
}

// measures are what read measures of each candidate beside its n-grams.
type measures struct {
	cover   *termWeights // coverage and proximity
	meaning []float32    // the message's learned vector: Parts.Meaning
	bridge  *bridgeWords // Parts.Bridge
}

func (rt *retrieval) measures() measures { return measures{rt.cover, rt.meaning, rt.bridge} }

// fetchParts is how many concurrent reads fetch the candidates; fetchPart is
// the fewest candidates worth a read of their own.
const (
	fetchParts = 2
	fetchPart  = 16
)

// read returns the episodes of ids still in the store, in the order of ids,
// with each one's rerank n-grams and what m measures: its coverage of the
// message and proximity, the cosine of its terms' learned vector with the
// message's, its bridge to the message's words. The candidates are read in up to fetchParts parts at once,
// each part's n-grams and coverage made as it arrives: the searches are over,
// and reading and n-gramming sixty episodes on one core left the other idle.
func (r *Retriever) read(ctx context.Context, ids []int64, m measures) ([]episode.Episode, []ngram.Set, []termMatch, error) {
	parts := min(fetchParts, max(1, len(ids)/fetchPart))
	eps, grams, covs, errs := make([][]episode.Episode, parts), make([][]ngram.Set, parts), make([][]termMatch, parts), make([]error, parts)
	read := func(p int) {
		part := ids[p*len(ids)/parts : (p+1)*len(ids)/parts]
		var held []episode.Terms
		if m.cover == nil && m.meaning == nil && m.bridge == nil {
			eps[p], errs[p] = r.store.GetMany(ctx, part)
		} else {
			eps[p], held, errs[p] = r.store.GetManyTerms(ctx, part)
		}
		if errs[p] != nil {
			return
		}
		grams[p] = make([]ngram.Set, len(eps[p]))
		for i, e := range eps[p] {
			grams[p][i] = r.opts.Rank.Ngrams.Episode(e.UserText, e.ReplyText)
		}
		covs[p] = make([]termMatch, len(eps[p]))
		var sc matchScratch
		for i := range held {
			if m.cover != nil {
				covs[p][i] = m.cover.match(held[i], companionReply(eps[p][i]), &sc)
			}
			var all []string
			if m.meaning != nil || m.bridge != nil {
				all = held[i].All()
			}
			if m.meaning != nil {
				covs[p][i].meaning = cosine(m.meaning, r.opts.Meaning.TermsVector(all))
			}
			if m.bridge != nil {
				covs[p][i].bridge = m.bridge.relation(all)
			}
		}
	}
	var wg sync.WaitGroup
	for p := 1; p < parts; p++ {
		wg.Go(func() { read(p) })
	}
	read(0)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, nil, nil, fmt.Errorf("retriever: fetch candidates: %w", err)
	}
	return slices.Concat(eps...), slices.Concat(grams...), slices.Concat(covs...), nil
}

// termWeights are a message's distinct terms, sorted, with their IDF
// weights: idf(t) = ln(1 + N/(df(t)+1)) from the store's whole FTS index.
// A term no episode holds weighs ln(1 + N), the most, with
// Options.UnseenTerms (the memory never saw it, so no candidate speaks of
// it), times N/(N+youngStore), else 0. With synonyms (and a Korean noun's forms, Options.Forms), a
// term and its synonyms are one class: df is the sum of theirs (at most N),
// and an episode holding any of them holds the term. With
// Options.LightTerms, a light term (tokenize.Lexicon.Light) weighs
// lightShare of its IDF and counts only beside a held content term. The
// recent turns' terms that are none of the message's are among the terms
// too, marked context: they make contextCoverage, never the message's.
type termWeights struct {
	terms   []string
	weights []float64
	light   []bool // light[i]: terms[i] is a function word or light verb
	unseen  []bool // unseen[i]: no episode holds terms[i] (Options.UnseenTerms)
	context []bool // context[i]: terms[i] is the recent turns', not the message's
	sum     float64
	ctxSum  float64 // the context terms' weights
	// content has bit i set for the message's content terms (weighed, not
	// light, not context) among the first 64: termMatch.held's bits.
	content uint64
	// replyDiscount is Options.ReplyDiscount.
	replyDiscount float64
	// most is the weight of a term no episode but one holds, ln(1 + N/2):
	// the scale of a held term's rarity (Parts.Rarity).
	most float64
	// names has bit i set for the content terms that are names in the
	// message (tokenize.NameFinder): "Emma", not "grocery".
	names uint64
	// next[i] is the index of the term that follows terms[i] in the
	// message, -1 for the last; pairSum weighs every adjacent pair.
	next    []int
	pairSum float64
	// keys are the terms and their synonyms, sorted; keys[i] stands for
	// terms[owner[i]].
	keys  []string
	owner []int
}

// bridgeWords are a message's terms, sorted, and those of them the table
// knows, for Parts.Bridge.
type bridgeWords struct {
	table        *thesaurus.Table
	terms, known []string
}

// newBridgeWords returns the bridge words of a message's terms, nil when
// the table knows none of them.
func newBridgeWords(th *thesaurus.Table, terms []string) *bridgeWords {
	b := &bridgeWords{table: th, terms: slices.Clone(terms)}
	slices.Sort(b.terms)
	b.terms = slices.Compact(b.terms)
	for _, t := range b.terms {
		if th.Has(t) {
			b.known = append(b.known, t)
		}
	}
	if len(b.known) == 0 {
		return nil
	}
	return b
}

// relation returns the strongest relation the table knows between a known
// message term and a held term that is none of the message's.
func (b *bridgeWords) relation(held []string) thesaurus.Relation {
	best := thesaurus.None
	for _, t := range held {
		if _, mine := slices.BinarySearch(b.terms, t); mine || !b.table.Has(t) {
			continue
		}
		for _, k := range b.known {
			if r := b.table.Relate(k, t); r > best {
				if best = r; best == thesaurus.Equivalent {
					return best
				}
			}
		}
	}
	return best
}

// companionReply reports whether e's reply is the companion's words beside
// the person's: an exchange with a user text. A summary or a fact written
// as the reply, or an exchange of the reply alone, is all the memory says
// (Options.ReplyDiscount spares it).
func companionReply(e episode.Episode) bool {
	return (e.Kind == episode.KindEpisode || e.Kind == 0) && strings.TrimSpace(e.UserText) != ""
}

// matchScratch is termWeights.match's working space.
type matchScratch struct {
	seen, user []bool
	idx        []int
}

// termMatch is how an episode's indexed terms match the message's.
type termMatch struct {
	coverage, proximity, lacking float64
	// userCoverage is coverage counting only the terms of the user text:
	// a match only in the companion's reply is no word of the person's.
	userCoverage float64
	// contextCoverage is the same share of the recent turns' terms
	// (termWeights' context terms): what a turn that leans on them is about.
	contextCoverage float64
	// held has bit j set when the episode holds message content term j
	// (termWeights.content), for its standing among the candidates.
	held    uint64
	meaning float64            // Parts.Meaning
	bridge  thesaurus.Relation // Parts.Bridge
}

// cosine is the dot product of two unit vectors; 0 when either is nil.
func cosine(a, b []float32) float64 {
	if a == nil || b == nil {
		return 0
	}
	var d float32
	for i, x := range a {
		d += x * b[i]
	}
	return float64(d)
}

// youngStore is the store size at which an unseen term weighs half its
// IDF: in a store of N episodes it weighs N/(N+youngStore) of ln(1 + N).
// That a young store (three episodes) never saw a word says little (it has
// seen few words at all), and weighed whole, the new words of a message
// that does share its content word with a memory (熱はもう下がった？ of
// 熱があって) would outweigh it; that a store of thousands never saw it says
// the memory is not about it.
const youngStore = 20

// lightShare is the share of its IDF a light term weighs in coverage
// (Options.LightTerms): a fifth, so that a message's content words decide.
const lightShare = 0.2

// proximityWindow is how many indexed terms after a message term its
// successor in the message may come to count as near: the analyzers drop
// particles, so "梅雨の期間" is indexed as adjacent terms, and a window of 2
// lets one word stand between.
const proximityWindow = 2

// maxContextTerms bounds the recent turns' terms weighed for
// contextCoverage: the newest turns' come first.
const maxContextTerms = 48

// termWeights returns the weights of terms and of the recent turns' terms
// context (those that are not the message's, up to maxContextTerms), or
// nil when the message's weigh nothing.
func (r *Retriever) termWeights(ctx context.Context, terms, context []string) (*termWeights, error) {
	if len(terms) == 0 {
		return nil, nil
	}
	w := &termWeights{terms: slices.Clone(terms), replyDiscount: r.opts.ReplyDiscount}
	slices.Sort(w.terms)
	w.terms = slices.Compact(w.terms)
	var extra []string
	for _, t := range context {
		if len(extra) == maxContextTerms {
			break
		}
		if _, mine := slices.BinarySearch(w.terms, t); !mine && !slices.Contains(extra, t) {
			extra = append(extra, t)
		}
	}
	isContext := make(map[string]bool, len(extra))
	for _, t := range extra {
		isContext[t] = true
	}
	w.terms = append(w.terms, extra...)
	slices.Sort(w.terms)
	type key struct {
		k string
		o int
	}
	var ks []key
	for i, t := range w.terms {
		ks = append(ks, key{t, i})
		if r.thesaurus != nil {
			for _, a := range r.thesaurus.Synonyms(t) {
				ks = append(ks, key{a, i})
			}
		}
		if r.lexicon != nil && r.opts.Forms {
			for _, f := range r.lexicon.Forms(t) {
				ks = append(ks, key{f, i})
			}
		}
	}
	slices.SortFunc(ks, func(a, b key) int { return strings.Compare(a.k, b.k) })
	w.keys, w.owner = make([]string, len(ks)), make([]int, len(ks))
	for i, k := range ks {
		w.keys[i], w.owner[i] = k.k, k.o
	}
	uniq := slices.Compact(slices.Clone(w.keys))
	df, total, err := r.store.DocFreq(ctx, uniq)
	if err != nil {
		return nil, fmt.Errorf("retriever: coverage: %w", err)
	}
	classDF := make([]int, len(w.terms))
	for i, k := range w.keys {
		j, _ := slices.BinarySearch(uniq, k)
		classDF[w.owner[i]] += df[j]
	}
	n := len(w.terms)
	w.most = math.Log(1 + float64(total)/2)
	w.weights, w.light, w.unseen, w.context = make([]float64, n), make([]bool, n), make([]bool, n), make([]bool, n)
	for i, t := range w.terms {
		w.context[i] = isContext[t]
		if d := min(classDF[i], total); d > 0 || (r.opts.UnseenTerms && !w.context[i]) {
			w.weights[i] = math.Log(1 + float64(total)/float64(d+1))
			if d == 0 {
				w.unseen[i] = true
				w.weights[i] *= float64(total) / float64(total+youngStore)
			}
		}
		if r.lexicon != nil && r.opts.LightTerms && r.lexicon.Light(t) {
			w.light[i] = true
			w.weights[i] *= lightShare
		}
		switch {
		case w.context[i]:
			w.ctxSum += w.weights[i]
		default:
			w.sum += w.weights[i]
			if i < 64 && !w.light[i] && w.weights[i] > 0 {
				w.content |= 1 << i
			}
		}
	}
	if w.sum == 0 {
		return nil, nil
	}
	w.next = make([]int, n)
	for i := range w.next {
		w.next[i] = -1
	}
	prev := -1
	for _, t := range terms {
		j, _ := slices.BinarySearch(w.terms, t)
		if prev >= 0 && prev != j && w.next[prev] < 0 && w.weights[prev] > 0 && w.weights[j] > 0 {
			w.next[prev] = j
			w.pairSum += w.weights[prev] + w.weights[j]
		}
		prev = j
	}
	return w, nil
}

// match returns the coverage and proximity of an episode whose indexed terms
// are held, in order. Coverage is the IDF-weighted share of the message's
// terms it holds, Σ idf(t) over the message terms it holds / Σ idf(t) over
// all of them. Rare words (names, topics) weigh more than the words every
// episode has, so the share says how much of what the message is about the
// episode speaks of. It is the gate's evidence and, weighed by
// Rank.Weights.Coverage, part of the score. Proximity is the same share over
// the message's adjacent term pairs, a pair held when its second term follows
// its first within proximityWindow terms (a held term that stands for two of
// the message's, through a shared synonym, counts for the first in the pair
// test). Lacking is over the terms some episode holds: an unseen one every
// candidate lacks alike. Light terms (Options.LightTerms) count, in coverage and in
// proximity, only when the episode holds a content term of the message too.
// The user coverage counts the user text's terms alone, the context
// coverage the recent turns' terms (termMatch); a term only the reply holds
// loses ReplyDiscount of its weight in coverage when reply is the
// companion's (companionReply). sc is reused from one call to the next.
func (w *termWeights) match(held episode.Terms, reply bool, sc *matchScratch) termMatch {
	n := held.Len()
	sc.seen = slices.Grow(sc.seen[:0], len(w.terms))[:len(w.terms)]
	sc.user = slices.Grow(sc.user[:0], len(w.terms))[:len(w.terms)]
	sc.idx = slices.Grow(sc.idx[:0], n)[:n]
	seen, user, idx := sc.seen, sc.user, sc.idx
	clear(seen)
	clear(user)
	var m termMatch
	got, light, userGot, userLight, ctxGot := 0.0, 0.0, 0.0, 0.0, 0.0
	for p := range n {
		t := held.At(p)
		idx[p] = -1
		k, ok := slices.BinarySearch(w.keys, t)
		for ; ok && k < len(w.keys) && w.keys[k] == t; k++ {
			j := w.owner[k]
			if idx[p] < 0 && !w.isContext(j) {
				idx[p] = j
			}
			isLight := j < len(w.light) && w.light[j] // light is nil in a hand-made termWeights
			if p < len(held.User) && !user[j] {
				user[j] = true
				switch {
				case w.isContext(j):
				case isLight:
					userLight += w.weights[j]
				default:
					userGot += w.weights[j]
				}
			}
			if seen[j] {
				continue
			}
			if w.isContext(j) {
				// the recent turns meet what the person said, not the
				// reply: a companion's 수고했어 echoes its every reply
				if p < len(held.User) {
					seen[j] = true
					ctxGot += w.weights[j]
				}
				continue
			}
			seen[j] = true
			switch {
			case isLight:
				light += w.weights[j]
			default:
				got += w.weights[j]
				if j < 64 {
					m.held |= w.content & (1 << j)
				}
			}
		}
	}
	content := got > 0
	if content {
		got += light
	}
	if userGot > 0 {
		userGot += userLight
	}
	if reply { // what only the companion's reply holds loses ReplyDiscount of its weight
		got -= w.replyDiscount * max(0, got-userGot)
	}
	m.coverage, m.userCoverage = got/w.sum, userGot/w.sum
	if w.ctxSum > 0 {
		m.contextCoverage = ctxGot / w.ctxSum
	}
	top, missing := 0.0, 0.0
	for j, wt := range w.weights {
		if j < len(w.unseen) && w.unseen[j] || w.isContext(j) {
			continue // every candidate lacks it: it tells none apart
		}
		top = max(top, wt)
		if !seen[j] {
			missing = max(missing, wt)
		}
	}
	if top > 0 {
		m.lacking = missing / top
	}
	if w.pairSum == 0 || !content {
		return m
	}
	clear(seen) // now: the pair starting at j was found
	pairs := 0.0
	for p, j := range idx {
		if j < 0 || w.next[j] < 0 || seen[j] {
			continue
		}
		for q := p + 1; q < len(idx) && q <= p+proximityWindow; q++ {
			if idx[q] == w.next[j] {
				seen[j] = true
				pairs += w.weights[j] + w.weights[w.next[j]]
				break
			}
		}
	}
	m.proximity = pairs / w.pairSum
	return m
}

// markNames sets the bits of names (terms as Terms makes them) among the
// message's content terms.
func (w *termWeights) markNames(names []string) {
	for _, n := range names {
		if j, ok := slices.BinarySearch(w.terms, n); ok && j < 64 {
			w.names |= w.content & (1 << j)
		}
	}
}

// messageTerms is the number of the message's distinct terms.
func (w *termWeights) messageTerms() int {
	n := 0
	for j := range w.terms {
		if !w.isContext(j) {
			n++
		}
	}
	return n
}

// isContext reports whether term j is the recent turns', not the message's.
func (w *termWeights) isContext(j int) bool { return j < len(w.context) && w.context[j] }
