package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/dataset"
	"github.com/omoide/omoide/embed"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/episode/sqlite"
	"github.com/omoide/omoide/retriever"
	"github.com/omoide/omoide/tokenize"
)

// defaultHaystack is the haystack latency reads when present, relative to the
// module root (where make runs).
const defaultHaystack = "../shared/eval/realpersonachat-ja-haystack/episodes.jsonl.gz"

// ingestBatch is how many episodes one Memory.Add call stores.
const ingestBatch = 500

// stages are the retriever's timed stages, in pipeline order. embed is timed
// in a pass of its own; the others, and total (the whole retrieval), in a
// pass whose query vectors are already computed: total is the retrieval
// without the embedding.
var stages = []struct {
	name string
	get  func(retriever.Trace) time.Duration
}{
	{"prepare", func(t retriever.Trace) time.Duration { return t.Prepare }},
	{"embed", func(t retriever.Trace) time.Duration { return t.Embed }},
	{"knn", func(t retriever.Trace) time.Duration { return t.KNN }},
	{"bm25", func(t retriever.Trace) time.Duration { return t.BM25 }},
	{"fuse", func(t retriever.Trace) time.Duration { return t.Fuse }},
	{"fetch", func(t retriever.Trace) time.Duration { return t.Fetch }},
	{"rerank", func(t retriever.Trace) time.Duration { return t.Rerank }},
	{"total", func(t retriever.Trace) time.Duration { return t.Total }},
}

// stageStats are one stage's percentiles, in milliseconds.
type stageStats struct {
	P50 float64 `json:"p50_ms"`
	P95 float64 `json:"p95_ms"`
	P99 float64 `json:"p99_ms"`
}

// latencyMetrics are one preset's figures.
type latencyMetrics struct {
	Episodes           int                   `json:"episodes"`
	Users              int                   `json:"users"`
	Queries            int                   `json:"queries"`
	Skipped            int                   `json:"skipped"` // retrievals that did not run (Trace.Skipped, e.g. small talk): left out of the percentiles
	Stages             map[string]stageStats `json:"stages"`
	IngestSeconds      float64               `json:"ingest_s"`
	IngestPerSec       float64               `json:"ingest_episodes_per_s"`
	StoreBytes         int64                 `json:"store_bytes"`
	PeakRSSBytes       int64                 `json:"peak_rss_bytes"`        // VmHWM while serving: reset after the ingest, where the kernel allows
	IngestPeakRSSBytes int64                 `json:"ingest_peak_rss_bytes"` // VmHWM of the ingest (the episodes in memory included)
	OpenMS             float64               `json:"open_ms"`               // omoide.Open of the built store
	FirstQueryMS       float64               `json:"first_query_ms"`        // the first retrieval after Open (cold caches)
	MeanCandidates     float64               `json:"mean_candidates"`       // fused candidates per query
	MeanPicked         float64               `json:"mean_picked"`           // selected hits per query
	Ratio              map[string]float64    `json:"p50_ratio_vs_ref"`      // this preset's p50 / the reference's, per stage
	Forget             *forgetMetrics        `json:"forget,omitempty"`      // -forget
}

// forgetMetrics are what forgetting -forget people did to the store.
type forgetMetrics struct {
	People       int     `json:"people"`
	Episodes     int     `json:"episodes"`          // erased
	BytesFreed   int64   `json:"bytes_freed"`       // the sum of Erased.BytesFreed
	P50MS        float64 `json:"p50_ms"`            // one Memory.Forget
	P99MS        float64 `json:"p99_ms"`            //
	LiveBefore   int64   `json:"live_bytes_before"` // file size minus the free list
	LiveAfter    int64   `json:"live_bytes_after"`  //
	FileAfter    int64   `json:"file_bytes_after"`  // the file does not shrink: its free pages are reused
	EpisodesLeft int     `json:"episodes_left"`
}

// latencyFlags are the flags of bench latency.
type latencyFlags struct {
	n, q, warm, users, forget int
	seed                      uint64
	layout, haystack, dir     string
	jsonPath, cpuProfile      string
	gen, md, reuse            bool
	presets                   listFlag
	variants                  variantFlag
	ef                        embedFlags
}

