package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/ngram"
	"github.com/omoide/omoide/rerank"
	"github.com/omoide/omoide/retriever"
)

// weights are the rerank weights of the final score.
type weights struct {
	RRF  float64 `json:"rrf"`
	Lex  float64 `json:"lex"`
	Rec  float64 `json:"rec"`
	Cov  float64 `json:"coverage"`
	Prox float64 `json:"proximity"`
}

// weightsOf returns the weights of o.
func weightsOf(o rerank.Options) weights {
	return weights{o.WeightRRF, o.WeightLex, o.WeightRecency, o.WeightCoverage, o.WeightProximity}
}

func (w weights) String() string {
	return fmt.Sprintf("%.2f/%.2f/%.2f/%.2f/%.2f", w.RRF, w.Lex, w.Rec, w.Cov, w.Prox)
}

// cand is one reranked candidate of a live retrieval, with what the offline
// selection needs: its score parts, its n-grams (for the dedupe), its
// neighbours in time (for NeighborShare) and its position in the live rerank
// order.
type cand struct {
	ID                           int64
	ExtID                        string
	adj                          [2]int64  // the person's episodes just before and after (episode.Store.Adjacent)
	at                           time.Time // when it happened (for NeighborGap)
	RRF, RRFNorm, Lex, Rec, Live float64   // Live: the retriever's Final
	Cosine, Coverage             float64   // what the gate tests
	Proximity                    float64
	InWindow                     bool    // and this: inside the message's time window
	Boost                        float64 // the retriever's time-window boost, added to Final
	Final                        float64 // recomputed
	pos                          int
	grams                        ngram.Set
}

// gramCache computes each episode's n-grams once (episodes recur across
// queries).
type gramCache struct {
	mu sync.Mutex
	m  map[int64]ngram.Set
}

func (g *gramCache) get(h retriever.Hit, o rerank.Options) ngram.Set {
	g.mu.Lock()
	s, ok := g.m[h.Episode.ID]
	g.mu.Unlock()
	if ok {
		return s
	}
	s = o.EpisodeGrams(h.Episode.UserText, h.Episode.ReplyText)
	g.mu.Lock()
	g.m[h.Episode.ID] = s
	g.mu.Unlock()
	return s
}

// candsOf converts a result's candidates (requested WithCandidates) of a
// retriever with options ro. A candidate's boost (Options.TimeBoost inside
// the message's time window) is not reported by the retriever: it is what the
// live Final holds beyond the weighted parts, snapped to ro.TimeBoost so that
// the recomputed Final with the live weights is bit-identical to the live one.
func candsOf(res retriever.Result, ro retriever.Options, gc *gramCache) []cand {
	o := ro.Rerank
	out := make([]cand, len(res.Candidates))
	for i, h := range res.Candidates {
		out[i] = cand{ID: h.Episode.ID, ExtID: h.Episode.ExternalID, RRF: h.RRF, RRFNorm: h.RRFNorm, Lex: h.Lex, Rec: h.Rec, Live: h.Score,
			Boost: h.Boost, Cosine: h.Cosine, Coverage: h.Coverage, Proximity: h.Proximity, InWindow: h.InWindow, pos: i, grams: gc.get(h, o), at: h.Episode.OccurredAt}
	}
	return out
}

// rescore returns the candidates with Final recomputed from their parts with
// w, exactly as rerank.Score computes it, in the order rerank.Score would put
// them. rerank.Score stable-sorts the fused list (RRF descending, fusion ties
// in first-seen order) by Final descending; the candidates here come in the
// live rerank order, so ties in the new Final are broken by RRF descending and
// then by the live position. With the live weights this is exactly the live
// order; with other weights it differs only for candidates tied on both the
// new Final and RRF but not on the live Final, where the fusion's first-seen
// order is no longer known.
func rescore(cs []cand, w weights) []cand {
	out := slices.Clone(cs)
	for i := range out {
		c := &out[i]
		c.Final = w.RRF*c.RRFNorm + w.Lex*c.Lex + w.Rec*c.Rec + w.Cov*c.Coverage + w.Prox*c.Proximity
		if c.Boost != 0 {
			c.Final += c.Boost
		}
	}
	slices.SortFunc(out, func(a, b cand) int {
		// the neighbours the retriever added (no fused score) come after
		// the fused candidates, as it appends them before its last sort
		if aAdded, bAdded := a.RRF == 0, b.RRF == 0; aAdded != bAdded {
			if aAdded {
				return 1
			}
			return -1
		}
		if c := cmp.Compare(b.Final, a.Final); c != 0 {
			return c
		}
		if c := cmp.Compare(b.RRF, a.RRF); c != 0 {
			return c
		}
		return cmp.Compare(a.pos, b.pos)
	})
	return out
}

