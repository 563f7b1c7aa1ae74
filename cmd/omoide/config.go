package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/cmd/internal/cli"
	"github.com/omoide/omoide/embed"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/memorypack"
	"github.com/omoide/omoide/rerank"
	"github.com/omoide/omoide/retriever"
)

// stdin is what "-" reads; tests replace it.
var stdin io.Reader = os.Stdin

// Environment variables that give the shared flags their defaults; those of
// the embedder flags are cli.EnvEmbedder, cli.EnvEndpoint, cli.EnvModel and
// cli.EnvDim.
const (
	envDB     = "OMOIDE_DB"
	envPreset = "OMOIDE_PRESET"
	envToken  = "OMOIDE_TOKEN"
)

// storeConfig is the configuration shared by the subcommands that open a
// store: where it is, which embedder computes its vectors and which retriever
// preset searches it.
type storeConfig struct {
	db     string
	emb    cli.EmbedderFlags
	preset string
	// maxAgeDays is -max-age-days for the commands that retrieve
	// (addRetrieveFlags); -1: the preset's.
	maxAgeDays int
	// threshold and model are -inject-threshold (-1: the preset's) and
	// -relevance-model ("": the preset's).
	threshold float64
	model     string
	// kinds, states and maxSens are -kinds, -states and -max-sensitivity,
	// the retriever's filter ("": the preset's), parsed by validate into
	// filterKinds, filterStates and filterSens.
	kinds, states, maxSens string
	filterKinds            []episode.Kind
	filterStates           []episode.State
	filterSens             episode.Sensitivity
	readOnly               bool // -readonly
	// checkpointWait is serve's -checkpoint-wait (omoide.Config.CheckpointWait).
	checkpointWait time.Duration
}

// addStoreFlags registers the shared flags on fs, with their environment
// fallbacks.
func addStoreFlags(fs *flag.FlagSet) *storeConfig {
	c := &storeConfig{maxAgeDays: -1, threshold: -1}
	fs.StringVar(&c.db, "db", cli.EnvOr(envDB, "omoide.db"), "the store, a SQLite database `file` (env "+envDB+")")
	c.emb.Register(fs)
	fs.StringVar(&c.preset, "preset", cli.EnvOr(envPreset, omoide.PresetDefault), "the retriever preset: default or reference (env "+envPreset+")")
	fs.BoolVar(&c.readOnly, "readonly", false, "open the store read-only: write nothing to it (a read-only file or directory, a backup copy)")
	return c
}

// addRetrieveFlags registers the flags of the commands that retrieve.
func (c *storeConfig) addRetrieveFlags(fs *flag.FlagSet) {
	fs.IntVar(&c.maxAgeDays, "max-age-days", -1,
		"search only the episodes of the last `N` days (0: any age; default: the preset's: any for default, 365 for reference)")
	fs.Float64Var(&c.threshold, "inject-threshold", -1,
		fmt.Sprintf("inject when the relevance model's probability that one of the first candidates is relevant reaches `P`: higher, fewer and surer episodes (default preset: %.2f; docs/quality.md)", rerank.DefaultInjectThreshold))
	fs.StringVar(&c.kinds, "kinds", "",
		"search only these `kinds`, comma-separated: episode, fact, summary, loop (default: the preset's: every kind for default, episode for reference)")
	fs.StringVar(&c.states, "states", "",
		"search only these `states`, comma-separated: raw, validated, consolidated, archived (default: all but archived)")
	fs.StringVar(&c.maxSens, "max-sensitivity", "",
		"search episodes up to this `level`: normal, private or secret (default: the preset's: normal for default, secret for reference)")
	fs.StringVar(&c.model, "relevance-model", "",
		"decide with the relevance model in this JSON `file` (made by \"bench train -o\" on your own labelled data) instead of the built-in one")
}

// validate checks the shared flags; every error it returns is a usage error.
func (c *storeConfig) validate() error {
	if c.db == "" {
		return fmt.Errorf("%w: -db is empty", errUsage)
	}
	if _, err := omoide.LookupPreset(c.preset); err != nil {
		return fmt.Errorf("%w: -preset %q: want %s or %s", errUsage, c.preset, omoide.PresetDefault, omoide.PresetReference)
	}
	if c.maxAgeDays < -1 {
		return fmt.Errorf("%w: -max-age-days %d: want 0 (any age) or more", errUsage, c.maxAgeDays)
	}
	if c.threshold != -1 && (c.threshold < 0 || c.threshold > 1) {
		return fmt.Errorf("%w: -inject-threshold %v: want a probability from 0 to 1", errUsage, c.threshold)
	}
	var err error
	if c.filterKinds, err = parseList(c.kinds, episode.ParseKind); err != nil {
		return fmt.Errorf("%w: -kinds: %v", errUsage, err)
	}
	if c.filterStates, err = parseList(c.states, episode.ParseState); err != nil {
		return fmt.Errorf("%w: -states: %v", errUsage, err)
	}
	if c.maxSens != "" {
		if c.filterSens, err = episode.ParseSensitivity(c.maxSens); err != nil {
			return fmt.Errorf("%w: -max-sensitivity: %v", errUsage, err)
		}
	}
	return c.emb.Validate()
}

