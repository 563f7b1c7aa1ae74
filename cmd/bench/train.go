package main

import (
	"context"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/omoide/omoide/dataset"
	"github.com/omoide/omoide/embed"
	"github.com/omoide/omoide/episode/sqlite"
	"github.com/omoide/omoide/internal/paraphrase"
	"github.com/omoide/omoide/rerank"
	"github.com/omoide/omoide/retriever"
)

// trainQuery is one query's live retrieval, as rows of the relevance model:
// the features of its first candidates and whether each is relevant.
type trainQuery struct {
	suite, category string
	held            bool // in the held-back half
	relevant        int  // |relevant|
	ranked          []rerank.Scored
	unknown         []string // the message's names the memory never held (rerank.Gate)
	xs              [][]float64
	ys              []float64
	weight          int // how many times each row counts in a fit (-weight; 0 counts as 1)
	// acceptable[j]: candidate j is neither relevant nor wrong
	// (dataset.Query Acceptable): no row of the fit, no false inject.
	acceptable []bool
}

// heldBack reports whether a query is in the held-back half: by its person
// when the suite has people enough to split (a person's episodes and queries
// then stay on one side), else by its position.
func heldBack(suite string, q dataset.Query, byPerson bool) bool {
	if !byPerson {
		return q.Ordinal%2 == 0
	}
	h := fnv.New32a()
	h.Write([]byte(suite + "\x00" + q.User))
	return h.Sum32()%2 == 1
}

// minPeople is the fewest people a suite is split by.
const minPeople = 8

// trainFlags are the flags of bench train.
type trainFlags struct {
	f                                     suiteFlags
	out, skip, thresholds, plotPath, rows string
	weights                               string
	top, trees, depth, maxPicks           int
	level                                 float64
	lexical, semantic, leaveOut, para     bool
}

// register declares the flags on fs.
func (t *trainFlags) register(fs *flag.FlagSet) {
	t.f.register(fs)
	fs.StringVar(&t.out, "o", "", "write the fitted model (JSON) to this `file`")
	fs.IntVar(&t.top, "top", rerank.DefaultInjectDepth, "candidates of each query the model is fitted and judged on (rerank.Inject.Depth)")
	fs.StringVar(&t.skip, "skip", "recent-turns", "categories (comma list) left out of the fit, still reported: those whose labels the ranking cannot reach (sui-ja-dev recent-turns: docs/quality.md)")
	fs.IntVar(&t.trees, "trees", rerank.DefaultFitOptions().Trees, "boosting rounds")
	fs.IntVar(&t.depth, "depth", rerank.DefaultFitOptions().Depth, "depth of each tree")
	fs.StringVar(&t.thresholds, "thresholds", "0.35,0.4,0.45,0.5,0.6", "thresholds of the retrieval's probability (rerank.Inject) to report delivered recall and precision at")
	fs.Float64Var(&t.level, "level", rerank.DefaultInjectLevel, "the least probability of an injected candidate (rerank.Inject.Level)")
	fs.IntVar(&t.maxPicks, "max-picks", rerank.DefaultInjectMaxPicks, "the most candidates a retrieval injects (rerank.Inject.MaxPicks; 0: Selection.MaxResults)")
	fs.StringVar(&t.plotPath, "plot", "", "draw the held-back reliability diagram (SVG, PNG or PDF by the name) to this `file`")
	fs.BoolVar(&t.lexical, "lexical", false, "fit the embedder-free model: without the vector score (cosine), for stores whose embedder is not the one a model was fitted for (rerank.DefaultLexicalModel)")
	fs.BoolVar(&t.semantic, "semantic", false, "fit the semantic-embedder model: where the cosine stands among the candidates, not its scale (cos_rank, cos_z), for a semantic store whose embedder no model was fitted for (rerank.DefaultSemanticModel); fit it with a semantic -embedder")
	fs.BoolVar(&t.para, "paraphrase", false, "also fit on paraphrase labels made now from -haystack (bench paraphrase, default options): questions in other words, siblings, unrelated topics; the way to calibrate for a semantic embedder with no labels of your own")
	fs.BoolVar(&t.leaveOut, "leave-out", true, "also judge each suite by a model fitted on all the other suites (leave-one-suite-out): how the decision transfers to data it has not seen")
	fs.StringVar(&t.weights, "weight", "", "suites whose rows count more in the fit: `name=k,...` (a name ending in * is a prefix: chat-*=8), so that a small suite of the labels that matter is not drowned by the large ones")
	fs.StringVar(&t.rows, "rows", "", "also write every candidate row (suite, category, query, held back, |relevant|, label, features) as TSV to this `file`")
}