// withAdjacency fills each candidate's neighbours in the person's timeline,
// for raiseNeighbors.
func withAdjacency(ctx context.Context, s *episode.Store, user string, cs []cand) error {
	ids := make([]int64, len(cs))
	for i, c := range cs {
		ids[i] = c.ID
	}
	adj, err := s.Adjacent(ctx, user, ids)
	if err != nil {
		return err
	}
	for i := range cs {
		cs[i].adj = adj[i]
	}
	return nil
}

// raiseNeighbors is the retriever's NeighborShare on recomputed scores: a
// candidate next to one of the first MaxResults (anchors) rises to share of
// that one's Final, then the list is sorted again, ties in their order. The
// anchors are the first candidates a search found: a neighbour the live
// retrieval added (NeighborFetch; no fused score) is never one. Which
// neighbours are added depends on the live first candidate, so with other
// weights the replay holds the live retrieval's additions, not its own.
func raiseNeighbors(sorted []cand, nb neighbourRule, o rerank.Options) []cand {
	byFinal := func(a, b cand) int { return cmp.Compare(b.Final, a.Final) }
	if nb.share <= 0 || len(sorted) < 2 {
		slices.SortStableFunc(sorted, byFinal)
		return sorted
	}
	var anchors []int // positions in sorted
	for i, c := range sorted {
		if len(anchors) == max(1, o.MaxResults) {
			break
		}
		if c.RRF > 0 {
			anchors = append(anchors, i)
		}
	}
	for _, i := range anchors {
		floor := nb.share * sorted[i].Final
		for _, id := range sorted[i].adj {
			j := slices.IndexFunc(sorted, func(c cand) bool { return c.ID == id })
			if j >= 0 && id != 0 && !slices.Contains(anchors, j) && sorted[j].Final < floor && nb.near(sorted[i].at, sorted[j].at) {
				sorted[j].Final = floor
			}
		}
	}
	slices.SortStableFunc(sorted, byFinal)
	return sorted
}

// neighbourRule is the retriever's NeighborShare and NeighborGap.
type neighbourRule struct {
	share float64
	gap   time.Duration
}

func neighbourRuleOf(o retriever.Options) neighbourRule {
	return neighbourRule{o.NeighborShare, o.NeighborGap}
}

// near reports whether a and b are within the gap (any, when it is 0).
func (nb neighbourRule) near(a, b time.Time) bool {
	d := a.Sub(b)
	return nb.gap <= 0 || (d <= nb.gap && d >= -nb.gap)
}

// replay is the retriever's order under weights w: rescore, then
// raiseNeighbors.
func replay(cs []cand, w weights, nb neighbourRule, o rerank.Options) []cand {
	return raiseNeighbors(rescore(cs, w), nb, o)
}

// walk is rerank.Select without its final High gate, on recomputed scores:
// rerank.Select needs rerank.Scored values whose n-gram sets are unexported,
// so the walk is repeated here (a public helper in rerank, e.g. Select over
// caller-supplied scores and n-grams, would avoid this copy). It walks the
// sorted list, stops at MaxResults picks, skips a candidate whose Final is
// below medium, and skips one whose n-gram Dice with an earlier pick is at
// least DedupeDice (both sets non-empty).
func walk(sorted []cand, medium float64, o rerank.Options) []cand {
	var picks []cand
	for _, c := range sorted {
		if len(picks) >= o.MaxResults {
			break
		}
		if c.Final < medium {
			continue
		}
		if slices.ContainsFunc(picks, func(p cand) bool {
			return p.grams.Len() > 0 && c.grams.Len() > 0 && ngram.Dice(p.grams, c.grams) >= o.DedupeDice
		}) {
			continue
		}
		picks = append(picks, c)
	}
	return picks
}

