package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/dataset"
	"github.com/omoide/omoide/embed"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/episode/sqlite"
	"github.com/omoide/omoide/rerank"
	"github.com/omoide/omoide/retriever"
	"github.com/omoide/omoide/tokenize"
	"github.com/omoide/omoide/wordvec"
)

// suiteFlags select the suites and configurations of eval and tune.
type suiteFlags struct {
	suites, presets, arms, toks listFlag
	evalDirs                    listFlag
	limit                       int
	seed                        uint64
	workers                     int
	jsonPath, cpuProfile        string
	ranksPath                   string
	md                          bool
	emb                         embedFlags
	variants                    variantFlag
	distractors                 int
	haystack                    string
	relevance                   string
	meaning                     string
	half                        string
}

// withMeaning gives the configurations whose analyzer the vectors of
// -meaning are of those vectors, when it is set, and says which.
func (f *suiteFlags) withMeaning(cfgs []config, stderr io.Writer) error {
	if f.meaning == "" {
		return nil
	}
	t, err := wordvec.LoadMeaning(f.meaning)
	if err != nil {
		return fmt.Errorf("-meaning: %w", err)
	}
	for i := range cfgs {
		if cfgs[i].Analyzer != t.Analyzer() {
			fmt.Fprintf(stderr, "-meaning: %s keeps no meaning: its analyzer is %s, the vectors' %s\n", cfgs[i].Label(), cfgs[i].Analyzer, t.Analyzer())
			continue
		}
		cfgs[i].Opts.Meaning = t
	}
	return nil
}

// withRelevance gives every configuration that decides by a relevance
// model the model of -relevance, when it is set.
func (f *suiteFlags) withRelevance(cfgs []config) error {
	if f.relevance == "" {
		return nil
	}
	data, err := os.ReadFile(f.relevance)
	if err != nil {
		return fmt.Errorf("-relevance: %w", err)
	}
	m, err := rerank.LoadModel(data)
	if err != nil {
		return fmt.Errorf("-relevance %s: %w", f.relevance, err)
	}
	for i := range cfgs {
		if cfgs[i].Opts.Rank.Inject.Model != nil {
			cfgs[i].Opts.Rank.Inject.Model = m
		}
	}
	return nil
}

func (f *suiteFlags) register(fs *flag.FlagSet) {
	fs.Var(&f.suites, "suite", "a suite folder (repeatable)")
	fs.Var(&f.evalDirs, "eval", "a folder of suites: every subfolder with a queries.jsonl (repeatable or comma list)")
	fs.Var(&f.presets, "preset", "preset(s): default, reference (repeatable or comma list; eval default: both, tune default: default)")
	fs.Var(&f.arms, "arms", "arms: hybrid, bm25 (KNNK 0), vector (BM25K 0) (comma list; default hybrid)")
	fs.Var(&f.toks, "tokenizer", "analyzer(s) of the store: kagome, bigram, unicode61-raw (comma list; default: the preset's)")
	fs.IntVar(&f.limit, "limit", 0, "queries per suite (0: all), subsampled deterministically by -seed")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of the -limit subsample")
	fs.IntVar(&f.workers, "workers", workersFlag(), "goroutines for the analysis and the queries")
	fs.StringVar(&f.jsonPath, "json", "", "write the figures as JSON to this file")
	fs.BoolVar(&f.md, "md", false, "print Markdown tables")
	fs.StringVar(&f.ranksPath, "ranks", "", "eval: write one JSON line per query and configuration to this file: where each relevant episode ranked among the candidates, whether it injected, and the injected episodes")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile to this file")
	fs.IntVar(&f.distractors, "distractors", 0, "add this many real episodes of -haystack to every person's memory (dated inside the suite's year), to measure quality at a size")
	fs.StringVar(&f.haystack, "haystack", defaultHaystack, "episodes file of -distractors (JSON Lines, .gz ok)")
	fs.StringVar(&f.meaning, "meaning", "", "a word vectors `file` (omoide learn) that measures each candidate's meaning (retriever.Options.Meaning) in the configurations of its analyzer; weigh it with -variant 'name:Rank.Weights.Meaning=0.3'")
	fs.StringVar(&f.relevance, "relevance", "", "a relevance model `file` (bench train -o) that decides instead of the preset's embedded one, where the preset has a model")
	fs.StringVar(&f.half, "half", "", "eval: of a suite whose suite.json names a judged half, only the queries of the judged people (judged) or of the others (fit); empty: all")
	fs.Var(&f.variants, "variant", "name:Field=value,... — run every configuration again with these retriever.Options fields set (repeatable; e.g. lex0:Rerank.WeightLex=0; \"base:\" is the preset as it is)")
	f.emb.register(fs)
}