// register declares the flags on fs.
func (f *latencyFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&f.n, "n", 2000, "episodes in the store")
	fs.IntVar(&f.q, "q", 200, "measured queries")
	fs.IntVar(&f.warm, "warmup", 20, "warm-up queries before measuring")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of the query sample (and of -generate)")
	fs.StringVar(&f.layout, "layout", "one", "one: every episode is one person's; many: spread over -users people")
	fs.IntVar(&f.users, "users", 10, "people, with -layout many")
	fs.IntVar(&f.forget, "forget", 0, "with -layout many: after the queries, forget this many people, evenly spread (half of -users: the erasure figures of docs/performance.md)")
	fs.StringVar(&f.haystack, "haystack", "", "episodes file (JSON Lines, .gz ok); default "+defaultHaystack+" when present")
	fs.BoolVar(&f.gen, "generate", false, "use generated Japanese-like episodes instead of a haystack")
	fs.Var(&f.presets, "preset", "presets to compare (default reference,default)")
	fs.StringVar(&f.dir, "dir", "", "folder for the stores (default: a temporary folder, removed after)")
	fs.StringVar(&f.jsonPath, "json", "", "write the figures as JSON to this file")
	fs.BoolVar(&f.md, "md", false, "print Markdown tables")
	fs.Var(&f.variants, "variant", "name:Field=value,... — run each preset again with these retriever.Options fields set, on the same store (repeatable)")
	fs.BoolVar(&f.reuse, "reuse", false, "answer from the stores an earlier run left in -dir (same -n, -layout, -users), without ingesting: the serving process then holds no episodes, for its peak RSS")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of each preset's measured queries (not the ingest) to this file + \".\" + preset")
	f.ef.register(fs)
}

// check validates the flags and returns the presets to compare.
func (f *latencyFlags) check() ([]string, error) {
	switch {
	case f.n <= 0 || f.q <= 0 || f.warm < 0:
		return nil, fmt.Errorf("%w: -n and -q must be positive, -warmup not negative", errUsage)
	case f.layout != "one" && f.layout != "many":
		return nil, fmt.Errorf("%w: -layout is one or many, not %q", errUsage, f.layout)
	case f.forget < 0 || f.forget > 0 && (f.layout != "many" || f.forget > f.users):
		return nil, fmt.Errorf("%w: -forget needs -layout many and at most -users people, got %d", errUsage, f.forget)
	case f.layout == "many" && f.users <= 0:
		return nil, fmt.Errorf("%w: -users must be positive", errUsage)
	case f.gen && f.haystack != "":
		return nil, fmt.Errorf("%w: -generate and -haystack exclude each other", errUsage)
	}
	ps := f.presets.or(omoide.PresetReference, omoide.PresetDefault)
	for _, p := range ps {
		if _, err := omoide.LookupPreset(p); err != nil {
			return nil, fmt.Errorf("%w: %v", errUsage, err)
		}
	}
	return ps, nil
}

// latency is one run of bench latency: its flags, its workload (the
// episodes, their people, the queries) and, run by run, the figures.
type latency struct {
	latencyFlags
	presets      []string
	names        []string          // the people of the layout
	source       string            // "generated" or the haystack
	eps          []episode.Episode // to ingest; nil with -reuse
	total        int               // episodes in the store
	now          time.Time         // the queries' now
	qreqs, wreqs []retriever.Request
	runs         []latRun
	all          []latencyMetrics // the runs' figures, in order
	labels       []string         // the runs' labels, in order
	ref          int              // the reference preset's run in labels, or -1
}

// latRun is a preset, once per -variant (its options changed): the first run
// of a preset builds its store, the others answer from it.
type latRun struct {
	label, preset string
	opts          *retriever.Options
}

