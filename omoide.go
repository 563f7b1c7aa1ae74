// Package omoide gives a chat companion long-term memory of its conversations
// without calling an LLM: it stores past exchanges (episodes) and, given the
// person's new message and the last few turns, finds the ones worth reminding
// the model of and renders them as an EPISODE_EVIDENCE section for the prompt.
//
// Memory is the one-stop API for a Go backend; the packages it wires together
// (episode, tokenize, embed, retriever, memorypack) can also be used alone.
//
//	mem, err := omoide.Open(ctx, omoide.Config{Path: "memory.db"})
//	...
//	mem.Add(ctx, episode.Episode{User: "haruka", UserText: "昨日ラーメン食べた", ReplyText: "いいね！", OccurredAt: t})
//	section, res, err := mem.Evidence(ctx, retriever.Request{User: "haruka", Text: "この前のラーメン屋どこだっけ"})
package omoide

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"time"

	"github.com/omoide/omoide/embed"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/episode/sqlite"
	"github.com/omoide/omoide/lang"
	"github.com/omoide/omoide/memorypack"
	"github.com/omoide/omoide/retriever"
	"github.com/omoide/omoide/tokenize"
)

// Presets name a configuration (LookupPreset).
const (
	PresetDefault   = "default"   // retriever.DefaultOptions, the cjk2 analyzer, memorypack.DefaultOptions
	PresetReference = "reference" // the reference design exactly, as the original at commit 39ca2e7
)

// Config configures Open. Only Path is required.
type Config struct {
	Path string // the SQLite database file; created when missing
	// Embedder computes vectors; nil means DefaultEmbedder(), the offline
	// hash embedder. embed.LoadStatic runs a static embedding model
	// in-process (meaning without a server); embed.NewOpenAI calls a server.
	Embedder embed.Embedder
	// Preset is PresetDefault ("" too) or PresetReference.
	Preset string
	// Analyzer overrides the preset's analyzer for a new store; an existing
	// store keeps the one it was built with.
	Analyzer tokenize.Analyzer
	// Retriever overrides the preset's retriever options when non-nil.
	Retriever *retriever.Options
	// Pack renders the evidence section; the zero value means the
	// preset's.
	Pack memorypack.Options
	// Location is the person's time zone, one for everything that names a
	// day: the retriever's time expressions ("昨日") and MaxAgeDays window
	// (retriever.Options.Location) and the evidence dates (Pack.Location).
	// nil leaves each as set above, UTC by default. A Request's Location
	// overrides it for one retrieval.
	Location *time.Location
	// IndexMin and IndexCapacity size the in-memory vector indexes (see
	// sqlite.Options): the store decides how to scan. IndexMin 0 means the
	// preset's (the reference scans exactly); IndexCapacity 0 the episode
	// package's default.
	IndexMin, IndexCapacity int
	// ReadOnly opens an existing store for retrievals and reads only (a
	// read-only file or directory, a backup copy): nothing is written, and
	// Add, Delete and Forget return sqlite.ErrReadOnly.
	ReadOnly bool
	// CheckpointWait is sqlite.Options.CheckpointWait: how long a removal's
	// checkpoint waits for readers of the log (0: the default, 200 ms;
	// negative: no wait, as beside Litestream).
	CheckpointWait time.Duration
}

// DefaultEmbedder returns the offline default embedder: the hash embedder
// over character n-grams and kagome terms (lexical, not semantic; see
// embed.Hash), at embed.DefaultHashDim dimensions.
func DefaultEmbedder() embed.Embedder {
	h, _ := NewHashEmbedder(0) // fails only for a negative dim
	return h
}

// NewHashEmbedder returns the hash embedder of DefaultEmbedder with dim
// dimensions (0 means embed.DefaultHashDim). It fails only for a negative
// dim.
func NewHashEmbedder(dim int) (*embed.Hash, error) {
	return embed.NewHash(embed.HashOptions{Dim: dim, Terms: tokenize.Kagome().Terms})
}

