// Package wire holds what omoide's JSON input and output share between the
// command line and the HTTP API (package omoidehttp): the recent turns of a
// request, and the shapes of a pack and of a store's statistics. The records
// themselves are the library's (episode.Record, retriever.Result).
package wire

import (
	"cmp"
	"context"
	"fmt"

	"github.com/omoide/omoide/embed"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/episode/sqlite"
	"github.com/omoide/omoide/retriever"
)

// Pack is a rendered EPISODE_EVIDENCE section with the retrieval behind
// it ("retrieve -pack -json", POST /v1/pack); Section is "" and Inject false
// when nothing is worth injecting. Hits and Trace are retriever's JSON.
type Pack struct {
	Section string          `json:"section"`
	Inject  bool            `json:"inject"`
	Hits    []retriever.Hit `json:"hits"`
	Trace   retriever.Trace `json:"trace"`
}

// PackOf is the pack of a retrieval and its rendered section.
func PackOf(section string, res retriever.Result) Pack {
	hits := res.Hits
	if hits == nil {
		hits = []retriever.Hit{}
	}
	return Pack{Section: section, Inject: section != "", Hits: hits, Trace: res.Trace}
}

// Stats is sqlite.Stats.
type Stats struct {
	Path          string `json:"path,omitempty"`
	SchemaVersion int    `json:"schema_version"`
	Embedder      string `json:"embedder"` // name/dim
	EmbedderName  string `json:"embedder_name"`
	EmbedderDim   int    `json:"embedder_dim"`
	Analyzer      string `json:"analyzer"`
	Episodes      int    `json:"episodes"`
	Users         int    `json:"users"`
	FTSRows       int    `json:"fts_rows"`
	VectorRows    int    `json:"vector_rows"`
	Consistent    bool   `json:"consistent"` // the three row counts agree
	FileBytes     int64  `json:"file_bytes"`
	FreeBytes     int64  `json:"free_bytes"` // on the file's free list, reused before it grows
	// Unsearched counts the episodes the preset's filter leaves out (omoide
	// stats; not /healthz, which stays cheap).
	Unsearched *retriever.Unsearched `json:"unsearched,omitempty"`
	// Decision says what decides what is injected for the preset and this
	// store's embedder (retriever.ModelFor; omoide stats).
	Decision string `json:"decision,omitempty"`
}

// StatsOf returns the statistics of the store at path ("" leaves it out).
func StatsOf(path string, st sqlite.Stats) Stats {
	return Stats{Path: path, SchemaVersion: st.SchemaVersion, Embedder: st.Embedder.String(),
		EmbedderName: st.Embedder.Name, EmbedderDim: st.Embedder.Dim, Analyzer: st.Analyzer,
		Episodes: st.Episodes, Users: st.Users, FTSRows: st.FTSRows, VectorRows: st.VectorRows,
		Consistent: st.Episodes == st.FTSRows && st.Episodes == st.VectorRows, FileBytes: st.FileBytes, FreeBytes: st.FreeBytes}
}

// StoreStats returns the statistics of store, at path, with the episodes the
// retriever options o leave out of every search (Unsearched) and what decides
// their injects for the store's embedder (Decision), as omoide stats shows
// them.
func StoreStats(ctx context.Context, path string, store *sqlite.Store, o retriever.Options) (Stats, error) {
	st, err := store.Stats(ctx)
	if err != nil {
		return Stats{}, fmt.Errorf("the statistics of %s: %w", path, err)
	}
	classes, err := store.Classes(ctx, "")
	if err != nil {
		return Stats{}, fmt.Errorf("the classes of the episodes of %s: %w", path, err)
	}
	js := StatsOf(path, st)
	u := o.Filter.Unsearched(classes)
	js.Unsearched = &u
	if _, js.Decision, err = retriever.ModelFor(o.Rank.Inject.Model, st.Embedder.String(), embed.IsLexical(store.Embedder())); err != nil {
		return Stats{}, err
	}
	return js, nil
}

// Unsearched counts the episodes f leaves out of every search.
func Unsearched(f retriever.Filter, eps []episode.Episode) int {
	n := 0
	for _, e := range eps {
		if !f.Admits(cmp.Or(e.Kind, episode.KindEpisode), e.State, e.Sensitivity) {
			n++
		}
	}
	return n
}