// embedderAndDistractors returns the embedder of the flags and the
// -distractors episodes of -haystack (none when -distractors is 0).
func (f *suiteFlags) embedderAndDistractors() (embed.Embedder, []episode.Episode, error) {
	emb, err := f.emb.embedder()
	if err != nil || f.distractors <= 0 {
		return emb, nil, err
	}
	distractors, err := readHaystack(f.haystack, f.distractors)
	return emb, distractors, err
}

// suiteDirs returns the suite folders: every -suite, then every subfolder of
// each -eval folder that has a queries.jsonl (or the labels of a suite over
// another file's texts), in name order.
func suiteDirs(suites, evalDirs []string) ([]string, error) {
	dirs := slices.Clone(suites)
	for _, evalDir := range evalDirs {
		ents, err := os.ReadDir(evalDir)
		if err != nil {
			return nil, err
		}
		for _, e := range ents {
			d := filepath.Join(evalDir, e.Name())
			if e.IsDir() && (fileExists(filepath.Join(d, "queries.jsonl")) || fileExists(filepath.Join(d, dataset.LabelsFile))) {
				dirs = append(dirs, d)
			}
		}
	}
	if len(dirs) == 0 {
		return nil, fmt.Errorf("%w: no suite: give -suite DIR or -eval DIR", errUsage)
	}
	return dirs, nil
}

// loadSuite reads a suite and subsamples its queries to limit (0: all),
// deterministically from seed, keeping the file order.
func loadSuite(dir string, limit int, seed uint64, log io.Writer) (*dataset.Suite, error) {
	s, err := dataset.LoadSuite(dir)
	if err != nil {
		return nil, err
	}
	if s.Duplicates > 0 {
		fmt.Fprintf(log, "%s: %d episodes left out: their user and id are an earlier line's (the store keeps the first)\n", s.Name, s.Duplicates)
	}
	if len(s.Queries) == 0 {
		return nil, fmt.Errorf("suite %s has no queries", dir)
	}
	s.Queries = subsample(s.Queries, limit, seed)
	return s, nil
}

// keepHalf keeps the queries of the judged people of s (half "judged") or
// of the others ("fit"), when s names a judged half; all for "".
func keepHalf(s *dataset.Suite, half string) error {
	switch half {
	case "":
		return nil
	case "fit", "judged":
	default:
		return fmt.Errorf("%w: -half %q: want judged or fit", errUsage, half)
	}
	if len(s.Judged) == 0 {
		return nil
	}
	s.Queries = slices.DeleteFunc(s.Queries, func(q dataset.Query) bool { return s.InJudged(q) != (half == "judged") })
	return nil
}

// subsample returns limit items of xs chosen by a seeded permutation, in their
// original order; all of them when limit is 0 or at least len(xs).
func subsample[T any](xs []T, limit int, seed uint64) []T {
	if limit <= 0 || limit >= len(xs) {
		return xs
	}
	idx := rand.New(rand.NewPCG(seed, 0x6f6d6f696465)).Perm(len(xs))[:limit]
	slices.Sort(idx)
	out := make([]T, limit)
	for i, j := range idx {
		out[i] = xs[j]
	}
	return out
}

// suiteStores holds the stores of a suite, in a temporary folder: one
// database per analyzer, opened once per IndexMin its configurations need.
type suiteStores struct {
	dir      string
	indexMin int        // the -index-min flag
	mu       sync.Mutex // guards stores and ingest while they are filled
	stores   map[storeKey]*sqlite.Store
	ingest   map[string]time.Duration // by analyzer name
}