// training is one run of bench train: its flags, the queries' live
// retrievals as rows, the model fitted on them and how it decides.
type training struct {
	trainFlags
	dirs       []string
	ths        []float64
	cfg        config
	emb        embed.Embedder
	qs         []trainQuery
	skipped    map[string]bool // -skip
	fo         rerank.FitOptions
	candidates int // the rows the model was fitted on
	model      *rerank.Model
	probs      [][]float64 // the model's probability of each query's candidates
	bins       []rerank.Bin
	ece        float64        // of the held-back half
	cells      []decisionCell // the held-back half's decisions
	loso       []decisionCell // -leave-out's
	cleanup    func()         // removes what -paraphrase wrote
}

func runTrain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	t, err := parseTrain(args, stderr)
	if err != nil {
		return err
	}
	if t.cleanup != nil {
		defer t.cleanup()
	}
	start := time.Now()
	if err := t.load(ctx, stderr); err != nil {
		return err
	}
	if err := t.fit(stderr); err != nil {
		return err
	}
	if err := t.calibration(stdout); err != nil {
		return err
	}
	if err := t.judge(stdout, stderr); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\n%d queries in %v\n", len(t.qs), time.Since(start).Round(time.Second))
	if err := t.saveModel(stdout, args); err != nil {
		return err
	}
	return t.writeFigures()
}

// parseTrain parses the flags, the suites, the thresholds, the configuration
// (with -meaning) and the embedder.
func parseTrain(args []string, stderr io.Writer) (*training, error) {
	fs := newFlagSet("train", stderr)
	t := &training{}
	t.register(fs)
	if err := parse(fs, args); err != nil {
		return nil, err
	}
	var err error
	if t.dirs, err = suiteDirs(t.f.suites, t.f.evalDirs); err != nil {
		return nil, err
	}
	if t.ths, err = parseRange(t.thresholds); err != nil {
		return nil, err
	}
	cfg, err := t.f.oneConfig("train")
	if err != nil {
		return nil, err
	}
	cfgs := []config{cfg}
	if err := t.f.withMeaning(cfgs, stderr); err != nil {
		return nil, err
	}
	t.cfg = cfgs[0]
	if t.emb, err = t.f.emb.embedder(); err != nil {
		return nil, err
	}
	switch {
	case t.lexical && t.semantic:
		return nil, fmt.Errorf("%w: -lexical and -semantic: a model is fitted for one of them", errUsage)
	case t.semantic && embed.IsLexical(t.emb):
		return nil, fmt.Errorf("%w: -semantic: the embedder %s is lexical; fit with a semantic one (-embedder terms, static or openai)", errUsage, t.emb.Identity())
	}
	if t.para {
		dir, err := os.MkdirTemp("", "omoide-paraphrase-")
		if err != nil {
			return nil, err
		}
		t.cleanup = func() { os.RemoveAll(dir) }
		st, n, err := writeParaphrase(t.f.haystack, filepath.Join(dir, "paraphrase"), paraphrase.Options{}, nil, true, "bench train -paraphrase")
		if err != nil {
			t.cleanup()
			return nil, fmt.Errorf("-paraphrase: %w", err)
		}
		fmt.Fprintf(stderr, "paraphrase labels: %d people, %d episodes, %d queries (%s)\n", st.People, st.Episodes, n, categoryCounts(st))
		t.dirs = append(t.dirs, filepath.Join(dir, "paraphrase"))
	}
	return t, nil
}

