package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/dataset"
	"github.com/omoide/omoide/embed"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/episode/sqlite"
	"github.com/omoide/omoide/rerank"
	"github.com/omoide/omoide/retriever"
)

// weightsLabel names rerank weights in tables: rrf/lex/rec/coverage/proximity.
func weightsLabel(w rerank.Weights) string {
	return fmt.Sprintf("%.2f/%.2f/%.2f/%.2f/%.2f", w.RRF, w.Lex, w.Recency, w.Coverage, w.Proximity)
}

// oneConfig returns the one configuration the flags name (the default preset,
// hybrid, by default), for a mode that studies one, with the relevance model
// off: the candidates' features do not depend on the decision (train refits
// a model that no longer loads), and tune replays the rules.
func (f *suiteFlags) oneConfig(mode string) (config, error) {
	cfgs, err := configGrid(f.presets.or(omoide.PresetDefault), f.arms.or(armsHybrid), f.toks)
	if err != nil {
		return config{}, err
	}
	if cfgs, err = withVariants(cfgs, f.variants); err != nil {
		return config{}, err
	}
	if len(cfgs) != 1 {
		return config{}, fmt.Errorf("%w: %s studies one configuration; give one -preset, -arms, -tokenizer and -variant", errUsage, mode)
	}
	cfg := cfgs[0]
	cfg.Opts.Rank.Inject = rerank.Inject{}
	return cfg, nil
}

// retrieveEach builds the suite's store for cfg, retrieves every query of
// the suite with it (candidates asked for) on f.workers goroutines, turns
// each result into a T with fn (called concurrently, with the store), and
// closes the store. It returns the Ts in the queries' order.
func retrieveEach[T any](ctx context.Context, s *dataset.Suite, cfg config, f *suiteFlags, emb embed.Embedder, distractors []episode.Episode,
	log io.Writer, fn func(st *sqlite.Store, i int, res retriever.Result) (T, error)) ([]T, error) {
	out := make([]T, len(s.Queries))
	errs := make([]error, len(s.Queries))
	err := func() error {
		stores, err := buildSuiteStores(ctx, s, []config{cfg}, f.emb, emb, f.workers, distractors, log)
		if err != nil {
			return err
		}
		defer stores.Close()
		mem, err := stores.memory(cfg)
		if err != nil {
			return err
		}
		return runQueries(ctx, mem, s.Queries, f.workers, func(i int, res retriever.Result, _ string) { out[i], errs[i] = fn(mem.Store, i, res) })
	}()
	if err := errors.Join(append(errs, err)...); err != nil {
		return nil, err
	}
	return out, nil
}

// tuneQuery is one query's live retrieval: its ranking as the ranking core
// scored it (retriever.Result.Ranked), from which package rerank replays it
// under other weights, gates and thresholds.
type tuneQuery struct {
	suite    string
	relevant map[string]bool
	ranked   []rerank.Scored
	ext      map[int64]string   // the candidates' external ids
	adj      map[int64][2]int64 // each candidate's neighbours in the person's timeline (sqlite.Store.Adjacent)
	unknown  []string           // the message's names the memory never held (the names gate)
	live     []string           // the live picks' external ids
}

// newTuneQuery records a live retrieval (made WithCandidates) of q, and the
// candidates' neighbours when the ranking raises them.
func newTuneQuery(ctx context.Context, s *sqlite.Store, suite string, q dataset.Query, res retriever.Result, o rerank.Options) (tuneQuery, error) {
	tq := tuneQuery{suite: suite, relevant: map[string]bool{}, ranked: res.Ranked, ext: map[int64]string{}, unknown: res.Trace.UnknownNames}
	for _, id := range q.Relevant {
		tq.relevant[id] = true
	}
	for _, h := range res.Hits {
		tq.live = append(tq.live, h.Episode.ExternalID)
	}
	ids := make([]int64, len(res.Candidates))
	for i, c := range res.Candidates {
		ids[i] = c.Episode.ID
		tq.ext[c.Episode.ID] = c.Episode.ExternalID
	}
	if o.Neighbors.Share > 0 && len(ids) > 0 {
		adj, err := s.Adjacent(ctx, q.User, ids)
		if err != nil {
			return tq, err
		}
		tq.adj = make(map[int64][2]int64, len(ids))
		for i, id := range ids {
			tq.adj[id] = adj[i]
		}
	}
	return tq, nil
}

