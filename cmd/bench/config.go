package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/cmd/internal/cli"
	"github.com/omoide/omoide/embed"
	"github.com/omoide/omoide/retriever"
	"github.com/omoide/omoide/tokenize"
)

// Arms select which searches run.
const (
	armsHybrid = "hybrid" // KNN and BM25, as the preset says
	armsBM25   = "bm25"   // Vector.K = 0
	armsVector = "vector" // BM25.K = 0
)

// config is one retrieval configuration: a preset, the arms it runs and the
// analyzer of its store.
type config struct {
	Preset   string            `json:"preset"`
	Arms     string            `json:"arms"`
	Analyzer string            `json:"analyzer"`
	Opts     retriever.Options `json:"-"`
	analyzer tokenize.Analyzer
	indexMin int // the preset's store IndexMin (omoide.Preset)
}

// storeIndexMin is the IndexMin of c's store: the -index-min flag when it is
// set, else the preset's.
func (c config) storeIndexMin(flag int) int { return cmp.Or(flag, c.indexMin) }

// Label names the configuration in tables: preset/arms/analyzer.
func (c config) Label() string { return c.Preset + "/" + c.Arms + "/" + c.Analyzer }

// newConfig resolves a preset, arms and tokenizer name ("" = the preset's
// analyzer) into a configuration.
func newConfig(preset, arms, tok string) (config, error) {
	p, err := omoide.LookupPreset(preset)
	if err != nil {
		return config{}, fmt.Errorf("%w: %v", errUsage, err)
	}
	opts, an := p.Retriever, p.Analyzer
	if tok != "" {
		if an, err = tokenize.ByName(tok); err != nil {
			return config{}, fmt.Errorf("%w: %v", errUsage, err)
		}
	}
	switch arms {
	case armsHybrid:
	case armsBM25:
		opts.Vector.K = 0
	case armsVector:
		opts.BM25.K = 0
	default:
		return config{}, fmt.Errorf("%w: unknown arms %q (want %s, %s or %s)", errUsage, arms, armsHybrid, armsBM25, armsVector)
	}
	return config{Preset: preset, Arms: arms, Analyzer: an.Name(), Opts: opts, analyzer: an, indexMin: p.IndexMin}, nil
}

// configGrid returns every combination of presets × arms × tokenizers, in that
// nesting order, without duplicate labels. No tokenizers means each preset's
// own analyzer.
func configGrid(presets, arms, toks []string) ([]config, error) {
	if len(toks) == 0 {
		toks = []string{""}
	}
	var out []config
	seen := map[string]bool{}
	for _, p := range presets {
		for _, a := range arms {
			for _, t := range toks {
				c, err := newConfig(p, a, t)
				if err != nil {
					return nil, err
				}
				if !seen[c.Label()] {
					seen[c.Label()] = true
					out = append(out, c)
				}
			}
		}
	}
	return out, nil
}

// embedFlags select the embedder, with the flags omoide's commands share
// (cli.EmbedderFlags) and openai's request options, and size the in-memory
// vector indexes of the stores built with it (-index-min).
type embedFlags struct {
	cli.EmbedderFlags
	indexMin int
}

func (e *embedFlags) register(fs *flag.FlagSet) {
	e.Register(fs)
	e.RegisterRequest(fs)
	fs.IntVar(&e.indexMin, "index-min", 0, "episodes from which a person's vectors are searched in memory (0: the preset's, omoide.Preset.IndexMin; -1: never, vec0's exact scan)")
}

// embedder validates the embedder flags and returns the embedder they select.
func (e embedFlags) embedder() (embed.Embedder, error) {
	if err := e.Validate(); err != nil {
		return nil, err
	}
	return e.Embedder()
}

// local reports whether the embedder runs in this process (and so gains from
// being run on every core).
func (e embedFlags) local() bool { return e.Name == "hash" }

// cachedEmbedder serves the vectors of the texts it holds and embeds the
// others with its inner embedder; with record set it keeps those too. It has
// the inner embedder's identity: the vectors are the same. eval fills it with
// a suite's episodes, embedded once on every core for all the stores built
// from them; latency records a pass of queries, then serves them so that
// retrieval is timed without the embedding. misses counts the texts it had to
// embed.
type cachedEmbedder struct {
	inner  embed.Embedder
	mu     sync.RWMutex
	vecs   map[string][]float32
	record atomic.Bool
	misses atomic.Int64
}