// load retrieves every query of every suite and, with -rows, writes their
// candidate rows.
func (t *training) load(ctx context.Context, stderr io.Writer) error {
	for _, dir := range t.dirs {
		qs, err := t.suiteQueries(ctx, dir, stderr)
		if err != nil {
			return err
		}
		t.qs = append(t.qs, qs...)
	}
	if t.rows != "" {
		return writeRows(t.rows, t.qs)
	}
	return nil
}

// suiteQueries loads the suite of dir, splits it by person when it has
// people enough (else by query), and retrieves its queries.
func (t *training) suiteQueries(ctx context.Context, dir string, stderr io.Writer) ([]trainQuery, error) {
	s, err := loadSuite(dir, t.f.limit, t.f.seed, stderr)
	if err != nil {
		return nil, err
	}
	people := map[string]bool{}
	for _, q := range s.Queries {
		people[q.User] = true
	}
	byPerson := len(people) >= minPeople
	split := "query"
	switch {
	case len(s.Judged) > 0:
		split = "the judged people of " + dataset.SuiteFile
	case byPerson:
		split = "person"
	}
	w, err := suiteWeight(t.weights, s.Name)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(stderr, "%s: %d episodes, %d queries, %d people (split by %s), rows weigh %d\n", s.Name, len(s.Episodes), len(s.Queries), len(people), split, w)
	return retrieveEach(ctx, s, t.cfg, &t.f, t.emb, nil, stderr, func(_ *sqlite.Store, i int, res retriever.Result) (trainQuery, error) {
		tq := t.query(s.Name, s.Queries[i], byPerson, res)
		tq.weight = w
		if len(s.Judged) > 0 {
			tq.held = s.InJudged(s.Queries[i])
		}
		return tq, nil
	})
}

// suiteWeight returns how many times the rows of suite count in a fit, by
// the -weight list ("name=k,prefix*=k"; the first that names it): 1 when
// none does.
func suiteWeight(list, suite string) (int, error) {
	for _, item := range strings.Split(list, ",") {
		if item = strings.TrimSpace(item); item == "" {
			continue
		}
		name, k, ok := strings.Cut(item, "=")
		n, err := strconv.Atoi(k)
		if !ok || err != nil || n < 1 {
			return 0, fmt.Errorf("%w: -weight %q: want name=k with k a whole number ≥ 1", errUsage, item)
		}
		if name == suite || strings.HasSuffix(name, "*") && strings.HasPrefix(suite, strings.TrimSuffix(name, "*")) {
			return n, nil
		}
	}
	return 1, nil
}

// query turns a live retrieval of q into rows: the features of its first
// -top candidates (without the vector score with -lexical), each labelled
// by whether it is relevant.
func (t *training) query(suite string, q dataset.Query, byPerson bool, res retriever.Result) trainQuery {
	rel, acc := map[string]bool{}, map[string]bool{}
	for _, id := range q.Relevant {
		rel[id] = true
	}
	for _, id := range q.Acceptable {
		acc[id] = true
	}
	tq := trainQuery{suite: suite, category: q.Category, held: heldBack(suite, q, byPerson), relevant: len(rel)}
	tq.ranked = res.Ranked[:min(len(res.Ranked), t.top)]
	tq.unknown = res.Trace.UnknownNames
	for j := range tq.ranked {
		x := rerank.Features(res.Ranked, j, res.Signals, nil)
		switch {
		case t.lexical:
			x = rerank.WithoutVectors(x)
		case t.semantic:
			x = rerank.WithoutScale(x)
		}
		tq.xs = append(tq.xs, x)
		y := 0.0
		if rel[res.Candidates[j].Episode.ExternalID] {
			y = 1
		}
		tq.ys = append(tq.ys, y)
		tq.acceptable = append(tq.acceptable, acc[res.Candidates[j].Episode.ExternalID])
	}
	return tq
}

