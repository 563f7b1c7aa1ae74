package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/omoide/omoide/dataset"
	"github.com/omoide/omoide/embed"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/episode/sqlite"
	"github.com/omoide/omoide/tokenize"
)

// BenchmarkAdd500 stores batches of 500 Japanese episodes (the demo
// conversations, repeated) with the default analyzer and hash embedder;
// episodes/s is reported.
func BenchmarkAdd500(b *testing.B) {
	ctx := context.Background()
	s, src := addBenchStore(b)
	batch := make([]episode.Episode, 500)
	n := 0
	b.ResetTimer()
	for b.Loop() {
		for i := range batch {
			e := src[n%len(src)].Episode()
			e.ExternalID = fmt.Sprint(n)
			e.OccurredAt = e.OccurredAt.Add(time.Duration(n) * time.Second)
			batch[i] = e
			n++
		}
		if _, err := s.Add(ctx, batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "episodes/s")
}

// BenchmarkAddConcurrent stores one episode per Add from 16 goroutines at
// once, as a server's clients write; the Adds waiting together share a
// commit. episodes/s is reported.
func BenchmarkAddConcurrent(b *testing.B) {
	ctx := context.Background()
	s, src := addBenchStore(b)
	var n atomic.Int64
	b.SetParallelism(max(1, 16/runtime.GOMAXPROCS(0)))
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1)
			e := src[int(i)%len(src)].Episode()
			e.User = fmt.Sprintf("p%d", i%100)
			e.ExternalID = fmt.Sprint(i)
			e.OccurredAt = e.OccurredAt.Add(time.Duration(i) * time.Second)
			if _, err := s.Add(ctx, []episode.Episode{e}); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(n.Load())/b.Elapsed().Seconds(), "episodes/s")
}

// addBenchStore opens an empty store with the default analyzer and the hash
// embedder with word features, closed when b ends, and reads the demo
// conversations to store in it.
func addBenchStore(b *testing.B) (*sqlite.Store, []dataset.Episode) {
	src, err := dataset.ReadFile[dataset.Episode]("../../demo/episodes.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	h, _ := embed.NewHash(embed.HashOptions{Terms: tokenize.Kagome().Terms})
	s, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"), sqlite.Options{Embedder: h})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s, src
}

// BenchmarkReadPath runs the store's per-retrieval reads (a person's count,
// their last episodes, 60 candidates by id) on a store of the demo
// conversations: the statements a retrieval runs every time.
func BenchmarkReadPath(b *testing.B) {
	src, err := dataset.ReadFile[dataset.Episode]("../../demo/episodes.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	h, _ := embed.NewHash(embed.HashOptions{})
	ctx := context.Background()
	s, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "bench.db"), sqlite.Options{Embedder: h})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	eps := make([]episode.Episode, len(src))
	for i, e := range src {
		eps[i] = e.Episode()
	}
	ids, err := s.Add(ctx, eps)
	if err != nil {
		b.Fatal(err)
	}
	ids = ids[:min(60, len(ids))]
	user := eps[0].User
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Count(ctx, user); err != nil {
			b.Fatal(err)
		}
		if _, err := s.Recent(ctx, user, 3); err != nil {
			b.Fatal(err)
		}
		if _, err := s.GetMany(ctx, ids); err != nil {
			b.Fatal(err)
		}
	}
}