func runLatency(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	l, err := parseLatency(args, stderr)
	if err != nil {
		return err
	}
	if err := l.load(stderr); err != nil {
		return err
	}
	if err := l.forReuse(); err != nil {
		return err
	}
	root, cleanup, err := workDir(l.dir, "latency")
	if err != nil {
		return err
	}
	defer cleanup()
	if err := l.measure(ctx, root, stderr); err != nil {
		return err
	}
	l.report(stdout)
	return l.writeFigures()
}

// parseLatency parses and checks the flags.
func parseLatency(args []string, stderr io.Writer) (*latency, error) {
	fs := newFlagSet("latency", stderr)
	l := &latency{}
	l.register(fs)
	if err := parse(fs, args); err != nil {
		return nil, err
	}
	ps, err := l.check()
	if err != nil {
		return nil, err
	}
	l.presets = ps
	return l, nil
}

// load reads or generates the episodes and samples the queries from them.
func (l *latency) load(stderr io.Writer) error {
	l.names = l.people()
	eps, err := l.episodes(stderr)
	if err != nil {
		return err
	}
	if len(eps) < 3 {
		return fmt.Errorf("only %d episodes: need at least 3", len(eps))
	}
	l.now = noonAfter(eps)
	l.qreqs, l.wreqs = latencyQueries(eps, l.q, l.warm, l.seed, l.now)
	if len(l.qreqs) == 0 {
		return errors.New("no episode has user text to ask")
	}
	fmt.Fprintf(stderr, "latency: %d episodes (%s), layout %s over %d people, %d queries (+%d warm-up), now %s\n",
		len(eps), l.source, l.layout, len(l.names), len(l.qreqs), len(l.wreqs), l.now.Format(time.DateOnly))
	l.eps, l.total = eps, len(eps)
	return nil
}

// people are the names of the layout's people.
func (l *latency) people() []string {
	if l.layout != "many" {
		return []string{"bench"}
	}
	names := make([]string, l.users)
	for i := range names {
		names[i] = fmt.Sprintf("bench-%03d", i)
	}
	return names
}

// episodes generates the episodes, or reads them from the haystack (the
// default one when present), each the person's of its block in the layout.
func (l *latency) episodes(stderr io.Writer) ([]episode.Episode, error) {
	if !l.gen && l.haystack == "" {
		if _, err := os.Stat(defaultHaystack); err == nil {
			l.haystack = defaultHaystack
		} else {
			fmt.Fprintf(stderr, "latency: %s not found: using generated episodes (-generate)\n", defaultHaystack)
			l.gen = true
		}
	}
	var eps []episode.Episode
	if l.gen {
		for _, e := range newGenerator(l.seed).episodes(l.n, l.names, time.Date(2025, 6, 30, 21, 0, 0, 0, time.UTC)) {
			eps = append(eps, e.Episode())
		}
		l.source = "generated"
		return eps, nil
	}
	eps, err := readHaystack(l.haystack, l.n)
	if err != nil {
		return nil, err
	}
	if len(eps) < l.n && len(eps) > 0 {
		// More episodes than the haystack holds (1M over 1,000 people):
		// its texts again, each copy a person's own in the layout below.
		fmt.Fprintf(stderr, "latency: %s holds only %d episodes; repeating them to %d\n", l.haystack, len(eps), l.n)
		for have := len(eps); len(eps) < l.n; {
			eps = append(eps, eps[:min(have, l.n-len(eps))]...)
		}
	}
	for i := range eps {
		// Contiguous blocks keep a conversation in one namespace.
		eps[i].User = l.names[i*len(l.names)/len(eps)]
	}
	l.source = l.haystack
	return eps, nil
}

// noonAfter returns noon (UTC) of the day after the newest episode.
func noonAfter(eps []episode.Episode) time.Time {
	newest := eps[0].OccurredAt
	for _, e := range eps {
		if e.OccurredAt.After(newest) {
			newest = e.OccurredAt
		}
	}
	return newest.UTC().Truncate(24 * time.Hour).Add(24*time.Hour + 12*time.Hour)
}

// forReuse lets go of the episodes with -reuse: the queries are built and
// nothing else needs them.
func (l *latency) forReuse() error {
	if !l.reuse {
		return nil
	}
	if l.dir == "" {
		return fmt.Errorf("%w: -reuse needs -dir", errUsage)
	}
	l.eps = nil
	runtime.GC()
	return nil
}