// Preset is a named configuration: what a Memory opened with it retrieves
// with, the analyzer of a store it creates, how that store scans vectors, and
// how it renders the evidence.
type Preset struct {
	Retriever retriever.Options
	Analyzer  tokenize.Analyzer
	// IndexMin is the store's sqlite.Options.IndexMin: -1 for the
	// reference, whose design scans vec0 exactly, query by query; 0 (the
	// episode package's default: a person's vectors in memory from
	// sqlite.DefaultIndexMin episodes on) for the default.
	IndexMin int
	Pack     memorypack.Options
}

// LookupPreset returns the preset of that name ("" is PresetDefault). The
// reference preset is the original retriever at commit 39ca2e7 (2026-01-04):
// its retrieval (retriever.ReferenceOptions over the raw analyzer, exact
// vector scans) and its rendering (memorypack.ReferenceOptions).
func LookupPreset(name string) (Preset, error) {
	switch name {
	case "", PresetDefault:
		return Preset{Retriever: retriever.DefaultOptions(), Analyzer: tokenize.CJK2(), Pack: memorypack.DefaultOptions()}, nil
	case PresetReference:
		return Preset{Retriever: retriever.ReferenceOptions(), Analyzer: tokenize.Raw(), IndexMin: -1, Pack: memorypack.ReferenceOptions()}, nil
	}
	return Preset{}, fmt.Errorf("omoide: unknown preset %q (want %q or %q)", name, PresetDefault, PresetReference)
}

// Memory is a person-partitioned episode memory: a store, a retriever over it
// and the evidence rendering. It is safe for concurrent use.
type Memory struct {
	Store     *sqlite.Store
	Retriever *retriever.Retriever
	Pack      memorypack.Options
}

// Open opens (or creates) the memory at cfg.Path.
func Open(ctx context.Context, cfg Config) (*Memory, error) {
	p, err := LookupPreset(cfg.Preset)
	if err != nil {
		return nil, err
	}
	opts, analyzer := p.Retriever, p.Analyzer
	if cfg.Pack == (memorypack.Options{}) {
		cfg.Pack = p.Pack
	}
	if cfg.Retriever != nil {
		opts = *cfg.Retriever
	}
	if cfg.Analyzer != nil {
		analyzer = cfg.Analyzer
	}
	if cfg.Location != nil {
		opts.Location = cfg.Location
		cfg.Pack.Location = cfg.Location
	}
	if cfg.Embedder == nil {
		cfg.Embedder = DefaultEmbedder()
	}
	if cfg.Analyzer == nil && sqlite.Exists(cfg.Path) {
		analyzer = nil // an existing store keeps the analyzer it was built with
	}
	store, err := sqlite.Open(ctx, cfg.Path, sqlite.Options{Embedder: cfg.Embedder, Analyzer: analyzer,
		IndexMin: cmp.Or(cfg.IndexMin, p.IndexMin), IndexCapacity: cfg.IndexCapacity, ReadOnly: cfg.ReadOnly,
		CheckpointWait: cfg.CheckpointWait})
	if err != nil {
		return nil, err // "episode store: …" says where
	}
	r, err := retriever.New(store, opts)
	if err != nil {
		store.Close()
		return nil, err
	}
	return &Memory{Store: store, Retriever: r, Pack: cfg.Pack}, nil
}

// Close closes the store.
func (m *Memory) Close() error { return m.Store.Close() }

// Add stores episodes (see sqlite.Store.Add).
func (m *Memory) Add(ctx context.Context, eps ...episode.Episode) ([]int64, error) {
	return m.Store.Add(ctx, eps)
}

// Update stores episodes as Add does, except that one whose (User,
// ExternalID) is stored with other content replaces it: its texts analyzed
// and embedded again, the old version erased (sqlite.Store.Update). Add
// returns episode.ErrConflict for such an episode.
func (m *Memory) Update(ctx context.Context, eps ...episode.Episode) ([]int64, error) {
	return m.Store.Update(ctx, eps)
}