// storeKey names an open store: the analyzer of its database and the
// IndexMin it was opened with.
type storeKey struct {
	analyzer string
	indexMin int
}

// of returns the store that configuration c retrieves from: its analyzer's,
// opened with its preset's IndexMin (or -index-min).
func (s *suiteStores) of(c config) *sqlite.Store {
	return s.stores[storeKey{c.Analyzer, c.storeIndexMin(s.indexMin)}]
}

// memory returns the memory configuration c retrieves through: its store
// and a retriever of its options, with the default rendering (eval asks it
// only whether a retrieval injects, memorypack.ShouldInject of the hits,
// which no rendering option changes).
func (s *suiteStores) memory(c config) (*omoide.Memory, error) {
	st := s.of(c)
	r, err := retriever.New(st, c.Opts)
	if err != nil {
		return nil, err
	}
	return &omoide.Memory{Store: st, Retriever: r}, nil
}

func (s *suiteStores) Close() {
	for _, st := range s.stores {
		st.Close()
	}
	os.RemoveAll(s.dir)
}

// buildSuiteStores builds, for every distinct analyzer of cfgs, a temporary
// store holding the suite's episodes. Configurations that differ only in
// retriever options share a store: retrieval never writes, so sharing is the
// same as one store each, and the suite is ingested once per analyzer instead
// of once per configuration. The database is opened once more for each other
// IndexMin its configurations need (the reference preset's exact scan next to
// the default's in-memory index). The CPU-bound work (the embeddings and each
// analyzer's Index) is computed first on workers goroutines and served to
// Store.Add from a cache, so the stores are the same as with a plain Add,
// built in the same order (the same ids), only faster.
func buildSuiteStores(ctx context.Context, s *dataset.Suite, cfgs []config, ef embedFlags, emb embed.Embedder, workers int, distractors []episode.Episode, log io.Writer) (*suiteStores, error) {
	eps := suiteEpisodes(s, distractors, log)
	analyzers := storeAnalyzers(cfgs)
	t := time.Now()
	embedder, cached, err := precompute(ctx, eps, analyzers, ef, emb, workers)
	if err != nil {
		return nil, err
	}
	prep := time.Since(t)
	dir, err := os.MkdirTemp("", "omoide-bench-")
	if err != nil {
		return nil, err
	}
	ss := &suiteStores{dir: dir, indexMin: ef.indexMin, stores: map[storeKey]*sqlite.Store{}, ingest: map[string]time.Duration{}}
	errs := make([]error, len(cached))
	var wg sync.WaitGroup
	for i, a := range cached {
		wg.Go(func() { errs[i] = ss.fill(ctx, a, embedder, cfgs, eps, prep) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		ss.Close()
		return nil, fmt.Errorf("build stores for %s: %w", s.Name, err)
	}
	for _, a := range analyzers {
		fmt.Fprintf(log, "  %s: %d episodes ingested with analyzer %s in %v (shared embedding/analysis %v)\n",
			s.Name, len(eps), a.Name(), ss.ingest[a.Name()].Round(time.Millisecond), prep.Round(time.Millisecond))
	}
	return ss, nil
}

// suiteEpisodes returns the suite's episodes that have a text, with the
// distractors in each person's memory, and says what it left out and added.
func suiteEpisodes(s *dataset.Suite, distractors []episode.Episode, log io.Writer) []episode.Episode {
	var eps []episode.Episode
	skipped := 0
	for _, e := range s.Episodes {
		if strings.TrimSpace(e.UserText) == "" && strings.TrimSpace(e.ReplyText) == "" {
			skipped++
			continue
		}
		eps = append(eps, e.Episode())
	}
	if len(distractors) > 0 {
		eps = withDistractors(eps, distractors)
		fmt.Fprintf(log, "  %s: %d distractor episodes added to each person's memory\n", s.Name, len(distractors))
	}
	if skipped > 0 {
		fmt.Fprintf(log, "  %s: %d episodes without text skipped\n", s.Name, skipped)
	}
	return eps
}

// storeAnalyzers returns the distinct analyzers of cfgs, in their order.
func storeAnalyzers(cfgs []config) []tokenize.Analyzer {
	var analyzers []tokenize.Analyzer
	for _, c := range cfgs {
		if !slices.ContainsFunc(analyzers, func(a tokenize.Analyzer) bool { return a.Name() == c.analyzer.Name() }) {
			analyzers = append(analyzers, c.analyzer)
		}
	}
	return analyzers
}

// precompute embeds eps (with a local embedder) and analyzes their texts
// with each analyzer on workers goroutines, and returns the embedder and
// analyzers that serve those results from their caches.
func precompute(ctx context.Context, eps []episode.Episode, analyzers []tokenize.Analyzer, ef embedFlags, emb embed.Embedder, workers int) (embed.Embedder, []tokenize.Analyzer, error) {
	embedder := emb
	if ef.local() {
		texts := make([]string, len(eps))
		for i, e := range eps {
			texts[i] = e.EmbedText()
		}
		vecs, err := parallelMap(ctx, texts, workers, 64, emb.Embed)
		if err != nil {
			return nil, nil, fmt.Errorf("embed episodes: %w", err)
		}
		embedder = &cachedEmbedder{inner: emb, vecs: vecs}
	}
	texts := make([]string, 0, 2*len(eps))
	for _, e := range eps {
		texts = append(texts, e.UserText, e.ReplyText)
	}
	cached := make([]tokenize.Analyzer, len(analyzers))
	for i, a := range analyzers {
		idx, err := parallelMap(ctx, texts, workers, 64, func(_ context.Context, ts []string) ([]string, error) {
			out := make([]string, len(ts))
			for i, t := range ts {
				out[i] = a.Index(t)
			}
			return out, nil
		})
		if err != nil {
			return nil, nil, err
		}
		cached[i] = &cachedAnalyzer{Analyzer: a, index: idx}
	}
	return embedder, cached, nil
}

// fill opens analyzer a's database once for each IndexMin its
// configurations in cfgs need, and ingests eps through the first; prep, the
// shared embedding and analysis, counts in its ingest time.
func (s *suiteStores) fill(ctx context.Context, a tokenize.Analyzer, embedder embed.Embedder, cfgs []config, eps []episode.Episode, prep time.Duration) error {
	var mins []int // the IndexMins a's configurations need; the first opens the store that ingests
	for _, c := range cfgs {
		if m := c.storeIndexMin(s.indexMin); c.Analyzer == a.Name() && !slices.Contains(mins, m) {
			mins = append(mins, m)
		}
	}
	t := time.Now()
	for j, m := range mins {
		st, err := sqlite.Open(ctx, filepath.Join(s.dir, a.Name()+".db"), sqlite.Options{Embedder: embedder, Analyzer: a, IndexMin: m})
		if err != nil {
			return err
		}
		s.mu.Lock()
		s.stores[storeKey{a.Name(), m}] = st
		s.mu.Unlock()
		if j > 0 {
			continue
		}
		for from := 0; from < len(eps) && err == nil; from += 500 {
			_, err = st.Add(ctx, eps[from:min(from+500, len(eps))])
		}
		if err != nil {
			return err
		}
		s.mu.Lock()
		s.ingest[a.Name()] = time.Since(t) + prep
		s.mu.Unlock()
	}
	return nil
}

// withDistractors returns eps with a copy of the distractors for each person
// of eps, dated evenly over the 300 days before that person's newest episode
// (inside the retrievers' 365-day window), external ids "distractor:N".
func withDistractors(eps, distractors []episode.Episode) []episode.Episode {
	newest := map[string]time.Time{}
	var users []string
	for _, e := range eps {
		t, ok := newest[e.User]
		if !ok {
			users = append(users, e.User)
		}
		if !ok || e.OccurredAt.After(t) {
			newest[e.User] = e.OccurredAt
		}
	}
	out := slices.Clip(eps)
	for _, u := range users {
		for i, d := range distractors {
			d.User = u
			d.ExternalID = fmt.Sprintf("distractor:%d", i)
			d.OccurredAt = newest[u].Add(-time.Duration(300*24*(i+1)/len(distractors)) * time.Hour)
			out = append(out, d)
		}
	}
	return out
}

// runQueries retrieves every query of qs through mem on workers goroutines,
// as a pack does (Memory.Evidence), and hands each result, with its index
// and its EPISODE_EVIDENCE section ("" when nothing is worth injecting), to
// fn (called concurrently).
func runQueries(ctx context.Context, mem *omoide.Memory, qs []dataset.Query, workers int, fn func(i int, res retriever.Result, section string)) error {
	next := make(chan int)
	errs := make([]error, max(1, workers))
	var wg sync.WaitGroup
	for w := range max(1, workers) {
		wg.Go(func() {
			for i := range next {
				if errs[w] != nil {
					continue
				}
				req := qs[i].Request()
				req.WithCandidates = true
				section, res, err := mem.Evidence(ctx, req)
				if err != nil {
					errs[w] = fmt.Errorf("query %s: %w", qs[i].ID, err)
					continue
				}
				fn(i, res, section)
			}
		})
	}
loop:
	for i := range qs {
		select {
		case next <- i:
		case <-ctx.Done():
			break loop
		}
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	return errors.Join(errs...)
}

// outcomeOf turns a retrieval result and its rendered section into an
// outcome: the retrieval injects when the section is not empty.
func outcomeOf(q dataset.Query, res retriever.Result, section string) outcome {
	o := outcome{relevant: make(map[string]bool, len(q.Relevant)), inject: section != ""}
	for _, id := range q.Relevant {
		o.relevant[id] = true
	}
	if len(q.Acceptable) > 0 {
		o.acceptable = make(map[string]bool, len(q.Acceptable))
		for _, id := range q.Acceptable {
			o.acceptable[id] = true
		}
	}
	o.ranked = make([]string, len(res.Candidates))
	for i, c := range res.Candidates {
		id := c.Episode.ExternalID
		o.ranked[i] = id
		if i < rankParts || o.relevant[id] {
			o.parts = append(o.parts, parts{Rank: i + 1, Relevant: o.relevant[id], Score: c.Score,
				RRFNorm: c.RRFNorm, Lex: c.Lex, Rec: c.Rec, Coverage: c.Coverage, Proximity: c.Proximity, Cosine: c.Cosine})
		}
	}
	o.picked = make([]string, len(res.Hits))
	for i, h := range res.Hits {
		o.picked[i] = h.Episode.ExternalID
	}
	return o
}

// categories returns "all" and the suite's categories in name order.
func categories(qs []dataset.Query) []string {
	seen := map[string]bool{}
	var cats []string
	for _, q := range qs {
		if q.Category != "" && !seen[q.Category] {
			seen[q.Category] = true
			cats = append(cats, q.Category)
		}
	}
	sort.Strings(cats)
	return append([]string{"all"}, cats...)
}

// byCategory aggregates outcomes over all queries and per category.
func byCategory(qs []dataset.Query, outs []outcome) map[string]quality {
	groups := map[string][]outcome{}
	for i, q := range qs {
		groups["all"] = append(groups["all"], outs[i])
		if q.Category != "" {
			groups[q.Category] = append(groups[q.Category], outs[i])
		}
	}
	m := map[string]quality{}
	for c, os := range groups {
		m[c] = aggregate(os)
	}
	return m
}

// evaluation is one run of bench eval: its flags, configurations and
// embedder, the -ranks file, and the table and figures it fills suite by
// suite.
type evaluation struct {
	f           suiteFlags
	sizes       []storeSize // -sizes: each suite at each of them; none: as stored
	dirs        []string
	cfgs        []config
	emb         embed.Embedder
	distractors []episode.Episode
	ranks       *rankWriter
	tab         *table
	results     []result
	haystack    []dataset.Episode // -haystack's exchanges, read once for the suites that grow with them
}

func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	e, err := parseEval(args, stderr)
	if err != nil {
		return err
	}
	stop, err := startCPUProfile(e.f.cpuProfile)
	if err != nil {
		return err
	}
	defer stop()
	if err := e.configure(stderr); err != nil {
		return err
	}
	if e.ranks, err = newRankWriter(e.f.ranksPath); err != nil {
		return err
	}
	defer e.ranks.Close()
	start := time.Now()
	for _, dir := range e.dirs {
		if err := e.suite(ctx, dir, stderr); err != nil {
			return err
		}
	}
	return e.report(stdout, start)
}

// parseEval parses the flags and the suites.
func parseEval(args []string, stderr io.Writer) (*evaluation, error) {
	fs := newFlagSet("eval", stderr)
	e := &evaluation{tab: &table{header: []string{"suite", "category", "config", "n", "n0", "R@1", "R@5", "R@10", "MRR@10", "nDCG@10",
		"inject", "inj@top5", "false-inj", "deliv-R", "ev-prec", "inj/q", "agree", "p50 ms"}, left: 3}}
	e.f.register(fs)
	var sizes listFlag
	fs.Var(&sizes, "sizes", "judge each suite with every person's store at these sizes: stored (as the suite holds it) or a number of exchanges, "+
		"cut to it (their own everyday chat first) or grown to it with others' chat (the suite's other people's everyday chat, or -haystack's where its suite.json says grow haystack); e.g. stored,300,1000,3000 (comma list)")
	if err := parse(fs, args); err != nil {
		return nil, err
	}
	var err error
	if e.sizes, err = parseSizes(sizes); err != nil {
		return nil, err
	}
	if len(e.sizes) > 0 && e.f.distractors > 0 {
		return nil, fmt.Errorf("%w: -sizes and -distractors both size the stores: give one", errUsage)
	}
	if len(e.sizes) > 0 {
		e.tab.header = slices.Insert(e.tab.header, 1, "size")
		e.tab.left++
	}
	if e.dirs, err = suiteDirs(e.f.suites, e.f.evalDirs); err != nil {
		return nil, err
	}
	return e, nil
}

// storeSize is a size of -sizes: 0 is the suite's stores as they are.
type storeSize int

func (z storeSize) String() string {
	if z == 0 {
		return "stored"
	}
	return fmt.Sprint(int(z))
}

// parseSizes reads -sizes: "stored" or a positive number of exchanges each.
func parseSizes(list []string) ([]storeSize, error) {
	var out []storeSize
	for _, v := range list {
		if v == "stored" {
			out = append(out, 0)
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%w: -sizes %q: want stored or a positive number of exchanges", errUsage, v)
		}
		out = append(out, storeSize(n))
	}
	return out, nil
}

// configure resolves the configurations (both presets by default, with
// -variant, -relevance and -meaning), the embedder and the distractors.
func (e *evaluation) configure(stderr io.Writer) error {
	cfgs, err := configGrid(e.f.presets.or(omoide.PresetReference, omoide.PresetDefault), e.f.arms.or(armsHybrid), e.f.toks)
	if err != nil {
		return err
	}
	if e.cfgs, err = withVariants(cfgs, e.f.variants); err != nil {
		return err
	}
	if err := e.f.withRelevance(e.cfgs); err != nil {
		return err
	}
	if err := e.f.withMeaning(e.cfgs, stderr); err != nil {
		return err
	}
	e.emb, e.distractors, err = e.f.embedderAndDistractors()
	return err
}

// suite evaluates every configuration on the suite of dir, at each -sizes
// size (as stored without it), and adds its rows. The haystack is read,
// once, only when a store must grow with it.
func (e *evaluation) suite(ctx context.Context, dir string, stderr io.Writer) error {
	start := time.Now()
	full, err := loadSuite(dir, 0, e.f.seed, stderr)
	if err != nil {
		return err
	}
	sizes := e.sizes
	if len(sizes) == 0 {
		sizes = []storeSize{0}
	}
	for _, z := range sizes {
		s, err := e.atSize(full, z, stderr)
		if err != nil {
			return err
		}
		s.Queries = slices.Clone(subsample(s.Queries, e.f.limit, e.f.seed)) // keepHalf deletes in place
		if err := keepHalf(s, e.f.half); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "%s: %d episodes, %d queries, %d configurations\n", s.Name, len(s.Episodes), len(s.Queries), len(e.cfgs))
		perCfg, err := e.measure(ctx, s, stderr)
		if err != nil {
			return err
		}
		e.addRows(s, z, perCfg)
	}
	fmt.Fprintf(stderr, "  %s done in %v\n", full.Name, time.Since(start).Round(time.Millisecond))
	return nil
}

// smallest returns the number of episodes of the suite's smallest store.
func smallest(s *dataset.Suite) int {
	n := map[string]int{}
	for _, e := range s.Episodes {
		n[e.User]++
	}
	least := -1
	for _, c := range n {
		if least < 0 || c < least {
			least = c
		}
	}
	return least
}

// atSize returns the suite with every person's store at size z (s itself
// for 0), grown with what its suite.json says, and says what it made.
func (e *evaluation) atSize(s *dataset.Suite, z storeSize, stderr io.Writer) (*dataset.Suite, error) {
	if z == 0 {
		c := *s
		return &c, nil
	}
	pad := s.Padding()
	if s.Grow == dataset.GrowHaystack && smallest(s) < int(z) {
		if e.haystack == nil {
			var err error
			if e.haystack, err = dataset.ReadHaystack(e.f.haystack); err != nil {
				return nil, fmt.Errorf("-haystack, which %s grows with: %w", s.Name, err)
			}
		}
		pad = e.haystack
	}
	sized, rep := s.AtSize(int(z), pad, e.f.seed)
	fmt.Fprintf(stderr, "%s at %v\n", s.Name, rep)
	return sized, nil
}

// measure builds the suite's stores and returns each configuration's
// figures by category. Configurations with the same analyzer and retriever
// options (today the presets differ only in their analyzer) retrieve the
// same: they run once.
func (e *evaluation) measure(ctx context.Context, s *dataset.Suite, stderr io.Writer) ([]map[string]quality, error) {
	stores, err := buildSuiteStores(ctx, s, e.cfgs, e.f.emb, e.emb, e.f.workers, e.distractors, stderr)
	if err != nil {
		return nil, err
	}
	defer stores.Close()
	perCfg := make([]map[string]quality, len(e.cfgs))
	for ci, c := range e.cfgs {
		if j := slices.IndexFunc(e.cfgs[:ci], func(d config) bool {
			return d.Analyzer == c.Analyzer && reflect.DeepEqual(d.Opts, c.Opts)
		}); j >= 0 {
			perCfg[ci] = perCfg[j]
			fmt.Fprintf(stderr, "  %s %s: same analyzer and options as %s: its results\n", s.Name, c.Label(), e.cfgs[j].Label())
			continue
		}
		if perCfg[ci], err = e.measureConfig(ctx, s, stores, c, stderr); err != nil {
			return nil, err
		}
	}
	return perCfg, nil
}

// measureConfig retrieves every query of the suite with configuration c,
// writes its -ranks lines and returns its figures by category, each with the
// queries' p50 retrieval time.
func (e *evaluation) measureConfig(ctx context.Context, s *dataset.Suite, stores *suiteStores, c config, stderr io.Writer) (map[string]quality, error) {
	mem, err := stores.memory(c)
	if err != nil {
		return nil, err
	}
	outs := make([]outcome, len(s.Queries))
	took := make([]time.Duration, len(s.Queries))
	t := time.Now()
	err = runQueries(ctx, mem, s.Queries, e.f.workers, func(i int, res retriever.Result, section string) {
		outs[i] = outcomeOf(s.Queries[i], res, section)
		took[i] = res.Trace.Total
	})
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", s.Name, c.Label(), err)
	}
	if err := e.ranks.write(s.Name, c.Label(), s.Queries, outs); err != nil {
		return nil, err
	}
	byCat := byCategory(s.Queries, outs)
	p50 := percentile(took, 50)
	for k, q := range byCat {
		q.QueryP50 = durMS(p50)
		byCat[k] = q
	}
	fmt.Fprintf(stderr, "  %s %s: %d queries in %v (p50 %s ms)\n", s.Name, c.Label(), len(s.Queries), time.Since(t).Round(time.Millisecond), ms(p50))
	return byCat, nil
}