// measure measures every run, with the stores in root.
func (l *latency) measure(ctx context.Context, root string, stderr io.Writer) error {
	// Load the kagome dictionary (used by the default embedder and analyzer)
	// before anything is timed, so that the first preset does not pay for it.
	tokenize.Kagome().Terms("辞書を読み込む")
	runs, err := latencyRuns(l.presets, l.variants)
	if err != nil {
		return err
	}
	l.runs = runs
	for i, r := range l.runs {
		m, err := l.measureRun(ctx, root, i, stderr)
		if err != nil {
			return err
		}
		l.all = append(l.all, m)
		l.labels = append(l.labels, r.label)
	}
	l.ratios()
	return nil
}

// latencyRuns are the runs of the presets: each preset once, or once per
// variant.
func latencyRuns(presets []string, variants variantFlag) ([]latRun, error) {
	var runs []latRun
	for _, p := range presets {
		if len(variants) == 0 {
			runs = append(runs, latRun{label: p, preset: p})
			continue
		}
		for _, v := range variants {
			pr, _ := omoide.LookupPreset(p)
			o := pr.Retriever
			if err := v.apply(&o); err != nil {
				return nil, err
			}
			label := p
			if v.Name != "" {
				label += "+" + v.Name
			}
			runs = append(runs, latRun{label: label, preset: p, opts: &o})
		}
	}
	return runs, nil
}

// measureRun measures run i and, with -forget, after the preset's last run
// (later ones would miss the people), forgets people in its store.
func (l *latency) measureRun(ctx context.Context, root string, i int, stderr io.Writer) (latencyMetrics, error) {
	r := l.runs[i]
	path := filepath.Join(root, "latency-"+r.preset+".db")
	prof := ""
	if l.cpuProfile != "" {
		prof = l.cpuProfile + "." + r.label
	}
	eps := l.eps
	if i > 0 && l.runs[i-1].preset == r.preset {
		eps = nil // built by the run before
	}
	m, err := measurePreset(ctx, path, r.preset, r.opts, l.ef, eps, l.total, len(l.names), l.qreqs, l.wreqs, prof, stderr)
	if err != nil {
		return m, fmt.Errorf("%s: %w", r.label, err)
	}
	if l.forget > 0 && (i+1 == len(l.runs) || l.runs[i+1].preset != r.preset) {
		if m.Forget, err = forgetPeople(ctx, path, r.preset, l.ef, l.names, l.forget, stderr); err != nil {
			return m, fmt.Errorf("%s: forget: %w", r.label, err)
		}
	}
	return m, nil
}

// ratios sets each run's p50 per stage over the reference preset's run, when
// there is one.
func (l *latency) ratios() {
	l.ref = slices.Index(l.labels, omoide.PresetReference)
	if l.ref < 0 {
		return
	}
	for i := range l.all {
		l.all[i].Ratio = map[string]float64{}
		for _, st := range stages {
			if b := l.all[l.ref].Stages[st.name].P50; b > 0 {
				l.all[i].Ratio[st.name] = l.all[i].Stages[st.name].P50 / b
			}
		}
	}
}

// report prints the per-stage percentiles, the runs side by side, and the
// other measures.
func (l *latency) report(stdout io.Writer) {
	fmt.Fprintf(stdout, "latency: %d episodes (%s), layout %s (%d people), %d queries after %d warm-up, %s\n",
		l.total, filepath.Base(l.source), l.layout, len(l.names), len(l.qreqs), len(l.wreqs), runtime.Version())
	fmt.Fprintf(stdout, "(embed: the query embedding, timed in a pass of its own; total: the retrieval without it)\n\n")
	l.stageTable().write(stdout, l.md)
	fmt.Fprintln(stdout)
	l.measureTable().write(stdout, l.md)
}