// gate keeps the candidates that g admits, in order, as the retriever does
// before rerank.Select: only the first Depth candidates (0: twice
// MaxResults) are examined, and one passes when its Coverage reaches
// MinCoverage or its Cosine reaches MinCosine (a zero threshold disables its
// test; the zero Gate admits everything), or it lies inside the message's
// time window. The retriever's Gate.admits and
// Gate.depth are unexported, hence this copy. The retriever computes every
// candidate's Coverage, so the replay has it whatever the weights.
// With UnknownNames, a query whose live retrieval found names the memory
// does not hold (unknown) admits nothing.
func gate(sorted []cand, g retriever.Gate, o rerank.Options, unknown bool) []cand {
	if g.UnknownNames && unknown {
		return nil
	}
	if g.MinCoverage <= 0 && g.MinCosine <= 0 {
		return sorted
	}
	depth := g.Depth
	if depth <= 0 {
		depth = 2 * max(1, o.MaxResults)
	}
	for _, c := range sorted[:min(depth, len(sorted))] {
		if (g.MinCoverage > 0 && c.Coverage >= g.MinCoverage) || (g.MinCosine > 0 && c.Cosine >= g.MinCosine) || c.InWindow {
			return sorted // evidence: the reranker picks as usual
		}
	}
	return nil
}

// selectOffline is the retriever's selection on recomputed scores: the gate,
// the walk, then nothing when there is no pick or the first pick is below
// High.
func selectOffline(sorted []cand, g retriever.Gate, o rerank.Options, unknown bool) []cand {
	picks := walk(gate(sorted, g, o, unknown), o.Medium, o)
	if len(picks) == 0 || picks[0].Final < o.High {
		return nil
	}
	return picks
}

// tuneQuery is one query's live retrieval.
type tuneQuery struct {
	suite    string
	relevant map[string]bool
	cands    []cand
	live     []string // the live picks' external ids
	// unknownNames: the message names what the memory does not hold.
	unknownNames bool
}