// mustExist reports an error when there is no store at the configured path.
func (c *storeConfig) mustExist() error {
	if !episode.Exists(c.db) {
		return fmt.Errorf("no store at %s (create one with \"omoide ingest\", or name it with -db or %s)", c.db, envDB)
	}
	return nil
}

// pack returns the preset's evidence rendering, for a command to adjust.
func (c *storeConfig) pack() memorypack.Options {
	p, err := omoide.LookupPreset(c.preset)
	if err != nil { // validate reports it
		return memorypack.DefaultOptions()
	}
	return p.Pack
}

// retrieverOptions returns the preset's retriever options with the retrieve
// flags applied, or nil when none is set.
func (c *storeConfig) retrieverOptions() (*retriever.Options, error) {
	if c.maxAgeDays < 0 && c.threshold < 0 && c.model == "" && c.kinds == "" && c.states == "" && c.maxSens == "" {
		return nil, nil
	}
	p, _ := omoide.LookupPreset(c.preset) // validated
	o := p.Retriever
	if c.maxAgeDays >= 0 {
		o.Filter.MaxAgeDays = c.maxAgeDays
	}
	if c.kinds != "" {
		o.Filter.Kinds = c.filterKinds
	}
	if c.states != "" {
		o.Filter.States = c.filterStates
	}
	if c.maxSens != "" {
		o.Filter.MaxSensitivity = c.filterSens
	}
	in := &o.Rank.Inject
	if c.model != "" {
		b, err := os.ReadFile(c.model)
		if err != nil {
			return nil, fmt.Errorf("-relevance-model: %w", err)
		}
		m, err := rerank.LoadModel(b)
		if err != nil {
			return nil, fmt.Errorf("-relevance-model %s: %w", c.model, err)
		}
		if !in.On() { // a preset decided by rules: the model's defaults
			*in = rerank.DefaultOptions().Inject
		}
		in.Model = m
	}
	if c.threshold >= 0 {
		if !in.On() {
			return nil, fmt.Errorf("%w: -inject-threshold: the %s preset decides by rules, not by a relevance model (give -relevance-model too)", errUsage, c.preset)
		}
		in.Threshold = c.threshold
	}
	return &o, nil
}

// parseList reads a comma-separated list of names with parse.
func parseList[T any](s string, parse func(string) (T, error)) ([]T, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []T
	for _, f := range strings.Split(s, ",") {
		v, err := parse(f)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// openMemory opens the memory the flags describe; the store is created when
// it is missing unless mustExist.
func (c *storeConfig) openMemory(ctx context.Context, mustExist bool, pack memorypack.Options) (*omoide.Memory, error) {
	if err := c.validate(); err != nil {
		return nil, err
	}
	if mustExist {
		if err := c.mustExist(); err != nil {
			return nil, err
		}
	}
	e, err := c.emb.Embedder()
	if err != nil {
		return nil, err
	}
	// The zone of the evidence dates is the person's zone for everything:
	// time expressions and day windows too.
	cfg := omoide.Config{Path: c.db, Embedder: e, Preset: c.preset, Pack: pack, Location: pack.Location, ReadOnly: c.readOnly,
		CheckpointWait: c.checkpointWait}
	if cfg.Retriever, err = c.retrieverOptions(); err != nil {
		return nil, err
	}
	mem, err := omoide.Open(ctx, cfg)
	if err != nil {
		if id, rerr := recordedIdentity(ctx, c.db); rerr == nil && id != e.Identity() {
			err = fmt.Errorf("%w\n(the flags describe the embedder %s; %s, or change the store's embedder with \"omoide reembed\")",
				err, e.Identity(), flagsFor(id))
		}
		return nil, err
	}
	return mem, nil
}

// flagsFor suggests the flags that describe the embedder id.
func flagsFor(id embed.Identity) string {
	if model, ok := strings.CutPrefix(id.Name, "openai:"); ok {
		return fmt.Sprintf("open it with -embedder openai -model %s -dim %d", model, id.Dim)
	}
	if strings.HasPrefix(id.Name, "hash-") {
		return fmt.Sprintf("open it with -embedder hash -dim %d", id.Dim)
	}
	return "open it with the embedder " + id.String()
}

// openStore opens an existing store for a command that embeds nothing
// (stats, delete, forget). It opens the store with the embedder identity the
// store recorded, so that these commands work without repeating the embedder
// flags; when that identity cannot be read it falls back to the flags.
func (c *storeConfig) openStore(ctx context.Context) (*episode.Store, error) {
	if err := c.validate(); err != nil {
		return nil, err
	}
	if err := c.mustExist(); err != nil {
		return nil, err
	}
	var e embed.Embedder
	if id, err := recordedIdentity(ctx, c.db); err == nil {
		e = noEmbedder{id}
	} else if e, err = c.emb.Embedder(); err != nil {
		return nil, err
	}
	return episode.Open(ctx, c.db, episode.Options{Embedder: e, ReadOnly: c.readOnly})
}

// noEmbedder carries a store's recorded embedder identity for the commands
// that never embed.
type noEmbedder struct{ id embed.Identity }

func (n noEmbedder) Identity() embed.Identity { return n.id }

func (n noEmbedder) Embed(context.Context, []string) ([][]float32, error) {
	return nil, fmt.Errorf("embedder %s is not available to this command", n.id)
}

// recordedIdentity reads the embedder identity recorded in the store at path.
func recordedIdentity(ctx context.Context, path string) (embed.Identity, error) {
	m, err := episode.ReadMeta(ctx, path)
	return m.Embedder, err
}

// setUsage gives fs a usage message: the synopsis, the description, then the
// flags.
func setUsage(fs *flag.FlagSet, synopsis, description string) {
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "usage: %s\n\n%s\nflags:\n", synopsis, strings.TrimLeft(description, "\n"))
		fs.PrintDefaults()
	}
}