// Put stores episodes as Add does, or as Update does when replace, and says
// how many were added, replaced or already present (sqlite.Store.Put).
func (m *Memory) Put(ctx context.Context, replace bool, eps ...episode.Episode) (episode.PutResult, error) {
	return m.Store.Put(ctx, replace, eps...)
}

// Delete removes the episodes with the given ids and erases their texts from
// the store's file and its write-ahead log (sqlite.Store.Delete); it
// says which it removed and which ids the store did not hold.
func (m *Memory) Delete(ctx context.Context, ids ...int64) (sqlite.Deleted, error) {
	return m.Store.Delete(ctx, ids...)
}

// Forget removes every episode of user and erases the person's texts and
// name from the store's file and its write-ahead log
// (sqlite.Store.Forget), a person's request to be forgotten.
func (m *Memory) Forget(ctx context.Context, user string) (sqlite.Erased, error) {
	return m.Store.Forget(ctx, user)
}

// Export writes every episode of user to w as the JSON Lines that ingest
// reads (sqlite.Store.Export), for the person to take their memory
// elsewhere or an operator to move them; it returns how many it wrote.
func (m *Memory) Export(ctx context.Context, user string, w io.Writer) (int, error) {
	return m.Store.Export(ctx, user, w)
}

// Backup writes a consistent copy of the store to path, a new file, while it
// is in use (sqlite.Store.Backup).
func (m *Memory) Backup(ctx context.Context, path string) error {
	return m.Store.Backup(ctx, path)
}

// Retrieve returns the episodes worth reminding the model of.
func (m *Memory) Retrieve(ctx context.Context, req retriever.Request) (retriever.Result, error) {
	return m.Retriever.Retrieve(ctx, req)
}

// Evidence retrieves and renders the EPISODE_EVIDENCE section; the section is
// "" when the retrieval found nothing worth injecting. The evidence dates are
// in the request's Location when it names one.
func (m *Memory) Evidence(ctx context.Context, req retriever.Request) (string, retriever.Result, error) {
	return m.EvidenceWith(ctx, req, m.Pack)
}

// EvidenceWith is Evidence rendered with pack in place of m.Pack, for one
// request's own rendering (a strategy, the reasons): start from m.Pack and
// change what the request asks. The evidence dates are in the request's
// Location when it names one, else in pack's.
func (m *Memory) EvidenceWith(ctx context.Context, req retriever.Request, pack memorypack.Options) (string, retriever.Result, error) {
	res, err := m.Retriever.Retrieve(ctx, req)
	if err != nil {
		return "", res, err
	}
	if req.Location != nil {
		pack.Location = req.Location
	}
	if pack.Intro == "" { // the default preset's: the intro in the person's language
		pack.Intro = memorypack.IntroFor(lang.Detect(req.Text, req.Lang))
	}
	return memorypack.RenderEvidence(evidenceOf(res), pack), res, nil
}

// evidenceOf returns a retrieval's hits as MemoryPack evidence: the episode's
// time and texts, its relevance and the reason it was picked.
func evidenceOf(res retriever.Result) []memorypack.Evidence {
	out := make([]memorypack.Evidence, len(res.Hits))
	for i, h := range res.Hits {
		out[i] = memorypack.Evidence{
			OccurredAt: h.Episode.OccurredAt,
			UserText:   h.Episode.UserText,
			ReplyText:  h.Episode.ReplyText,
			Relevance:  h.Relevance,
			Reason:     h.Reason,
		}
	}
	return out
}

// Unsearched counts user's stored episodes ("" for every person's) that the
// memory's retrievals leave out unless a Request's Filter widens them in
// (retriever.Options.Filter: in the default preset, private and secret
// episodes and archived ones).
func (m *Memory) Unsearched(ctx context.Context, user string) (retriever.Unsearched, error) {
	cs, err := m.Store.Classes(ctx, user)
	if err != nil {
		return retriever.Unsearched{}, err
	}
	return m.Retriever.Options().Filter.Unsearched(cs), nil
}