// replay is the live ranking under o: the candidates rescored from their
// parts with o's weights, the neighbours of o's anchors raised, and the
// neighbours the live retrieval added added again where o's anchors want
// them. With the live options it is the live ranking exactly; with others the
// anchors may want a neighbour the live retrieval never read, which the
// replay cannot add.
func (q tuneQuery) replay(o rerank.Options) []rerank.Scored {
	var fused, added []rerank.Scored
	for _, s := range q.ranked {
		if s.Added {
			added = append(added, s)
		} else {
			fused = append(fused, s)
		}
	}
	fused = rerank.Rescore(fused, o.Weights)
	added = rerank.Rescore(added, o.Weights)
	nb := o.Neighbors
	if nb.Share <= 0 || len(fused) == 0 {
		return fused
	}
	adj := make([][2]int64, nb.Anchors(fused, o.Select.MaxResults))
	for i := range adj {
		adj[i] = q.adj[fused[i].ID]
	}
	return nb.Add(fused, nb.Raise(fused, adj), added)
}

// picks are the picks of a replayed ranking under o by the rules
// (rerank.Options.Decide without a model), without the High test of the
// first pick when anyHigh (sweep applies each High itself).
func (q tuneQuery) picks(sorted []rerank.Scored, o rerank.Options, anyHigh bool) []rerank.Pick {
	if anyHigh {
		o.Select.High = 0
	}
	picks, _ := o.Decide(sorted, q.unknown, nil)
	return picks
}

// tuneCell is the figures of one (weights, medium, high) setting.
type tuneCell struct {
	Weights     rerank.Weights `json:"weights"`
	Gate        rerank.Gate    `json:"gate"`
	Medium      float64        `json:"medium"`
	High        float64        `json:"high"`
	Precision   float64        `json:"inject_precision"` // injections with a relevant pick / injections
	Recall      float64        `json:"inject_recall"`    // injections with a relevant pick / queries with relevant episodes
	Inject      float64        `json:"inject_rate"`      // injections / queries with relevant episodes
	FalseInject float64        `json:"false_inject_rate"`
	InjectTop5  float64        `json:"inject_rate_top5"` // injections / queries with a relevant episode in the top 5
	R5          float64        `json:"recall_at_5"`
	N           int            `json:"n"`
	N0          int            `json:"n_no_relevant"`
}

// sweep evaluates every (weights, gate, medium, high) on the queries. The
// picks of a (weights, gate, medium) do not depend on high, only the test of
// the first pick does, so each query is walked once per (weights, gate,
// medium).
func sweep(qs []tuneQuery, ws []rerank.Weights, gates []rerank.Gate, mediums, highs []float64, base rerank.Options) []tuneCell {
	var cells []tuneCell
	for _, w := range ws {
		o := base
		o.Weights = w
		sorted := make([][]rerank.Scored, len(qs))
		for i, q := range qs {
			sorted[i] = q.replay(o)
		}
		for _, g := range gates {
			for _, m := range mediums {
				o.Gate, o.Select.Medium = g, m
				walks := walkAll(qs, sorted, o)
				for _, h := range highs {
					cells = append(cells, cellOf(qs, walks, tuneCell{Weights: w, Gate: g, Medium: m, High: h}))
				}
			}
		}
	}
	return cells
}

// tuneWalk is what a query's picks under one (weights, gate, medium) give
// every High threshold.
type tuneWalk struct {
	first float64 // the first pick's Final; -Inf without a pick
	hit   bool    // a pick is relevant
	r5    float64
}

// walkAll walks each query's replayed ranking (sorted, in qs's order) under o.
func walkAll(qs []tuneQuery, sorted [][]rerank.Scored, o rerank.Options) []tuneWalk {
	walks := make([]tuneWalk, len(qs))
	for i, q := range qs {
		picks := q.picks(sorted[i], o, true)
		walks[i].first = math.Inf(-1)
		if len(picks) > 0 {
			walks[i].first = picks[0].Final
		}
		for _, p := range picks {
			if q.relevant[q.ext[p.ID]] {
				walks[i].hit = true
			}
		}
		ids := make([]string, min(5, len(sorted[i])))
		for j := range ids {
			ids[j] = q.ext[sorted[i][j].ID]
		}
		walks[i].r5 = recallAt(ids, q.relevant, 5)
	}
	return walks
}