// stageTable is each stage's p50, p95 and p99 of every run and, with the
// reference preset, the other runs' p50 over the reference's.
func (l *latency) stageTable() *table {
	hdr := []string{"stage"}
	for _, lb := range l.labels {
		hdr = append(hdr, lb+" p50", lb+" p95", lb+" p99")
	}
	if l.ref >= 0 {
		for _, lb := range l.labels {
			if lb != omoide.PresetReference {
				hdr = append(hdr, lb+"/ref p50")
			}
		}
	}
	tab := &table{header: hdr, left: 1}
	for _, st := range stages {
		row := []string{st.name + " (ms)"}
		for _, m := range l.all {
			s := m.Stages[st.name]
			row = append(row, fmt.Sprintf("%.3f", s.P50), fmt.Sprintf("%.3f", s.P95), fmt.Sprintf("%.3f", s.P99))
		}
		if l.ref >= 0 {
			for i, lb := range l.labels {
				if lb != omoide.PresetReference {
					row = append(row, ratioCell(l.all[i].Ratio, st.name))
				}
			}
		}
		tab.add(row...)
	}
	return tab
}

// latencyMeasure is a row of the measure table: its name and its cell of a
// run's figures.
type latencyMeasure struct {
	name string
	f    func(latencyMetrics) string
}

// latencyMeasures are the rows of the measure table without -forget.
var latencyMeasures = []latencyMeasure{
	{"ingest (episodes/s)", func(m latencyMetrics) string { return fmt.Sprintf("%.0f", m.IngestPerSec) }},
	{"ingest time (s)", func(m latencyMetrics) string { return fmt.Sprintf("%.1f", m.IngestSeconds) }},
	{"store size on disk", func(m latencyMetrics) string { return mib(m.StoreBytes) }},
	{"peak RSS serving (VmHWM: open, queries)", func(m latencyMetrics) string { return mib(m.PeakRSSBytes) }},
	{"peak RSS ingest (VmHWM, episodes held)", func(m latencyMetrics) string { return mib(m.IngestPeakRSSBytes) }},
	{"open (ms)", func(m latencyMetrics) string { return fmt.Sprintf("%.1f", m.OpenMS) }},
	{"first query after open (ms)", func(m latencyMetrics) string { return fmt.Sprintf("%.1f", m.FirstQueryMS) }},
	{"queries skipped (not in the percentiles)", func(m latencyMetrics) string { return fmt.Sprint(m.Skipped) }},
	{"mean fused candidates", func(m latencyMetrics) string { return fmt.Sprintf("%.1f", m.MeanCandidates) }},
	{"mean picked", func(m latencyMetrics) string { return fmt.Sprintf("%.2f", m.MeanPicked) }},
}

// forgetMeasures are the rows -forget adds: "-" for the runs that forgot
// nobody.
var forgetMeasures = []latencyMeasure{
	forgetMeasure("forgotten: people / episodes", func(f forgetMetrics) string { return fmt.Sprintf("%d / %d", f.People, f.Episodes) }),
	forgetMeasure("forget p50 / p99 (ms, one person)", func(f forgetMetrics) string { return fmt.Sprintf("%.2f / %.2f", f.P50MS, f.P99MS) }),
	forgetMeasure("bytes freed (sum reported by forget)", func(f forgetMetrics) string { return mib(f.BytesFreed) }),
	forgetMeasure("live bytes before → after forget", func(f forgetMetrics) string { return mib(f.LiveBefore) + " → " + mib(f.LiveAfter) }),
	forgetMeasure("file after forget (free pages reused)", func(f forgetMetrics) string { return mib(f.FileAfter) }),
}

func forgetMeasure(name string, f func(forgetMetrics) string) latencyMeasure {
	return latencyMeasure{name, func(m latencyMetrics) string {
		if m.Forget == nil {
			return "-"
		}
		return f(*m.Forget)
	}}
}

// measureTable is the measures other than the stages, the runs side by side.
func (l *latency) measureTable() *table {
	rows := latencyMeasures
	if l.forget > 0 {
		rows = append(slices.Clip(rows), forgetMeasures...)
	}
	tab := &table{header: append([]string{"measure"}, l.labels...), left: 1}
	for _, r := range rows {
		row := []string{r.name}
		for _, m := range l.all {
			row = append(row, r.f(m))
		}
		tab.add(row...)
	}
	return tab
}