// addRows adds the suite's rows at size z to the table and its figures to
// the results: by category, then by configuration.
func (e *evaluation) addRows(s *dataset.Suite, z storeSize, perCfg []map[string]quality) {
	for _, cat := range categories(s.Queries) {
		for ci, c := range e.cfgs {
			q := perCfg[ci][cat]
			row := evalRow(s.Name, cat, c.Label(), q)
			r := result{Suite: s.Name, Category: cat, Preset: c.Preset, Config: c.Label(), Metrics: q}
			if len(e.sizes) > 0 {
				row = slices.Insert(row, 1, z.String())
				r.Size = z.String()
			}
			e.tab.add(row...)
			e.results = append(e.results, r)
		}
	}
}

// evalRow is a row of eval's table: "-" for the figures of queries the
// category has none of.
func evalRow(suite, cat, label string, q quality) []string {
	row := []string{suite, cat, label, fmt.Sprint(q.N), fmt.Sprint(q.N0)}
	if q.N > 0 {
		row = append(row, f3(q.R1), f3(q.R5), f3(q.R10), f3(q.MRR10), f3(q.NDCG10), f3(q.Inject), f3(q.InjectTop5))
	} else {
		row = append(row, "-", "-", "-", "-", "-", "-", "-")
	}
	if q.N0 > 0 {
		row = append(row, f3(q.FalseInject))
	} else {
		row = append(row, "-")
	}
	if q.N > 0 {
		row = append(row, f3(q.DeliveredRecall), f3(q.EvidencePrecision))
	} else {
		row = append(row, "-", "-")
	}
	return append(row, fmt.Sprintf("%.2f", q.MeanInjected), f3(q.Agreement), fmt.Sprintf("%.2f", q.QueryP50))
}