// cellOf fills c's figures from the walks: a query injects when its first
// pick reaches c.High.
func cellOf(qs []tuneQuery, walks []tuneWalk, c tuneCell) tuneCell {
	inj, injHit, injPos, falseInj, top5, injTop5 := 0, 0, 0, 0, 0, 0
	for i, q := range qs {
		injected := walks[i].first >= c.High
		if len(q.relevant) == 0 {
			c.N0++
			if injected {
				inj++
				falseInj++
			}
			continue
		}
		c.N++
		c.R5 += walks[i].r5
		if walks[i].r5 > 0 {
			top5++
			if injected {
				injTop5++
			}
		}
		if injected {
			inj++
			injPos++
			if walks[i].hit {
				injHit++
			}
		}
	}
	c.Precision = rate(injHit, inj)
	c.Recall = rate(injHit, c.N)
	c.Inject = rate(injPos, c.N)
	c.FalseInject = rate(falseInj, c.N0)
	c.InjectTop5 = rate(injTop5, top5)
	if c.N > 0 {
		c.R5 /= float64(c.N)
	}
	return c
}

// parseRange parses "a:b:step" (inclusive) or a comma list of numbers.
func parseRange(s string) ([]float64, error) {
	if parts := strings.Split(s, ":"); len(parts) == 3 {
		var v [3]float64
		for i, p := range parts {
			f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
			if err != nil {
				return nil, fmt.Errorf("%w: range %q: %v", errUsage, s, err)
			}
			v[i] = f
		}
		if v[2] <= 0 || v[1] < v[0] {
			return nil, fmt.Errorf("%w: range %q: want from:to:step with to >= from and step > 0", errUsage, s)
		}
		var out []float64
		for i := 0; ; i++ {
			x := math.Round((v[0]+float64(i)*v[2])*1e9) / 1e9
			if x > v[1]+1e-9 {
				break
			}
			out = append(out, x)
		}
		return out, nil
	}
	var out []float64
	for _, p := range strings.Split(s, ",") {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return nil, fmt.Errorf("%w: list %q: %v", errUsage, s, err)
		}
		out = append(out, f)
	}
	return out, nil
}

// parseWeights parses a comma list of rrf/lex/rec[/coverage[/proximity]]
// weights; the weights left out (and Window) are base's.
func parseWeights(s string, base rerank.Weights) ([]rerank.Weights, error) {
	var out []rerank.Weights
	for _, t := range strings.Split(s, ",") {
		parts := strings.Split(strings.TrimSpace(t), "/")
		if len(parts) < 3 || len(parts) > 5 {
			return nil, fmt.Errorf("%w: weights %q: want rrf/lex/rec, rrf/lex/rec/coverage or rrf/lex/rec/coverage/proximity", errUsage, t)
		}
		v := [5]float64{3: base.Coverage, 4: base.Proximity}
		for i, p := range parts {
			f, err := strconv.ParseFloat(p, 64)
			if err != nil {
				return nil, fmt.Errorf("%w: weights %q: %v", errUsage, t, err)
			}
			v[i] = f
		}
		w := base
		w.RRF, w.Lex, w.Recency, w.Coverage, w.Proximity = v[0], v[1], v[2], v[3], v[4]
		out = append(out, w)
	}
	return out, nil
}

// tuning is one run of bench tune: its flags, the grid of settings it
// sweeps, and the queries' live retrievals it replays under them.
type tuning struct {
	f           suiteFlags
	plotPath    string
	dirs        []string
	cfg         config
	highs       []float64
	mediums     []float64
	ws          []rerank.Weights
	gates       []rerank.Gate
	emb         embed.Embedder
	distractors []episode.Episode
	all         []tuneQuery
	suiteNames  []string
	same, total int // queries whose replay reproduces the live picks, of all
}