// writeFigures writes the runs' figures as JSON to -json.
func (l *latency) writeFigures() error {
	var results []result
	for i, r := range l.runs {
		results = append(results, result{Preset: r.preset, Config: r.label, Metrics: l.all[i]})
	}
	params := map[string]any{"n": l.total, "reuse": l.reuse, "q": len(l.qreqs), "warmup": len(l.wreqs), "seed": l.seed, "layout": l.layout,
		"users": len(l.names), "source": l.source, "now": l.now, "cpus": runtime.NumCPU()}
	return writeJSON(l.jsonPath, "latency", params, results)
}

func ratioCell(r map[string]float64, stage string) string {
	if v, ok := r[stage]; ok {
		return fmt.Sprintf("%.2f", v)
	}
	return "-"
}

// errEnough stops reading a haystack.
var errEnough = errors.New("enough episodes")

// readHaystack reads the first n episodes with text of a JSON Lines file.
func readHaystack(path string, n int) ([]episode.Episode, error) {
	var eps []episode.Episode
	err := dataset.EachInFile(path, func(e dataset.Episode) error {
		if strings.TrimSpace(e.UserText) == "" && strings.TrimSpace(e.ReplyText) == "" {
			return nil
		}
		eps = append(eps, e.Episode())
		if len(eps) >= n {
			return errEnough
		}
		return nil
	})
	if err != nil && !errors.Is(err, errEnough) {
		return nil, err
	}
	return eps, nil
}

// latencyQueries samples q measured and w warm-up queries from the episodes,
// deterministically from seed: an episode's user text, asked by its person at
// now, with the two episodes before it (of the same person) as context. When
// no person has three episodes, the context is what precedes (maybe nothing).
func latencyQueries(eps []episode.Episode, q, w int, seed uint64, now time.Time) (measured, warmup []retriever.Request) {
	from := func(i int) int { // the first episode of i's context
		j := i
		for j > 0 && i-j < 2 && eps[j-1].User == eps[i].User {
			j--
		}
		return j
	}
	var full, any []int
	for i := range eps {
		if strings.TrimSpace(eps[i].UserText) == "" {
			continue
		}
		any = append(any, i)
		if i-from(i) == 2 {
			full = append(full, i)
		}
	}
	cand := full
	if len(cand) == 0 {
		cand = any
	}
	if len(cand) == 0 {
		return nil, nil
	}
	r := rand.New(rand.NewPCG(seed, 0x6c6174))
	req := func() retriever.Request {
		i := cand[r.IntN(len(cand))]
		return retriever.Request{User: eps[i].User, Text: eps[i].UserText, Recent: retriever.MessagesOf(eps[from(i):i]), Now: now}
	}
	for range w {
		warmup = append(warmup, req())
	}
	for range q {
		measured = append(measured, req())
	}
	return measured, warmup
}

// measurePreset builds a store of eps at path with a preset and measures it.
func measurePreset(ctx context.Context, path, preset string, opts *retriever.Options, ef embedFlags, eps []episode.Episode, total, users int,
	qreqs, wreqs []retriever.Request, cpuProfile string, log io.Writer) (latencyMetrics, error) {
	m := latencyMetrics{Episodes: total, Users: users, Queries: len(qreqs), Stages: map[string]stageStats{}}
	inner, err := ef.embedder()
	if err != nil {
		return m, err
	}
	if eps == nil { // -reuse
		if !sqlite.Exists(path) {
			return m, fmt.Errorf("-reuse: no store at %s: run once without -reuse and with this -dir first", path)
		}
		fmt.Fprintf(log, "  %s: answering from %s (no ingest)\n", preset, path)
	} else if err := ingestInto(ctx, path, preset, ef, inner, eps, &m, log); err != nil {
		return m, err
	}

	// Serving: a process that opens the store and answers. Without -reuse
	// the caller still holds the episodes it ingested, which the serving
	// peak then counts.
	runtime.GC()
	resetPeakRSS()
	emb := &cachedEmbedder{inner: inner, vecs: map[string][]float32{}}
	emb.record.Store(true)
	t := time.Now()
	mem, err := omoide.Open(ctx, omoide.Config{Path: path, Embedder: emb, Preset: preset, Retriever: opts, IndexMin: ef.indexMin})
	if err != nil {
		return m, err
	}
	defer mem.Close()
	m.OpenMS = durMS(time.Since(t))
	if err := serveQueries(ctx, mem, emb, qreqs, wreqs, cpuProfile, &m); err != nil {
		return m, err
	}
	m.PeakRSSBytes = peakRSS()
	fmt.Fprintf(log, "  %s: %d queries, retrieve p50 %.3f ms (embedding apart), store %s, open %.1f ms\n", preset, len(qreqs),
		m.Stages["total"].P50, mib(m.StoreBytes), m.OpenMS)
	return m, nil
}

