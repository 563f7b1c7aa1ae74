package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/cmd/internal/cli"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/episode/sqlite"
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
	envNodes  = "OMOIDE_NODES" // the proxy's node list (deploy/Caddyfile), serve's -peers
)

// storeConfig is the configuration shared by the subcommands that open a
// store: where it is, which embedder computes its vectors and which retriever
// preset searches it.
type storeConfig struct {
	db     string
	emb    cli.EmbedderFlags
	preset string
	fs     *flag.FlagSet // the command's flags: a retrieve flag not given leaves the preset's value (given)
	// maxAgeDays is -max-age-days for the commands that retrieve
	// (addRetrieveFlags).
	maxAgeDays int
	// threshold and model are -inject-threshold and -relevance-model ("":
	// the preset's).
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
	c := &storeConfig{fs: fs}
	fs.StringVar(&c.db, "db", cli.EnvOr(envDB, "omoide.db"), "the store, a SQLite database `file` (env "+envDB+")")
	c.emb.Register(fs)
	fs.StringVar(&c.preset, "preset", cli.EnvOr(envPreset, omoide.PresetDefault), "the retriever preset: default or reference (env "+envPreset+")")
	fs.BoolVar(&c.readOnly, "readonly", false, "open the store read-only: write nothing to it (a read-only file or directory, a backup copy)")
	return c
}

// addRetrieveFlags registers the flags of the commands that retrieve.
func (c *storeConfig) addRetrieveFlags(fs *flag.FlagSet) {
	fs.IntVar(&c.maxAgeDays, "max-age-days", 0,
		"search only the episodes of the last `N` days (0: any age; default: the preset's: any for default, 365 for reference)")
	fs.Float64Var(&c.threshold, "inject-threshold", 0,
		fmt.Sprintf("inject when the relevance model's probability that one of the first candidates is relevant reaches `P`: higher, fewer and surer episodes (default preset: %.2f; docs/quality.md)", rerank.DefaultInjectThreshold))
	fs.StringVar(&c.kinds, "kinds", "",
		"search only these `kinds`, comma-separated: episode, fact, summary, loop (default: the preset's: every kind for default, episode for reference)")
	fs.StringVar(&c.states, "states", "",
		"search only these `states`, comma-separated: raw, validated, consolidated, archived (default: all but archived)")
	fs.StringVar(&c.maxSens, "max-sensitivity", "",
		"search episodes up to this `level`: normal, private or secret (default: the preset's: normal for default, secret for reference)")
	fs.StringVar(&c.model, "relevance-model", "",
		"decide with the relevance model in this JSON `file` (made by \"bench train -paraphrase -embedder … -o FILE\" for your embedder, or on your own labelled data) instead of the built-in one; one fitted for another embedder than the store's is refused")
}

// parse parses args, flags only, and checks the shared flags (validate).
func (c *storeConfig) parse(args []string) error {
	if err := parse(c.fs, args); err != nil {
		return err
	}
	return c.validate()
}

// parseArgs is parse allowing positional arguments (cli.ParseArgs), which it
// returns.
func (c *storeConfig) parseArgs(args []string) ([]string, error) {
	pos, err := cli.ParseArgs(c.fs, args)
	if err == nil {
		err = c.validate()
	}
	return pos, err
}

// validate checks the shared flags; every error it returns is a usage error.
func (c *storeConfig) validate() error {
	if c.db == "" {
		return fmt.Errorf("%w: -db is empty", errUsage)
	}
	if _, err := omoide.LookupPreset(c.preset); err != nil {
		return fmt.Errorf("%w: -preset %q: want %s or %s", errUsage, c.preset, omoide.PresetDefault, omoide.PresetReference)
	}
	if c.maxAgeDays < 0 {
		return fmt.Errorf("%w: -max-age-days %d: want 0 (any age) or more", errUsage, c.maxAgeDays)
	}
	if c.threshold < 0 || c.threshold > 1 {
		return fmt.Errorf("%w: -inject-threshold %v: want a probability from 0 to 1", errUsage, c.threshold)
	}
	// A number is read as one (exports write names), but one that names
	// nothing is refused as the library refuses it (Filter.Validate).
	var err error
	if c.filterKinds, err = cli.ParseList(c.kinds, episode.ParseKind); err == nil {
		err = retriever.Filter{Kinds: c.filterKinds}.Validate()
	}
	if err != nil {
		return fmt.Errorf("%w: -kinds: %v", errUsage, err)
	}
	if c.filterStates, err = cli.ParseList(c.states, episode.ParseState); err == nil {
		err = retriever.Filter{States: c.filterStates}.Validate()
	}
	if err != nil {
		return fmt.Errorf("%w: -states: %v", errUsage, err)
	}
	if c.maxSens != "" {
		if c.filterSens, err = episode.ParseSensitivity(c.maxSens); err == nil {
			err = retriever.Filter{MaxSensitivity: c.filterSens}.Validate()
		}
		if err != nil {
			return fmt.Errorf("%w: -max-sensitivity: %v", errUsage, err)
		}
	}
	return c.emb.Validate()
}

// mustExist reports an error when there is no store at the configured path,
// naming its folder when that is what is missing.
func (c *storeConfig) mustExist() error {
	if !sqlite.Exists(c.db) {
		if dir := filepath.Dir(c.db); !isFolder(dir) {
			return fmt.Errorf("no store at %s: the folder %s does not exist (name the store with -db or %s)", c.db, dir, envDB)
		}
		return fmt.Errorf("no store at %s (create one with \"omoide ingest\", or name it with -db or %s)", c.db, envDB)
	}
	return nil
}