func runTune(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	t, err := parseTune(args, stderr)
	if err != nil {
		return err
	}
	if t.emb, t.distractors, err = t.f.embedderAndDistractors(); err != nil {
		return err
	}
	start := time.Now()
	for _, dir := range t.dirs {
		if err := t.load(ctx, dir, stderr); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "tune %s on %s: offline selection reproduces the live picks on %d/%d queries\n\n",
		t.cfg.Label(), strings.Join(t.suiteNames, ", "), t.same, t.total)
	results, err := t.report(stdout, start)
	if err != nil {
		return err
	}
	params := map[string]any{"suites": t.dirs, "config": t.cfg, "limit": t.f.limit, "seed": t.f.seed, "highs": t.highs,
		"mediums": t.mediums, "weights": t.ws, "gates": t.gates, "embedder": t.emb.Identity().String()}
	return writeJSON(t.f.jsonPath, "tune", params, results)
}

// parseTune parses the flags, the suites, the configuration and the grid of
// settings to sweep: each threshold and weight the preset's unless given.
func parseTune(args []string, stderr io.Writer) (*tuning, error) {
	fs := newFlagSet("tune", stderr)
	t := &tuning{}
	t.f.register(fs)
	highFlag := fs.String("high", "0.30:0.90:0.02", "High thresholds: from:to:step or a comma list")
	mediumFlag := fs.String("medium", "", "Medium thresholds: from:to:step or a comma list (default: the preset's)")
	weightsFlag := fs.String("weights", "", "rerank weights to compare, rrf/lex/rec[/coverage[/proximity]], comma list (default: the preset's; coverage and proximity: the preset's when left out)")
	cosFlag := fs.String("min-cosine", "", "gate MinCosine values: from:to:step or a comma list (default: the preset's)")
	covFlag := fs.String("min-coverage", "", "gate MinCoverage values: from:to:step or a comma list (default: the preset's)")
	fs.StringVar(&t.plotPath, "plot", "", "write a plot of inject precision, recall and false-inject rate against High (.svg, .png, .pdf)")
	if err := parse(fs, args); err != nil {
		return nil, err
	}
	var err error
	if t.dirs, err = suiteDirs(t.f.suites, t.f.evalDirs); err != nil {
		return nil, err
	}
	if t.cfg, err = t.f.oneConfig("tune"); err != nil {
		return nil, err
	}
	ro := t.cfg.Opts.Rank
	if t.highs, err = parseRange(*highFlag); err != nil {
		return nil, err
	}
	if t.mediums, err = rangeOr(*mediumFlag, ro.Select.Medium); err != nil {
		return nil, err
	}
	t.ws = []rerank.Weights{ro.Weights}
	if *weightsFlag != "" {
		if t.ws, err = parseWeights(*weightsFlag, ro.Weights); err != nil {
			return nil, err
		}
	}
	cosines, err := rangeOr(*cosFlag, ro.Gate.MinCosine)
	if err != nil {
		return nil, err
	}
	covs, err := rangeOr(*covFlag, ro.Gate.MinCoverage)
	if err != nil {
		return nil, err
	}
	for _, c := range cosines {
		for _, v := range covs {
			g := ro.Gate
			g.MinCosine, g.MinCoverage = c, v
			t.gates = append(t.gates, g)
		}
	}
	return t, nil
}

// rangeOr parses s as parseRange does, or returns def alone when s is empty.
func rangeOr(s string, def float64) ([]float64, error) {
	if s == "" {
		return []float64{def}, nil
	}
	return parseRange(s)
}

// load retrieves every query of the suite of dir and checks the offline
// selection against the live one.
func (t *tuning) load(ctx context.Context, dir string, stderr io.Writer) error {
	s, err := loadSuite(dir, t.f.limit, t.f.seed, stderr)
	if err != nil {
		return err
	}
	t.suiteNames = append(t.suiteNames, s.Name)
	fmt.Fprintf(stderr, "%s: %d episodes, %d queries\n", s.Name, len(s.Episodes), len(s.Queries))
	ro := t.cfg.Opts.Rank
	qs, err := retrieveEach(ctx, s, t.cfg, &t.f, t.emb, t.distractors, stderr, func(st *sqlite.Store, i int, res retriever.Result) (tuneQuery, error) {
		return newTuneQuery(ctx, st, s.Name, s.Queries[i], res, ro)
	})
	if err != nil {
		return err
	}
	for _, q := range qs {
		t.total++
		var ids []string
		for _, p := range q.picks(q.replay(ro), ro, false) {
			ids = append(ids, q.ext[p.ID])
		}
		if slices.Equal(ids, q.live) {
			t.same++
		}
	}
	t.all = append(t.all, qs...)
	return nil
}