// serveQueries times the first query after open, reads the store's size,
// warms up, and times the queries: once to embed them, then once more with
// their vectors computed, for the stages after the embedding.
func serveQueries(ctx context.Context, mem *omoide.Memory, emb *cachedEmbedder, qreqs, wreqs []retriever.Request, cpuProfile string, m *latencyMetrics) error {
	if err := firstQuery(ctx, mem, qreqs, m); err != nil {
		return err
	}
	st, err := mem.Store.Stats(ctx)
	if err != nil {
		return err
	}
	m.StoreBytes = st.FileBytes
	for _, r := range wreqs {
		if _, err := mem.Retrieve(ctx, r); err != nil {
			return err
		}
	}
	embeds, err := embeddingPass(ctx, mem, qreqs)
	if err != nil {
		return err
	}
	traces, err := measuredPass(ctx, mem, emb, qreqs, cpuProfile, m)
	if err != nil {
		return err
	}
	for _, s := range stages {
		ds := make([]time.Duration, len(traces))
		for i, tr := range traces {
			ds[i] = s.get(tr)
		}
		if s.name == "embed" {
			ds = embeds
		}
		m.Stages[s.name] = stageStats{P50: durMS(percentile(ds, 50)), P95: durMS(percentile(ds, 95)), P99: durMS(percentile(ds, 99))}
	}
	return nil
}

// firstQuery times the first query that retrieves (a skipped one touches no
// index).
func firstQuery(ctx context.Context, mem *omoide.Memory, qreqs []retriever.Request, m *latencyMetrics) error {
	for _, r := range qreqs {
		t := time.Now()
		res, err := mem.Retrieve(ctx, r)
		if err != nil {
			return err
		}
		if res.Trace.Skipped == "" {
			m.FirstQueryMS = durMS(time.Since(t))
			break
		}
	}
	return nil
}

// embeddingPass retrieves every measured query once, its query vectors
// computed by the embedder and kept, and returns the embedding times
// (Trace.Embed) of those that retrieved.
func embeddingPass(ctx context.Context, mem *omoide.Memory, qreqs []retriever.Request) ([]time.Duration, error) {
	var embeds []time.Duration
	for _, r := range qreqs {
		res, err := mem.Retrieve(ctx, r)
		if err != nil {
			return nil, err
		}
		if res.Trace.Skipped == "" {
			embeds = append(embeds, res.Trace.Embed)
		}
	}
	return embeds, nil
}