// fit fits the model on the rows of the half not held back, the -skip
// categories left out.
func (t *training) fit(stderr io.Writer) error {
	t.skipped = map[string]bool{}
	for _, c := range strings.Split(t.skip, ",") {
		t.skipped[strings.TrimSpace(c)] = true
	}
	xs, ys := trainRows(t.qs, func(q trainQuery) bool { return !q.held && !t.skipped[q.category] })
	t.fo = rerank.DefaultFitOptions()
	t.fo.Trees, t.fo.Depth = t.trees, t.depth
	start := time.Now()
	m, err := rerank.Fit(xs, ys, t.fo)
	if err != nil {
		return err
	}
	t.model, t.candidates = m, len(xs)
	fmt.Fprintf(stderr, "fitted %d trees of depth %d on %d candidates in %v\n", t.fo.Trees, t.fo.Depth, len(xs), time.Since(start).Round(time.Millisecond))
	return nil
}

// calibration prints the model's calibration on the held-back half and,
// with -plot, draws it.
func (t *training) calibration(stdout io.Writer) error {
	t.probs = probabilities(t.model, t.qs, func(trainQuery) bool { return true })
	var ps, hy []float64
	for i, q := range t.qs {
		if q.held {
			ps, hy = append(ps, t.probs[i]...), append(hy, q.ys...)
		}
	}
	t.bins, t.ece = rerank.Reliability(ps, hy, 10)
	rel := &table{header: []string{"bin", "n", "predicted", "observed"}, left: 1}
	for _, b := range t.bins {
		rel.add(fmt.Sprintf("%.1f–%.1f", b.From, b.To), fmt.Sprint(b.N), f3(b.Predicted), f3(b.Observed))
	}
	fmt.Fprintf(stdout, "held-back half: %d candidates, expected calibration error %.4f\n\n", len(ps), t.ece)
	rel.write(stdout, t.f.md)
	if t.plotPath == "" {
		return nil
	}
	if err := plotReliability(t.plotPath, t.bins, t.ece); err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	fmt.Fprintf(stdout, "plot: %s\n", t.plotPath)
	return nil
}

// judge prints the decision on the held-back half at each threshold and,
// with -leave-out and several suites, on each suite by a model fitted on
// the others. The decision is the preset's gate and selection, the model's
// picks by -level and -max-picks (oneConfig cleared the preset's Inject).
func (t *training) judge(stdout, stderr io.Writer) error {
	judge := t.cfg.Opts.Rank
	judge.Inject = rerank.Inject{Level: t.level, MaxPicks: t.maxPicks, AnyDepth: rerank.DefaultInjectAnyDepth}
	t.cells = decisions(t.qs, t.probs, func(q trainQuery) bool { return q.held }, t.ths, judge)
	fmt.Fprintln(stdout)
	decisionTable(t.cells, nil).write(stdout, t.f.md)
	if !t.leaveOut || len(t.dirs) <= 1 {
		return nil
	}
	loso, eces, err := leaveOneSuiteOut(t.qs, t.skipped, t.fo, t.ths, judge, stderr)
	if err != nil {
		return err
	}
	t.loso = loso
	fmt.Fprintf(stdout, "\nleave-one-suite-out: each suite judged, every query of it, by a model fitted on all the other suites\n\n")
	decisionTable(loso, eces).write(stdout, t.f.md)
	return nil
}

// saveModel records how the model was made and, with -o, writes it.
func (t *training) saveModel(stdout io.Writer, args []string) error {
	m := t.model
	m.About = map[string]any{"command": "bench train " + strings.Join(args, " "), "commit": commit(), "suites": t.dirs,
		"split":   "half of each suite's people (by an FNV hash of the suite and the person; by query position when a suite has fewer than 8 people)",
		"skipped": t.skip, "top": t.top, "trees": t.fo.Trees, "depth": t.fo.Depth, "candidates": t.candidates, "held_back_ece": t.ece, "embedder": t.emb.Identity().String()}
	switch {
	case t.lexical:
		m.About["embedder"] = rerank.AnyEmbedder
		m.About["fitted_with"] = t.emb.Identity().String()
	case t.semantic:
		m.About["embedder"] = rerank.AnySemantic
		m.About["fitted_with"] = t.emb.Identity().String()
	}
	if t.out == "" {
		return nil
	}
	b, err := m.Encode()
	if err != nil {
		return err
	}
	if err := os.WriteFile(t.out, b, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "model: %s\n", t.out)
	return nil
}