// bySize is the table of -sizes: each suite, size and configuration's
// figures over all its queries, the agreement first.
func (e *evaluation) bySize() *table {
	t := &table{header: []string{"suite", "size", "config", "queries", "agree", "false-inj", "deliv-R", "R@1", "R@10", "inj/q"}, left: 3}
	for _, r := range e.results {
		if r.Category != "all" {
			continue
		}
		q := r.Metrics.(quality)
		row := []string{r.Suite, r.Size, r.Config, fmt.Sprint(q.Queries), f3(q.Agreement), "-", "-", "-", "-", fmt.Sprintf("%.2f", q.MeanInjected)}
		if q.N0 > 0 {
			row[5] = f3(q.FalseInject)
		}
		if q.N > 0 {
			row[6], row[7], row[8] = f3(q.DeliveredRecall), f3(q.R1), f3(q.R10)
		}
		t.add(row...)
	}
	return t
}

// report prints the table (and with -sizes the table by size) and the
// summary line, closes the -ranks file and writes the -json figures.
func (e *evaluation) report(stdout io.Writer, start time.Time) error {
	e.tab.write(stdout, e.f.md)
	if len(e.sizes) > 0 {
		fmt.Fprintln(stdout, "\nBy size, all queries:")
		e.bySize().write(stdout, e.f.md)
	}
	fmt.Fprintf(stdout, "\n%d suites × %d configurations in %v (embedder %s, %d workers)\n", len(e.dirs), len(e.cfgs), time.Since(start).Round(time.Second), e.emb.Identity(), e.f.workers)
	params := map[string]any{"suites": e.dirs, "configs": e.cfgs, "limit": e.f.limit, "seed": e.f.seed, "embedder": e.emb.Identity().String()}
	if err := e.ranks.Close(); err != nil {
		return err
	}
	return writeJSON(e.f.jsonPath, "eval", params, e.results)
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