// measuredPass retrieves the same queries again, their vectors served from
// the embedding pass, so that the stages after it are timed without it, and
// returns the traces of those that retrieved.
func measuredPass(ctx context.Context, mem *omoide.Memory, emb *cachedEmbedder, qreqs []retriever.Request, cpuProfile string, m *latencyMetrics) ([]retriever.Trace, error) {
	emb.record.Store(false)
	emb.misses.Store(0)
	var traces []retriever.Trace
	cands, picked := 0, 0
	stop, err := startCPUProfile(cpuProfile)
	if err != nil {
		return nil, err
	}
	for _, r := range qreqs {
		res, err := mem.Retrieve(ctx, r)
		if err != nil {
			stop()
			return nil, err
		}
		if res.Trace.Skipped != "" {
			m.Skipped++
			continue
		}
		traces = append(traces, res.Trace)
		cands += res.Trace.Candidates
		picked += res.Trace.Picked
	}
	stop()
	if n := emb.misses.Load(); n > 0 {
		return nil, fmt.Errorf("%d query embeddings of the measured pass were not computed in the embedding pass", n)
	}
	if len(traces) > 0 {
		m.MeanCandidates = float64(cands) / float64(len(traces))
		m.MeanPicked = float64(picked) / float64(len(traces))
	}
	return traces, nil
}

// ingestInto builds the store at path from eps in batches, recording the
// ingest rate and its peak RSS in m.
func ingestInto(ctx context.Context, path, preset string, ef embedFlags, emb embed.Embedder, eps []episode.Episode, m *latencyMetrics, log io.Writer) error {
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(path + suffix)
	}
	runtime.GC()
	resetPeakRSS()
	mem, err := omoide.Open(ctx, omoide.Config{Path: path, Embedder: emb, Preset: preset, IndexMin: ef.indexMin})
	if err != nil {
		return err
	}
	t := time.Now()
	for from := 0; from < len(eps); from += ingestBatch {
		if _, err := mem.Add(ctx, eps[from:min(from+ingestBatch, len(eps))]...); err != nil {
			mem.Close()
			return err
		}
	}
	ingest := time.Since(t)
	m.IngestSeconds = ingest.Seconds()
	m.IngestPerSec = float64(len(eps)) / ingest.Seconds()
	if err := mem.Close(); err != nil {
		return err
	}
	m.IngestPeakRSSBytes = peakRSS()
	fmt.Fprintf(log, "  %s: ingested %d episodes in %v (%.0f/s)\n", preset, len(eps), ingest.Round(time.Millisecond), m.IngestPerSec)
	return nil
}

// resetPeakRSS resets the kernel's peak resident set size of this process
// (VmHWM) so that the next reading is this phase's peak; it does nothing
// where the kernel does not allow it.
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSS returns VmHWM of /proc/self/status in bytes, or 0 where there is no
// such file.
func peakRSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			fs := strings.Fields(rest) // "1234 kB"
			if len(fs) >= 1 {
				kb, _ := strconv.ParseInt(fs[0], 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}

// forgetPeople forgets n of names, evenly spread, one Memory.Forget each, in
// the store at path, and measures what that freed.
func forgetPeople(ctx context.Context, path, preset string, ef embedFlags, names []string, n int, log io.Writer) (*forgetMetrics, error) {
	emb, err := ef.embedder()
	if err != nil {
		return nil, err
	}
	mem, err := omoide.Open(ctx, omoide.Config{Path: path, Embedder: emb, Preset: preset, IndexMin: ef.indexMin})
	if err != nil {
		return nil, err
	}
	defer mem.Close()
	before, err := mem.Store.Stats(ctx)
	if err != nil {
		return nil, err
	}
	f := &forgetMetrics{People: n, LiveBefore: before.FileBytes - before.FreeBytes}
	var took []time.Duration
	for i := range n {
		t := time.Now()
		e, err := mem.Forget(ctx, names[i*len(names)/n])
		if err != nil {
			return nil, err
		}
		took = append(took, time.Since(t))
		f.Episodes += e.Episodes
		f.BytesFreed += e.BytesFreed
	}
	after, err := mem.Store.Stats(ctx)
	if err != nil {
		return nil, err
	}
	f.LiveAfter, f.FileAfter, f.EpisodesLeft = after.FileBytes-after.FreeBytes, after.FileBytes, after.Episodes
	f.P50MS, f.P99MS = durMS(percentile(took, 50)), durMS(percentile(took, 99))
	fmt.Fprintf(log, "  %s: forgot %d people (%d episodes): live %s -> %s\n", preset, n, f.Episodes, mib(f.LiveBefore), mib(f.LiveAfter))
	return f, nil
}