// tuneCell is the figures of one (weights, medium, high) setting.
type tuneCell struct {
	Weights     weights        `json:"weights"`
	Gate        retriever.Gate `json:"gate"`
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
func sweep(qs []tuneQuery, ws []weights, nb neighbourRule, gates []retriever.Gate, mediums, highs []float64, o rerank.Options) []tuneCell {
	var cells []tuneCell
	for _, w := range ws {
		type walked struct {
			first float64 // the first pick's Final; -Inf without a pick
			hit   bool    // a pick is relevant
			r5    float64
		}
		sorted := make([][]cand, len(qs))
		for i, q := range qs {
			sorted[i] = replay(q.cands, w, nb, o)
		}
		for _, g := range gates {
			for _, m := range mediums {
				walks := make([]walked, len(qs))
				for i, q := range qs {
					picks := walk(gate(sorted[i], g, o, q.unknownNames), m, o)
					walks[i].first = math.Inf(-1)
					if len(picks) > 0 {
						walks[i].first = picks[0].Final
					}
					for _, p := range picks {
						if q.relevant[p.ExtID] {
							walks[i].hit = true
						}
					}
					ids := make([]string, min(5, len(sorted[i])))
					for j := range ids {
						ids[j] = sorted[i][j].ExtID
					}
					walks[i].r5 = recallAt(ids, q.relevant, 5)
				}
				for _, h := range highs {
					c := tuneCell{Weights: w, Gate: g, Medium: m, High: h}
					inj, injHit, injPos, falseInj, top5, injTop5 := 0, 0, 0, 0, 0, 0
					for i, q := range qs {
						injected := walks[i].first >= h
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
					cells = append(cells, c)
				}
			}
		}
	}
	return cells
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
// weights; the coverage and proximity weights left out are cov and prox.
func parseWeights(s string, cov, prox float64) ([]weights, error) {
	var out []weights
	for _, t := range strings.Split(s, ",") {
		parts := strings.Split(strings.TrimSpace(t), "/")
		if len(parts) < 3 || len(parts) > 5 {
			return nil, fmt.Errorf("%w: weights %q: want rrf/lex/rec, rrf/lex/rec/coverage or rrf/lex/rec/coverage/proximity", errUsage, t)
		}
		v := [5]float64{3: cov, 4: prox}
		for i, p := range parts {
			f, err := strconv.ParseFloat(p, 64)
			if err != nil {
				return nil, fmt.Errorf("%w: weights %q: %v", errUsage, t, err)
			}
			v[i] = f
		}
		out = append(out, weights{v[0], v[1], v[2], v[3], v[4]})
	}
	return out, nil
}

func runTune(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("tune", stderr)
	var f suiteFlags
	f.register(fs)
	highFlag := fs.String("high", "0.30:0.90:0.02", "High thresholds: from:to:step or a comma list")
	mediumFlag := fs.String("medium", "", "Medium thresholds: from:to:step or a comma list (default: the preset's)")
	weightsFlag := fs.String("weights", "", "rerank weights to compare, rrf/lex/rec[/coverage[/proximity]], comma list (default: the preset's; coverage and proximity: the preset's when left out)")
	cosFlag := fs.String("min-cosine", "", "gate MinCosine values: from:to:step or a comma list (default: the preset's)")
	covFlag := fs.String("min-coverage", "", "gate MinCoverage values: from:to:step or a comma list (default: the preset's)")
	plotPath := fs.String("plot", "", "write a plot of inject precision, recall and false-inject rate against High (.svg, .png, .pdf)")
	if err := parse(fs, args); err != nil {
		return err
	}
	dirs, err := suiteDirs(f.suites, f.evalDir)
	if err != nil {
		return err
	}
	cfgs, err := configGrid(f.presets.or(omoide.PresetDefault), f.arms.or(armsHybrid), f.toks)
	if err != nil {
		return err
	}
	if cfgs, err = withVariants(cfgs, f.variants); err != nil {
		return err
	}
	if len(cfgs) != 1 {
		return fmt.Errorf("%w: tune sweeps one configuration; give one -preset, -arms, -tokenizer and -variant", errUsage)
	}
	cfg := cfgs[0]
	ro := cfg.Opts.Rerank
	highs, err := parseRange(*highFlag)
	if err != nil {
		return err
	}
	mediums := []float64{ro.Medium}
	if *mediumFlag != "" {
		if mediums, err = parseRange(*mediumFlag); err != nil {
			return err
		}
	}
	ws := []weights{weightsOf(ro)}
	if *weightsFlag != "" {
		if ws, err = parseWeights(*weightsFlag, ro.WeightCoverage, ro.WeightProximity); err != nil {
			return err
		}
	}
	cosines, covs := []float64{cfg.Opts.Gate.MinCosine}, []float64{cfg.Opts.Gate.MinCoverage}
	if *cosFlag != "" {
		if cosines, err = parseRange(*cosFlag); err != nil {
			return err
		}
	}
	if *covFlag != "" {
		if covs, err = parseRange(*covFlag); err != nil {
			return err
		}
	}
	var gates []retriever.Gate
	for _, c := range cosines {
		for _, v := range covs {
			gates = append(gates, retriever.Gate{MinCosine: c, MinCoverage: v, Depth: cfg.Opts.Gate.Depth, UnknownNames: cfg.Opts.Gate.UnknownNames})
		}
	}
	emb, err := f.emb.embedder()
	if err != nil {
		return err
	}
	distractors, err := f.distractorEpisodes()
	if err != nil {
		return err
	}

	start := time.Now()
	var all []tuneQuery
	var suiteNames []string
	same, total := 0, 0
	for _, dir := range dirs {
		s, err := loadSuite(dir, f.limit, f.seed)
		if err != nil {
			return err
		}
		suiteNames = append(suiteNames, s.Name)
		fmt.Fprintf(stderr, "%s: %d episodes, %d queries\n", s.Name, len(s.Episodes), len(s.Queries))
		stores, err := buildSuiteStores(ctx, s, cfgs, f.emb, emb, f.workers, distractors, stderr)
		if err != nil {
			return err
		}
		r, err := retriever.New(stores.of(cfg), cfg.Opts)
		if err != nil {
			stores.Close()
			return err
		}
		qs := make([]tuneQuery, len(s.Queries))
		gc := &gramCache{m: map[int64]ngram.Set{}}
		err = runQueries(ctx, r, s.Queries, f.workers, func(i int, res retriever.Result) {
			q := s.Queries[i]
			tq := tuneQuery{suite: s.Name, relevant: map[string]bool{}, cands: candsOf(res, cfg.Opts, gc),
				unknownNames: len(res.Trace.UnknownNames) > 0}
			for _, id := range q.Relevant {
				tq.relevant[id] = true
			}
			for _, h := range res.Hits {
				tq.live = append(tq.live, h.Episode.ExternalID)
			}
			qs[i] = tq
		})
		if err == nil && cfg.Opts.NeighborShare > 0 {
			for i := range qs {
				if err = withAdjacency(ctx, stores.of(cfg), s.Queries[i].User, qs[i].cands); err != nil {
					break
				}
			}
		}
		stores.Close()
		if err != nil {
			return err
		}
		// Check the offline selection against the live one.
		lw := weightsOf(ro)
		for _, q := range qs {
			total++
			var ids []string
			for _, p := range selectOffline(replay(q.cands, lw, neighbourRuleOf(cfg.Opts), ro), cfg.Opts.Gate, ro, q.unknownNames) {
				ids = append(ids, p.ExtID)
			}
			if slices.Equal(ids, q.live) {
				same++
			}
		}
		all = append(all, qs...)
	}
	fmt.Fprintf(stdout, "tune %s on %s: offline selection reproduces the live picks on %d/%d queries\n\n",
		cfg.Label(), strings.Join(suiteNames, ", "), same, total)

	groups := [][]tuneQuery{}
	labels := []string{}
	for _, name := range suiteNames {
		var g []tuneQuery
		for _, q := range all {
			if q.suite == name {
				g = append(g, q)
			}
		}
		groups, labels = append(groups, g), append(labels, name)
	}
	if len(suiteNames) > 1 {
		groups, labels = append(groups, all), append(labels, "all")
	}
	tab := &table{header: []string{"suite", "weights", "min-cos", "min-cov", "medium", "high", "n", "n0", "inj-prec", "inj-recall", "inject", "inj@top5", "false-inj", "R@5"}, left: 2}
	var results []result
	var plotCells []tuneCell
	for gi, g := range groups {
		cells := sweep(g, ws, neighbourRuleOf(cfg.Opts), gates, mediums, highs, ro)
		for _, c := range cells {
			tab.add(labels[gi], c.Weights.String(), fmt.Sprintf("%.2f", c.Gate.MinCosine), fmt.Sprintf("%.2f", c.Gate.MinCoverage),
				fmt.Sprintf("%.2f", c.Medium), fmt.Sprintf("%.2f", c.High),
				fmt.Sprint(c.N), fmt.Sprint(c.N0), f3(c.Precision), f3(c.Recall), f3(c.Inject), f3(c.InjectTop5), f3(c.FalseInject), f3(c.R5))
			results = append(results, result{Suite: labels[gi], Preset: cfg.Preset, Config: cfg.Label(), Metrics: c})
		}
		if gi == len(groups)-1 {
			plotCells = cells
		}
	}
	tab.write(stdout, f.md)
	fmt.Fprintf(stdout, "\n%d queries, %d settings, in %v\n", len(all), len(ws)*len(gates)*len(mediums)*len(highs), time.Since(start).Round(time.Millisecond))
	if *plotPath != "" {
		title := fmt.Sprintf("%s on %s", cfg.Label(), labels[len(labels)-1])
		if err := plotSweep(*plotPath, title, plotCells, len(ws)*len(gates)*len(mediums) > 1); err != nil {
			return fmt.Errorf("plot: %w", err)
		}
		fmt.Fprintf(stdout, "plot: %s\n", *plotPath)
	}
	params := map[string]any{"suites": dirs, "config": cfg, "limit": f.limit, "seed": f.seed, "highs": highs,
		"mediums": mediums, "weights": ws, "gates": gates, "embedder": emb.Identity().String()}
	return writeJSON(f.jsonPath, "tune", params, results)
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
		w weights
		g retriever.Gate
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
			suffix = fmt.Sprintf(" (w %s, cos %.2f, cov %.2f, m %.2f)", k.w, k.g.MinCosine, k.g.MinCoverage, k.m)
		}
		s := series[k]
		vs = append(vs, "inject precision"+suffix, s[0], "inject recall"+suffix, s[1], "false-inject rate"+suffix, s[2])
	}
	if err := plotutil.AddLinePoints(p, vs...); err != nil {
		return err
	}
	return p.Save(8*vg.Inch, 5*vg.Inch, path)
}