// isFolder reports whether dir is a folder.
func isFolder(dir string) bool {
	fi, err := os.Stat(dir)
	return err == nil && fi.IsDir()
}

// pack returns the preset's evidence rendering, for a command to adjust.
func (c *storeConfig) pack() memorypack.Options {
	p, err := omoide.LookupPreset(c.preset)
	if err != nil { // validate reports it
		return memorypack.DefaultOptions()
	}
	return p.Pack
}

// given reports whether the flag name was on the command line.
func (c *storeConfig) given(name string) bool {
	found := false
	c.fs.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	return found
}

// retrieverOptions returns the preset's retriever options with the retrieve
// flags applied, or nil when none is set.
func (c *storeConfig) retrieverOptions() (*retriever.Options, error) {
	if !c.given("max-age-days") && !c.given("inject-threshold") && c.model == "" && c.kinds == "" && c.states == "" && c.maxSens == "" {
		return nil, nil
	}
	p, _ := omoide.LookupPreset(c.preset) // validated
	o := p.Retriever
	if c.given("max-age-days") {
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
	if c.given("inject-threshold") {
		if !in.On() {
			return nil, fmt.Errorf("%w: -inject-threshold: the %s preset decides by rules, not by a relevance model (give -relevance-model too)", errUsage, c.preset)
		}
		in.Threshold = c.threshold
	}
	return &o, nil
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
		if errors.Is(err, retriever.ErrModelEmbedder) {
			return nil, fmt.Errorf("-relevance-model %s: %w", c.model, err)
		}
		if m, rerr := sqlite.ReadMeta(ctx, c.db); rerr == nil && m.Embedder != e.Identity() {
			err = fmt.Errorf("%w\n(the flags describe the embedder %s; %s, or change the store's embedder with \"omoide reembed\")",
				err, e.Identity(), cli.FlagsFor(m.Embedder))
		}
		return nil, err
	}
	return mem, nil
}

// openStore opens an existing store for a command that embeds nothing
// (stats, delete, forget) with the embedder identity the store recorded, so
// that these commands need no embedder flags; when the store records none it
// falls back to the flags.
func (c *storeConfig) openStore(ctx context.Context) (*sqlite.Store, error) {
	if err := c.validate(); err != nil {
		return nil, err
	}
	if err := c.mustExist(); err != nil {
		return nil, err
	}
	s, err := sqlite.Open(ctx, c.db, sqlite.Options{ReadOnly: c.readOnly})
	if errors.Is(err, sqlite.ErrNoEmbedder) {
		e, eerr := c.emb.Embedder()
		if eerr != nil {
			return nil, eerr
		}
		return sqlite.Open(ctx, c.db, sqlite.Options{Embedder: e, ReadOnly: c.readOnly})
	}
	return s, err
}

// nodeList reads a node list as the proxy's upstreams write it (serve and
// move -peers, OMOIDE_NODES): addresses separated by spaces or commas.
func nodeList(s string) []string { return strings.Fields(strings.ReplaceAll(s, ",", " ")) }

// setUsage gives fs a usage message: the synopsis, the description, then the
// flags.
func setUsage(fs *flag.FlagSet, synopsis, description string) {
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "usage: %s\n\n%s\nflags:\n", synopsis, strings.TrimLeft(description, "\n"))
		fs.PrintDefaults()
	}
}

// ceilingAndZone reads the flags of the commands that serve people (serve,
// inspect, mcp): -max-request-sensitivity, the most private level they
// return, and -tz, the people's zone, set in pack.
func ceilingAndZone(maxSens, tz string, pack *memorypack.Options) (episode.Sensitivity, error) {
	ceiling, err := episode.ParseSensitivity(maxSens)
	if err != nil {
		return 0, fmt.Errorf("%w: -max-request-sensitivity: %v", errUsage, err)
	}
	if pack.Location, err = time.LoadLocation(tz); err != nil {
		return 0, fmt.Errorf("%w: -tz: %v", errUsage, err)
	}
	return ceiling, nil
}

// tokenFlags are the flags that give a server its bearer token: -token, or
// better OMOIDE_TOKEN or -token-file, which no other user of the machine
// sees in ps.
type tokenFlags struct {
	token, file *string
}

// addTokenFlags adds -token and -token-file to fs; what says what the token
// guards.
func addTokenFlags(fs *flag.FlagSet, what string) tokenFlags {
	return tokenFlags{
		token: fs.String("token", "", what+" (default: env "+envToken+" or -token-file, which ps does not show as it shows a flag)"),
		file:  fs.String("token-file", "", "read the token from this `file` (its first line; e.g. a container's secret)"),
	}
}

// value returns the token: -token, else -token-file's first line, else
// OMOIDE_TOKEN; "" for none.
func (t tokenFlags) value() (string, error) {
	switch {
	case *t.token != "" && *t.file != "":
		return "", fmt.Errorf("%w: give -token or -token-file, not both", errUsage)
	case *t.token != "":
		return *t.token, nil
	case *t.file != "":
		b, err := os.ReadFile(*t.file)
		if err != nil {
			return "", fmt.Errorf("-token-file: %w", err)
		}
		line, _, _ := strings.Cut(string(b), "\n")
		if line = strings.TrimSpace(line); line == "" {
			return "", fmt.Errorf("-token-file %s: the first line is empty: write the token there", *t.file)
		}
		return line, nil
	}
	return os.Getenv(envToken), nil
}