// groups are the queries of each suite and, with several suites, all of
// them, with their labels.
func (t *tuning) groups() (groups [][]tuneQuery, labels []string) {
	for _, name := range t.suiteNames {
		var g []tuneQuery
		for _, q := range t.all {
			if q.suite == name {
				g = append(g, q)
			}
		}
		groups, labels = append(groups, g), append(labels, name)
	}
	if len(t.suiteNames) > 1 {
		groups, labels = append(groups, t.all), append(labels, "all")
	}
	return groups, labels
}

// report sweeps the grid on each group, prints the table and, with -plot,
// plots the last group's sweep; it returns the figures.
func (t *tuning) report(stdout io.Writer, start time.Time) ([]result, error) {
	groups, labels := t.groups()
	tab := &table{header: []string{"suite", "weights", "min-cos", "min-cov", "medium", "high", "n", "n0", "inj-prec", "inj-recall", "inject", "inj@top5", "false-inj", "R@5"}, left: 2}
	var results []result
	var cells []tuneCell
	for gi, g := range groups {
		cells = sweep(g, t.ws, t.gates, t.mediums, t.highs, t.cfg.Opts.Rank)
		for _, c := range cells {
			tab.add(labels[gi], weightsLabel(c.Weights), fmt.Sprintf("%.2f", c.Gate.MinCosine), fmt.Sprintf("%.2f", c.Gate.MinCoverage),
				fmt.Sprintf("%.2f", c.Medium), fmt.Sprintf("%.2f", c.High),
				fmt.Sprint(c.N), fmt.Sprint(c.N0), f3(c.Precision), f3(c.Recall), f3(c.Inject), f3(c.InjectTop5), f3(c.FalseInject), f3(c.R5))
			results = append(results, result{Suite: labels[gi], Preset: t.cfg.Preset, Config: t.cfg.Label(), Metrics: c})
		}
	}
	tab.write(stdout, t.f.md)
	settings := len(t.ws) * len(t.gates) * len(t.mediums)
	fmt.Fprintf(stdout, "\n%d queries, %d settings, in %v\n", len(t.all), settings*len(t.highs), time.Since(start).Round(time.Millisecond))
	if t.plotPath == "" {
		return results, nil
	}
	title := fmt.Sprintf("%s on %s", t.cfg.Label(), labels[len(labels)-1])
	if err := plotSweep(t.plotPath, title, cells, settings > 1); err != nil {
		return nil, fmt.Errorf("plot: %w", err)
	}
	fmt.Fprintf(stdout, "plot: %s\n", t.plotPath)
	return results, nil
}

// plotSweep draws inject precision, recall and false-inject rate against the
// High threshold, one set of lines per (weights, gate, medium).
func plotSweep(path, title string, cells []tuneCell, several bool) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "High threshold"
	p.Y.Label.Text = "rate"
	p.Y.Min, p.Y.Max = 0, 1
	p.Legend.Top = true
	type key struct {
		w rerank.Weights
		g rerank.Gate
		m float64
	}
	var keys []key
	series := map[key][3]plotter.XYs{}
	for _, c := range cells {
		k := key{c.Weights, c.Gate, c.Medium}
		s, ok := series[k]
		if !ok {
			keys = append(keys, k)
		}
		s[0] = append(s[0], plotter.XY{X: c.High, Y: c.Precision})
		s[1] = append(s[1], plotter.XY{X: c.High, Y: c.Recall})
		s[2] = append(s[2], plotter.XY{X: c.High, Y: c.FalseInject})
		series[k] = s
	}
	var vs []any
	for _, k := range keys {
		suffix := ""
		if several {
			suffix = fmt.Sprintf(" (w %s, cos %.2f, cov %.2f, m %.2f)", weightsLabel(k.w), k.g.MinCosine, k.g.MinCoverage, k.m)
		}
		s := series[k]
		vs = append(vs, "inject precision"+suffix, s[0], "inject recall"+suffix, s[1], "false-inject rate"+suffix, s[2])
	}
	if err := plotutil.AddLinePoints(p, vs...); err != nil {
		return err
	}
	return p.Save(8*vg.Inch, 5*vg.Inch, path)
}