// int64List is a repeatable flag of integers; a value may also hold several,
// comma-separated.
type int64List []int64

func (l *int64List) String() string {
	s := make([]string, len(*l))
	for i, v := range *l {
		s[i] = strconv.FormatInt(v, 10)
	}
	return strings.Join(s, ",")
}

func (l *int64List) Set(v string) error {
	for _, part := range strings.Split(v, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(part), 10, 64)
		if err != nil || n <= 0 {
			return fmt.Errorf("%q is not an episode id (a positive integer)", part)
		}
		*l = append(*l, n)
	}
	return nil
}

// byteSize is a flag holding a number of bytes: 4194304, 4MiB, 512KiB, 4M, 1G.
type byteSize int64

func (b *byteSize) String() string {
	switch n := int64(*b); {
	case n > 0 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + "MiB"
	case n > 0 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + "KiB"
	default:
		return strconv.FormatInt(n, 10)
	}
}

func (b *byteSize) Set(v string) error {
	s := strings.TrimSpace(v)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10},
		{"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}} {
		if strings.HasSuffix(strings.ToUpper(s), strings.ToUpper(u.suffix)) {
			s, mult = strings.TrimSpace(s[:len(s)-len(u.suffix)]), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return fmt.Errorf("%q is not a positive size (e.g. 4MiB, 512KiB, 1048576)", v)
	}
	*b = byteSize(n * mult)
	return nil
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// progressBar draws "\r  12000/200000 episodes  6%  4100/s" on a terminal.
type progressBar struct {
	w     io.Writer
	on    bool
	total int // 0 when unknown
	start time.Time
	last  time.Time
	width int // of the last line drawn
}

func newProgressBar(w io.Writer, on bool, total int) *progressBar {
	return &progressBar{w: w, on: on, total: total, start: time.Now()}
}

// update redraws the bar at most ten times a second.
func (p *progressBar) update(done int) {
	if !p.on || time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.draw(done)
}

func (p *progressBar) draw(done int) {
	p.last = time.Now()
	rate := 0.0
	if el := time.Since(p.start).Seconds(); el > 0 {
		rate = float64(done) / el
	}
	var line string
	if p.total > 0 {
		line = fmt.Sprintf("  %d/%d episodes  %d%%  %.0f/s", done, p.total, min(100, done*100/p.total), rate)
	} else {
		line = fmt.Sprintf("  %d episodes  %.0f/s", done, rate)
	}
	pad := max(0, p.width-len(line))
	p.width = len(line)
	fmt.Fprintf(p.w, "\r%s%s", line, strings.Repeat(" ", pad))
}

// finish draws the final state and ends the line.
func (p *progressBar) finish(done int) {
	if !p.on || p.last.IsZero() && done == 0 {
		return
	}
	p.draw(done)
	fmt.Fprintln(p.w)
}

// rate formats n per elapsed second.
func rate(n int, elapsed time.Duration) string {
	if elapsed <= 0 {
		return "-"
	}
	return strconv.FormatFloat(float64(n)/elapsed.Seconds(), 'f', 0, 64)
}