// writeFigures writes the decisions' figures as JSON to -json.
func (t *training) writeFigures() error {
	params := map[string]any{"suites": t.dirs, "top": t.top, "trees": t.fo.Trees, "depth": t.fo.Depth, "ece": t.ece, "bins": t.bins}
	var rs []result
	for _, c := range t.cells {
		rs = append(rs, result{Suite: c.Suite, Category: c.Category, Config: fmt.Sprintf("p>=%.2f", c.Threshold), Metrics: c.Quality})
	}
	for _, c := range t.loso {
		rs = append(rs, result{Suite: c.Suite, Category: c.Category, Config: fmt.Sprintf("left-out p>=%.2f", c.Threshold), Metrics: c.Quality})
	}
	return writeJSON(t.f.jsonPath, "train", params, rs)
}

// trainRows are the candidate rows of the queries include admits.
func trainRows(qs []trainQuery, include func(trainQuery) bool) (xs [][]float64, ys []float64) {
	for _, q := range qs {
		if !include(q) {
			continue
		}
		for j, x := range q.xs {
			if j < len(q.acceptable) && q.acceptable[j] {
				continue
			}
			for range max(1, q.weight) {
				xs, ys = append(xs, x), append(ys, q.ys[j])
			}
		}
	}
	return xs, ys
}

// probabilities are m's probabilities of the candidates of the queries
// include admits (nil for the others), query by query.
func probabilities(m *rerank.Model, qs []trainQuery, include func(trainQuery) bool) [][]float64 {
	probs := make([][]float64, len(qs))
	for i, q := range qs {
		if !include(q) {
			continue
		}
		for _, x := range q.xs {
			probs[i] = append(probs[i], m.Probability(x))
		}
	}
	return probs
}

// decisionCell is the decision's quality on one suite and category at one
// threshold.
type decisionCell struct {
	Suite, Category string
	Threshold       float64
	Quality         quality
}

// decisions judges the queries include admits as a retrieval with dec's gate,
// selection and Inject (its Threshold each of ths) decides by their
// candidates' probabilities (probs[i] of qs[i]), per suite and per suite and
// category.
func decisions(qs []trainQuery, probs [][]float64, include func(trainQuery) bool, ths []float64, dec rerank.Options) []decisionCell {
	var cells []decisionCell
	for _, th := range ths {
		groups := map[[2]string][]outcome{}
		var keys [][2]string
		for i, q := range qs {
			if !include(q) {
				continue
			}
			o := outcome{relevant: map[string]bool{}, acceptable: map[string]bool{}, inject: true}
			for j, y := range q.ys {
				if y == 1 {
					o.relevant[fmt.Sprint(j)] = true
				}
				if j < len(q.acceptable) && q.acceptable[j] {
					o.acceptable[fmt.Sprint(j)] = true
				}
			}
			for k := len(o.relevant); k < q.relevant; k++ { // relevant episodes not among the candidates
				o.relevant[fmt.Sprintf("missing:%d", k)] = true
			}
			d := dec
			d.Inject.Threshold = th
			picks, _ := d.Decide(q.ranked, q.unknown, func() []float64 { return probs[i] })
			for _, p := range picks {
				o.picked = append(o.picked, fmt.Sprint(indexOf(q.ranked, p.ID)))
			}
			o.inject = len(o.picked) > 0
			for _, k := range [][2]string{{q.suite, "all"}, {q.suite, q.category}} {
				if k[1] == "" {
					continue
				}
				if _, ok := groups[k]; !ok {
					keys = append(keys, k)
				}
				groups[k] = append(groups[k], o)
			}
		}
		for _, k := range keys {
			cells = append(cells, decisionCell{k[0], k[1], th, aggregate(groups[k])})
		}
	}
	return cells
}