func (c *cachedEmbedder) Identity() embed.Identity { return c.inner.Identity() }

// Lexical is the inner embedder's: the retriever weighs a lexical one's
// vector lists down (retriever.Options.KNNWeight).
func (c *cachedEmbedder) Lexical() bool { return embed.IsLexical(c.inner) }

func (c *cachedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var miss []string
	var at []int
	c.mu.RLock()
	for i, t := range texts {
		if v, ok := c.vecs[t]; ok {
			out[i] = v
		} else {
			miss = append(miss, t)
			at = append(at, i)
		}
	}
	c.mu.RUnlock()
	if len(miss) == 0 {
		return out, nil
	}
	c.misses.Add(int64(len(miss)))
	vs, err := c.inner.Embed(ctx, miss)
	if err != nil {
		return nil, err
	}
	if len(vs) != len(miss) {
		return nil, fmt.Errorf("embedder returned %d vectors for %d texts", len(vs), len(miss))
	}
	for j, i := range at {
		out[i] = vs[j]
	}
	if c.record.Load() {
		c.mu.Lock()
		for j, t := range miss {
			c.vecs[t] = vs[j]
		}
		c.mu.Unlock()
	}
	return out, nil
}

// cachedAnalyzer serves precomputed Index texts; Name, Terms, Names,
// Synonyms, Light and Forms are the inner analyzer's.
type cachedAnalyzer struct {
	tokenize.Analyzer
	index map[string]string // read-only once built
}

func (c *cachedAnalyzer) Index(text string) string {
	if s, ok := c.index[text]; ok {
		return s
	}
	return c.Analyzer.Index(text)
}

// Names passes the inner analyzer's names on (tokenize.NameFinder), none when
// it finds none: an embedded interface does not carry its value's other
// methods.
func (c *cachedAnalyzer) Names(text string) []string {
	if nf, ok := c.Analyzer.(tokenize.NameFinder); ok {
		return nf.Names(text)
	}
	return nil
}

// Synonyms passes the inner analyzer's synonyms on (tokenize.Thesaurus),
// none when it has none.
func (c *cachedAnalyzer) Synonyms(term string) []string {
	if th, ok := c.Analyzer.(tokenize.Thesaurus); ok {
		return th.Synonyms(term)
	}
	return nil
}

// Light passes the inner analyzer's light terms on (tokenize.Lexicon),
// none when it has none.
func (c *cachedAnalyzer) Light(term string) bool {
	lx, ok := c.Analyzer.(tokenize.Lexicon)
	return ok && lx.Light(term)
}

// Forms passes the inner analyzer's forms of a term on (tokenize.Lexicon),
// none when it has none.
func (c *cachedAnalyzer) Forms(term string) []string {
	if lx, ok := c.Analyzer.(tokenize.Lexicon); ok {
		return lx.Forms(term)
	}
	return nil
}

// LoadSynonyms loads the inner analyzer's synonyms, if it has them.
func (c *cachedAnalyzer) LoadSynonyms() error {
	if th, ok := c.Analyzer.(tokenize.Thesaurus); ok {
		return th.LoadSynonyms()
	}
	return nil
}

// parallelMap computes f for every distinct text on workers goroutines.
func parallelMap[V any](ctx context.Context, texts []string, workers, chunk int, f func(ctx context.Context, texts []string) ([]V, error)) (map[string]V, error) {
	uniq := slices.Clone(texts)
	slices.Sort(uniq)
	uniq = slices.Compact(uniq)
	vals := make([]V, len(uniq))
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
		next     = make(chan int)
	)
	for range max(1, workers) {
		wg.Go(func() {
			for from := range next {
				to := min(from+chunk, len(uniq))
				vs, err := f(ctx, uniq[from:to])
				if err == nil && len(vs) != to-from {
					err = fmt.Errorf("got %d values for %d texts", len(vs), to-from)
				}
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					continue
				}
				copy(vals[from:to], vs)
			}
		})
	}
	for from := 0; from < len(uniq); from += chunk {
		next <- from
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	m := make(map[string]V, len(uniq))
	for i, t := range uniq {
		m[t] = vals[i]
	}
	return m, nil
}

// workersFlag is the default of -workers: every core.
func workersFlag() int { return runtime.GOMAXPROCS(0) }