// decisionTable tabulates cells; eces, when not nil, adds each suite's
// expected calibration error to its rows.
func decisionTable(cells []decisionCell, eces map[string]float64) *table {
	header := []string{"suite", "category", "threshold", "n", "n0", "deliv-R", "ev-prec", "inj/q", "false-inj", "agree"}
	if eces != nil {
		header = append(header, "ECE")
	}
	t := &table{header: header, left: 2}
	for _, c := range cells {
		g := c.Quality
		row := []string{c.Suite, c.Category, fmt.Sprintf("%.2f", c.Threshold), fmt.Sprint(g.N), fmt.Sprint(g.N0), "-", "-", fmt.Sprintf("%.2f", g.MeanInjected), "-", f3(g.Agreement)}
		if g.N > 0 {
			row[5], row[6] = f3(g.DeliveredRecall), f3(g.EvidencePrecision)
		}
		if g.N0 > 0 {
			row[8] = f3(g.FalseInject)
		}
		if eces != nil {
			row = append(row, f3(eces[c.Suite]))
		}
		t.add(row...)
	}
	return t
}

// leaveOneSuiteOut fits, for each suite, a model on every other suite's
// candidates (both halves, skipped categories left out as in the main fit)
// and judges every query of that suite with it: the decision on a suite it
// has never seen. It returns the cells and each suite's calibration error.
func leaveOneSuiteOut(qs []trainQuery, skipped map[string]bool, fo rerank.FitOptions, ths []float64, dec rerank.Options, stderr io.Writer) ([]decisionCell, map[string]float64, error) {
	var suites []string
	for _, q := range qs {
		if !slices.Contains(suites, q.suite) {
			suites = append(suites, q.suite)
		}
	}
	var cells []decisionCell
	eces := map[string]float64{}
	for _, s := range suites {
		xs, ys := trainRows(qs, func(q trainQuery) bool { return q.suite != s && !skipped[q.category] })
		t := time.Now()
		m, err := rerank.Fit(xs, ys, fo)
		if err != nil {
			return nil, nil, fmt.Errorf("leave out %s: %w", s, err)
		}
		fmt.Fprintf(stderr, "left out %s: fitted on %d candidates in %v\n", s, len(xs), time.Since(t).Round(time.Millisecond))
		of := func(q trainQuery) bool { return q.suite == s }
		probs := probabilities(m, qs, of)
		var ps, py []float64
		for i, q := range qs {
			if of(q) && !skipped[q.category] {
				ps, py = append(ps, probs[i]...), append(py, q.ys...)
			}
		}
		_, eces[s] = rerank.Reliability(ps, py, 10)
		cells = append(cells, decisions(qs, probs, of, ths, dec)...)
	}
	return cells, eces, nil
}

// indexOf returns the position of id in scored.
func indexOf(scored []rerank.Scored, id int64) int {
	for i, s := range scored {
		if s.ID == id {
			return i
		}
	}
	return -1
}

// writeRows writes the candidate rows of qs as TSV, a header first, for
// fitting or studying a model outside bench.
func writeRows(path string, qs []trainQuery) error {
	var b strings.Builder
	b.WriteString("suite\tcategory\tquery\theld\trelevant\ty\t" + strings.Join(rerank.FeatureNames, "\t") + "\n")
	for i, q := range qs {
		for j, x := range q.xs {
			fmt.Fprintf(&b, "%s\t%s\t%d\t%v\t%d\t%v", q.suite, q.category, i, q.held, q.relevant, q.ys[j])
			for _, v := range x {
				fmt.Fprintf(&b, "\t%g", v)
			}
			b.WriteByte('\n')
		}
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("train: rows: %w", err)
	}
	return nil
}

// plotReliability draws the observed share of relevant candidates against
// the predicted probability, bin by bin, with the diagonal of a perfectly
// calibrated model.
func plotReliability(path string, bins []rerank.Bin, ece float64) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("relevance model, held-back half: ECE %.4f", ece)
	p.X.Label.Text = "predicted P(relevant)"
	p.Y.Label.Text = "observed share relevant"
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	p.Legend.Top, p.Legend.Left = true, true
	var pts plotter.XYs
	for _, b := range bins {
		if b.N > 0 {
			pts = append(pts, plotter.XY{X: b.Predicted, Y: b.Observed})
		}
	}
	if err := plotutil.AddLinePoints(p, "model (one point per bin)", pts, "perfect calibration", plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}}); err != nil {
		return err
	}
	return p.Save(5*vg.Inch, 5*vg.Inch, path)
}
